#pragma once
// Runs the dissect binary (or any command): in the foreground, capturing its output and
// exit status; or in the background, to be signalled (killed, interrupted) once it has
// got somewhere, as a user or the system would.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

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

// Starts the binary with `args` in the background, its stdout and stderr to `log`;
// returns its pid (-1 when it could not be started).
inline pid_t spawn_dissect(const std::vector<std::string>& args, const std::string& log = "/dev/null") {
  std::fflush(stdout);  // the child must not print the parent's pending output again
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(DISSECT_BINARY));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (std::freopen(log.c_str(), "w", stdout) == nullptr) ::_exit(126);
    ::dup2(1, 2);
    ::execv(DISSECT_BINARY, argv.data());
    ::_exit(127);
  }
  return pid;
}

// Reaps a spawned process: its exit status, or 128 + the signal that killed it.
inline int wait_exit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Waits (at most `seconds`) until `ready` holds; whether it did.
template <typename F>
bool wait_for(F ready, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return ready();
}

// Starts the binary with `args`, sends it `sig` once `ready` holds (or after `seconds`),
// and reaps it. Returns what wait_exit does; -1 when it could not be started.
template <typename F>
int signal_dissect_when(const std::vector<std::string>& args, F ready, int sig, double seconds = 60) {
  const pid_t pid = spawn_dissect(args);
  if (pid < 0) return -1;
  (void)wait_for(ready, seconds);
  ::kill(pid, sig);
  return wait_exit(pid);
}

}  // namespace dissect::test
