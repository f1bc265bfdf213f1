#include "engine/core/directory_lock.hpp"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "support/temp_dir.hpp"

using namespace dissect;
using dissect::test::TempDir;

TEST_CASE("a directory lock is held once, says who holds it and is freed with its holder") {
  TempDir dir;
  CHECK_FALSE(directory_locked(dir.path()));  // never locked: no lock file
  {
    auto first = DirectoryLock::try_acquire(dir.path());
    REQUIRE(first.has_value());
    CHECK(directory_locked(dir.path()));
    std::string holder;
    CHECK_FALSE(DirectoryLock::try_acquire(dir.path(), &holder).has_value());
    CHECK(holder == std::to_string(::getpid()));
    DirectoryLock moved = std::move(*first);  // moving keeps it held
    CHECK(directory_locked(dir.path()));
  }
  CHECK_FALSE(directory_locked(dir.path()));
  CHECK(DirectoryLock::try_acquire(dir.path()).has_value());
}

TEST_CASE("a directory lock dies with a killed process") {
  TempDir dir;
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    auto lock = DirectoryLock::try_acquire(dir.path());
    const char c = lock ? '1' : '0';
    [[maybe_unused]] const auto n = ::write(ready[1], &c, 1);
    ::pause();  // killed below, holding the lock
    ::_exit(0);
  }
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  CHECK(c == '1');
  CHECK(directory_locked(dir.path()));
  CHECK_FALSE(DirectoryLock::try_acquire(dir.path()).has_value());
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  CHECK_FALSE(directory_locked(dir.path()));
  CHECK(DirectoryLock::try_acquire(dir.path()).has_value());
}
