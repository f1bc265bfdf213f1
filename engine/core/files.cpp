#include "engine/core/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace dissect {

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string read_text_file_bounded(const std::string& path, std::size_t max_bytes) {
  // Non-blocking open and a look at what it is: a FIFO, socket or terminal named as a
  // spec or include would block the reader (a fuzzer finds `include: /dev/stdin`).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw std::runtime_error(path + ": cannot open file: " + std::strerror(errno));
  struct stat st{};
  if (::fstat(fd, &st) != 0 || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || ::isatty(fd) != 0) {
    ::close(fd);
    throw std::runtime_error(path + ": not a file (a pipe, socket or terminal)");
  }
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const std::size_t want = std::min(sizeof buf, max_bytes + 1 - out.size());
    const ssize_t n = ::read(fd, buf, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw std::runtime_error(path + ": cannot read file: " + std::strerror(err));
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > max_bytes) {
      ::close(fd);
      throw FileTooLarge(path + ": larger than the limit of " + std::to_string(max_bytes) + " bytes");
    }
  }
  ::close(fd);
  return out;
}

void write_file_atomic(const std::string& path, const std::string& content, bool durable) {
  std::random_device rd;
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(tmp + ": cannot create file: " + std::strerror(errno));
  try {
    append_all(fd, content, tmp);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (durable) ::fsync(fd);
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error(path + ": cannot rename into place: " + std::strerror(err));
  }
}

void append_all(int fd, std::string_view content, const std::string& what) {
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(what + ": write failed: " + std::strerror(errno));
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

static std::string format_now(const char* fmt) {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, fmt, &tm);
  return buf;
}

std::string utc_timestamp() { return format_now("%Y-%m-%dT%H:%M:%SZ"); }
std::string compact_timestamp() { return format_now("%Y%m%d-%H%M%S"); }

std::string host_name() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

}  // namespace dissect
