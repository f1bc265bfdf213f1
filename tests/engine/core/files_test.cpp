#include "engine/core/files.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <string>

#include "support/temp_dir.hpp"

using namespace dissect;
using dissect::test::TempDir;

TEST_CASE("read_text_file_bounded reads up to its limit and refuses more without reading it") {
  TempDir dir;
  const std::string small = dir.write("small", std::string(100, 'x'));
  CHECK(read_text_file_bounded(small, 100).size() == 100);
  CHECK_THROWS_AS(read_text_file_bounded(small, 99), FileTooLarge);
  // An endless device is refused after limit + 1 bytes, not read until memory runs out.
  CHECK_THROWS_AS(read_text_file_bounded("/dev/zero", 1 << 20), FileTooLarge);
  // The system's reason, not a guess.
  CHECK_THROWS_WITH_AS(read_text_file_bounded(dir.file("missing"), 10), doctest::Contains("No such file or directory"),
                       std::runtime_error);
  CHECK_THROWS_WITH_AS(read_text_file_bounded(dir.path(), 10), doctest::Contains("Is a directory"), std::runtime_error);
}

TEST_CASE("read_text_file_bounded refuses a pipe instead of blocking on it") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const std::string path = "/proc/self/fd/" + std::to_string(fds[0]);
  CHECK_THROWS_WITH_AS(read_text_file_bounded(path, 1024), doctest::Contains("not a file"), std::runtime_error);
  ::close(fds[0]);
  ::close(fds[1]);
}
