#include "engine/core/timeline.hpp"

#include "engine/core/settings.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace dissect::timeline {
namespace {

struct Mark {
  double ms;
  std::thread::id thread;
  std::string what;
};

// The origin: static initialisation, i.e. about when the process started.
const std::chrono::steady_clock::time_point g_origin = std::chrono::steady_clock::now();
std::mutex g_mutex;
std::vector<Mark> g_marks;


}  // namespace

bool enabled() { return settings::timing_level() == 2; }

void enable(bool on) { settings::set_timing_level(on ? 2 : 0); }

void mark(std::string_view what) {
  if (!enabled()) return;
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - g_origin).count();
  const std::lock_guard lock(g_mutex);
  g_marks.push_back({ms, std::this_thread::get_id(), std::string(what)});
}

void print(std::FILE* to) {
  std::vector<Mark> marks;
  {
    const std::lock_guard lock(g_mutex);
    marks.swap(g_marks);
  }
  if (marks.empty()) return;
  // Threads by order of appearance: t0 is the first one that marked (the main thread, as a rule).
  std::vector<std::thread::id> threads;
  double prev = marks.front().ms;
  std::fprintf(to, "dissect timeline (ms since start, +ms since the previous mark):\n");
  for (const Mark& m : marks) {
    std::size_t t = 0;
    while (t < threads.size() && threads[t] != m.thread) ++t;
    if (t == threads.size()) threads.push_back(m.thread);
    std::fprintf(to, "  %10.3f  +%7.3f  t%zu  %s\n", m.ms, m.ms - prev, t, m.what.c_str());
    prev = m.ms;
  }
}

}  // namespace dissect::timeline
