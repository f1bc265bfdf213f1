#pragma once
// Runs the dissect binary (or any command) and captures its output and exit status.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace dissect::test {

struct CommandResult {
  int status = -1;     // exit status
  std::string output;  // stdout and stderr, interleaved
};

inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  const int raw = ::pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

inline CommandResult run_dissect(const std::string& args) {
  return run_command(std::string("'") + DISSECT_BINARY + "' " + args);
}

}  // namespace dissect::test
