#include "engine/core/directory_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace dissect {

namespace {
std::string lock_path(const std::string& dir) { return (std::filesystem::path(dir) / kLockFileName).string(); }
}  // namespace

std::optional<DirectoryLock> DirectoryLock::try_acquire(const std::string& dir, std::string* holder) {
  const std::string path = lock_path(dir);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(path + ": cannot create lock file: " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (holder != nullptr) {
      char buf[32] = {0};
      const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
      *holder = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
      while (!holder->empty() && (holder->back() == '\n' || holder->back() == ' ')) holder->pop_back();
    }
    ::close(fd);
    return std::nullopt;
  }
  // Who holds it, for the message another process prints.
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) {
    [[maybe_unused]] const ssize_t n = ::pwrite(fd, pid.data(), pid.size(), 0);
  }
  return DirectoryLock(fd);
}

DirectoryLock::DirectoryLock(DirectoryLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

DirectoryLock& DirectoryLock::operator=(DirectoryLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

bool directory_locked(const std::string& dir) {
  const int fd = ::open(lock_path(dir).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return held;
}

}  // namespace dissect
