#include "engine/report/gnuplot_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>
#include <vector>

namespace dissect::report {

namespace {

// Runs argv in workdir with stdin from /dev/null, capturing stdout+stderr. Spawned, not
// forked: a fork copies the page tables of a process that holds a topology's samples and a
// GPU context, and holds its memory map's lock meanwhile, so the report's gnuplots (one per
// plot, side by side on the workers) would start one at a time and stall the other threads.
GnuplotRun run_process(const std::vector<std::string>& argv, const std::string& workdir,
                       std::chrono::milliseconds timeout) {
  GnuplotRun r;
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    r.output = "pipe failed";
    return r;
  }
  if (!workdir.empty()) {
    struct stat st {};
    if (::stat(workdir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      ::close(fds[0]);
      ::close(fds[1]);
      r.output = "no directory " + workdir + " to run " + argv[0] + " in";
      return r;
    }
  }
  posix_spawn_file_actions_t actions;
  int failed = ::posix_spawn_file_actions_init(&actions);
  if (failed == 0) {
    // dup2 leaves the copies open across exec (the pipe's own ends are close-on-exec); the
    // rest of the descriptors (a GPU driver's among them) are closed.
    const int steps[] = {::posix_spawn_file_actions_adddup2(&actions, fds[1], 1),
                         ::posix_spawn_file_actions_adddup2(&actions, fds[1], 2),
                         ::posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0),
                         ::posix_spawn_file_actions_addclosefrom_np(&actions, 3),
                         workdir.empty() ? 0 : ::posix_spawn_file_actions_addchdir_np(&actions, workdir.c_str())};
    for (const int step : steps) failed = failed != 0 ? failed : step;
  }
  pid_t pid = -1;
  if (failed == 0) failed = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  if (failed != 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    r.output = std::string("cannot start ") + argv[0] + ": " + std::system_category().message(failed);
    return r;
  }
  ::close(fds[1]);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  bool open = true;
  while (open) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 200)));
    if (n < 0 && errno != EINTR) break;
    if (n > 0) {
      const ssize_t got = ::read(fds[0], buf, sizeof buf);
      if (got <= 0) {
        open = false;
      } else if (r.output.size() < 65536) {
        r.output.append(buf, static_cast<std::size_t>(got));
      }
    }
  }
  ::close(fds[0]);
  int status = 0;
  if (r.timed_out) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    r.status = -1;
    return r;
  }
  // Output closed: the process is exiting; wait for it within the remaining time.
  while (true) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) return r;
    if (std::chrono::steady_clock::now() >= deadline) {
      r.timed_out = true;
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return r;
    }
    ::usleep(2000);
  }
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace

std::string find_on_path(const std::string& name) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t colon = dirs.find(':', start);
    std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return "";
}

Gnuplot find_gnuplot(const std::string& requested, std::chrono::milliseconds timeout) {
  Gnuplot g;
  std::string name = requested;
  if (name.empty()) {
    const char* env = std::getenv("DISSECT_GNUPLOT");
    name = env != nullptr && *env != '\0' ? env : "gnuplot";
  }
  g.path = find_on_path(name);
  if (g.path.empty()) {
    g.message = name.find('/') != std::string::npos ? "gnuplot not found at " + name
                                                     : "gnuplot not found on PATH";
    g.message += " (Debian: apt-get install gnuplot-nox)";
    return g;
  }
  const GnuplotRun v = run_process({g.path, "--version"}, "", timeout);
  if (v.status != 0) {
    g.message = g.path + " does not run as gnuplot (--version failed" + (v.timed_out ? ": timed out" : "") + ")";
    return g;
  }
  g.version = v.output.substr(0, v.output.find('\n'));
  g.found = true;
  if (run_process({g.path, "-e", "set terminal pngcairo"}, "", timeout).status != 0) {
    g.png_terminal = "png";
    if (run_process({g.path, "-e", "set terminal png"}, "", timeout).status != 0) g.png_terminal = "";
  }
  g.svg = run_process({g.path, "-e", "set terminal svg"}, "", timeout).status == 0;
  g.message = "rendered with " + g.version + " (" + g.path + "; terminals svg" +
              (g.svg ? "" : " [missing]") + ", " + (g.png_terminal.empty() ? "png [missing]" : g.png_terminal) + ")";
  return g;
}

GnuplotRun run_gnuplot(const Gnuplot& gnuplot, const std::string& script, const std::string& workdir,
                       std::chrono::milliseconds timeout) {
  if (!gnuplot.found) {
    GnuplotRun r;
    r.output = gnuplot.message;
    return r;
  }
  return run_process({gnuplot.path, script}, workdir, timeout);
}

}  // namespace dissect::report
