#include "engine/cli/reexec.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace dissect::cli {

std::string batch_failed_value() { return std::to_string(static_cast<long long>(::getpid())); }

bool batch_failed_before() {
  // execv keeps the process id: the value names the process that re-executed itself, so a
  // variable left in a shell (or set by hand) says nothing to any other dissect.
  const char* v = std::getenv(kBatchFailedEnv);
  const bool failed = v != nullptr && std::string(v) == batch_failed_value();
  ::unsetenv(kBatchFailedEnv);
  return failed;
}

std::vector<std::string> option_words(const std::vector<ParsedOption>& parsed, const std::vector<std::string>& drop) {
  std::vector<std::string> out;
  for (const auto& o : parsed) {
    if (o.key.empty() || std::find(drop.begin(), drop.end(), o.key) != drop.end()) continue;
    out.insert(out.end(), o.tokens.begin(), o.tokens.end());
  }
  return out;
}

std::string reexec_self(const std::vector<std::string>& argv) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(stdout);
  std::fflush(stderr);
  std::vector<char*> words;
  for (const auto& a : argv) words.push_back(const_cast<char*>(a.c_str()));
  words.push_back(nullptr);
  // Descriptors opened without O_CLOEXEC (the driver's and NVML's device files, the lost
  // context's) must not live on in the fresh process: close them at exec.
  for (int fd = 3; fd < 1024; ++fd) {
    const int flags = ::fcntl(fd, F_GETFD);
    if (flags >= 0 && (flags & FD_CLOEXEC) == 0) ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
  }
  ::execv("/proc/self/exe", words.data());
  const std::string first = std::strerror(errno);
  if (!argv.empty()) ::execvp(argv[0].c_str(), words.data());
  return "/proc/self/exe: " + first + "; " + (argv.empty() ? std::string("?") : argv[0]) + ": " +
         std::strerror(errno);
}

}  // namespace dissect::cli
