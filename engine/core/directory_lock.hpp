#pragma once
// An advisory lock on a directory, held by one process for the life of the
// object: a bundle while its run writes it, a topology output directory while
// its topology runs. It is an flock() on <dir>/.lock, so the kernel drops it when
// the process ends in any way (SIGKILL, power loss): a directory whose lock is
// free but whose record says "running" was abandoned, never "still running".
#include <optional>
#include <string>

namespace dissect {

inline constexpr const char* kLockFileName = ".lock";

class DirectoryLock {
 public:
  // Takes the lock on `dir` (which must exist) without waiting. nullopt when
  // another process (or another DirectoryLock of this one) holds it; `holder`
  // then gets the pid written by that holder, when readable. Throws
  // std::runtime_error when the lock file cannot be created.
  static std::optional<DirectoryLock> try_acquire(const std::string& dir, std::string* holder = nullptr);
  DirectoryLock(DirectoryLock&& other) noexcept;
  DirectoryLock& operator=(DirectoryLock&& other) noexcept;
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  ~DirectoryLock();

 private:
  explicit DirectoryLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// Whether some process holds the lock on `dir` now (false when there is no lock
// file: nothing ever locked it, or it cannot be read).
bool directory_locked(const std::string& dir);

}  // namespace dissect
