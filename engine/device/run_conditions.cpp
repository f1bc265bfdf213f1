#include "engine/device/run_conditions.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace dissect {
namespace {

using json = nlohmann::json;

std::string mhz(double khz) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f MHz", khz / 1000.0);
  return buf;
}

std::string pid_list(const std::vector<std::uint32_t>& pids) {
  std::string s;
  for (const auto p : pids) s += (s.empty() ? "" : ", ") + std::to_string(p);
  return s;
}

const char* const kToleranceWhy =
    "1 % of the higher reading: what dissect compare treats as beyond run-to-run noise for latencies, the least "
    "change of the clock that would show in a figure converted with it (ns, bandwidths); one step of a GPU's clock "
    "table (15 MHz, 0.76 % of 1980 MHz) stays within it";

void assess_clock(const GpuSnapshot& before, const GpuSnapshot& after, std::span<const double> launch_clocks_khz,
                  RunConditions& r) {
  json& j = r.json;
  const auto reading = [](const std::optional<double>& v) { return v ? json(*v) : json("unknown"); };
  j["sm_clock_khz_before"] = reading(before.sm_clock_khz);
  j["sm_clock_khz_after"] = reading(after.sm_clock_khz);
  double launch_min = INFINITY, launch_max = -INFINITY;
  for (const double v : launch_clocks_khz)
    if (std::isfinite(v) && v > 0) launch_min = std::min(launch_min, v), launch_max = std::max(launch_max, v);
  const bool launches = launch_min <= launch_max;
  if (launches) j["sm_clock_khz_launches"] = {{"min", launch_min}, {"max", launch_max}};
  std::vector<double> all;
  for (const auto& v : {before.sm_clock_khz, after.sm_clock_khz})
    if (v && std::isfinite(*v) && *v > 0) all.push_back(*v);
  if (launches) all.insert(all.end(), {launch_min, launch_max});
  j["sm_clock_tolerance"] = kClockTolerance;
  j["sm_clock_tolerance_why"] = kToleranceWhy;
  // Without a reading of its own (no NVML) the device's launch clocks are no measurement either
  // (the CUDA device then reports its rated clock): unknown.
  if (all.size() < 2 || (!before.sm_clock_khz && !after.sm_clock_khz)) {
    j["sm_clock_moved"] = "unknown";
    const std::string why = !before.clock_unknown_why.empty() ? before.clock_unknown_why : after.clock_unknown_why;
    j["sm_clock_unknown_why"] = why.empty() ? std::string("fewer than two readings of the SM clock") : why;
    return;
  }
  const auto [lo, hi] = std::minmax_element(all.begin(), all.end());
  const bool moved = *hi - *lo > kClockTolerance * *hi;
  j["sm_clock_moved"] = moved ? "yes" : "no";
  if (!moved) return;
  std::string seen;
  const auto add = [&](const char* what, const std::optional<double>& v) {
    if (v) seen += (seen.empty() ? "" : ", ") + std::string(what) + " " + mhz(*v);
  };
  add("before", before.sm_clock_khz);
  add("after", after.sm_clock_khz);
  if (launches)
    seen += (seen.empty() ? "" : ", ") + std::string("while its launches ran ") +
            (launch_min == launch_max ? mhz(launch_min) : mhz(launch_min) + " to " + mhz(launch_max));
  r.warnings.push_back("the SM clock moved during the run, between " + mhz(*lo) + " and " + mhz(*hi) + " (" + seen +
                       "; tolerance 1 %): figures converted with the clock (ns, bandwidths) moved with it; lock the "
                       "clocks (nvidia-smi --lock-gpu-clocks) for steady ones");
}

void assess_processes(const GpuSnapshot& before, const GpuSnapshot& after, std::uint32_t own_pid, RunConditions& r) {
  json& j = r.json;
  bool known = false;
  std::size_t others = 0;
  std::set<std::uint32_t> pids;
  std::vector<std::string> notes;
  for (const GpuSnapshot* s : {&before, &after}) {
    if (!s->process_pids) {
      if (!s->processes_unknown_why.empty()) notes.push_back(s->processes_unknown_why);
      continue;
    }
    const ProcessCensus c = census_other_processes(*s->process_pids, own_pid);
    if (!c.note.empty()) notes.push_back(c.note);
    if (!c.known) continue;
    known = true;
    others = std::max(others, c.others);
    pids.insert(c.pids.begin(), c.pids.end());
  }
  notes.erase(std::unique(notes.begin(), notes.end()), notes.end());
  const std::string note = notes.empty() ? std::string() : notes.front();
  if (!known) {
    j["other_processes"] = "unknown";
    j["other_processes_why"] = note.empty() ? std::string("no list of the GPU's processes") : note;
    return;
  }
  // The most seen at once (before or after); their pids, where they can be told apart from ours.
  j["other_processes"] = others;
  const std::vector<std::uint32_t> named(pids.begin(), pids.end());
  if (!named.empty()) j["other_process_pids"] = named;
  if (!note.empty()) j["other_processes_note"] = note;
  if (others > 0)
    r.warnings.push_back(std::to_string(others) + " other process" + (others == 1 ? "" : "es") +
                         " on the GPU during the run" + (named.empty() ? "" : " (pid " + pid_list(named) + ")") +
                         ": their work shares the SMs, the caches and the memory with the measurement");
}

}  // namespace

ProcessCensus census_other_processes(const std::vector<std::uint32_t>& listed, std::uint32_t own_pid) {
  ProcessCensus c;
  const std::set<std::uint32_t> unique(listed.begin(), listed.end());  // a process can be listed twice (MIG)
  if (unique.empty()) {
    c.note = "NVML lists no process on the GPU, not even this one, which holds a context: it cannot see the GPU's "
             "processes here (another PID namespace, such as a container's?)";
    return c;
  }
  c.known = true;
  if (unique.count(own_pid) != 0) {
    for (const auto p : unique)
      if (p != own_pid) c.pids.push_back(p);
    c.others = c.pids.size();
    return c;
  }
  c.others = unique.size() - 1;
  c.note = "NVML lists the pids of another PID namespace (a container's?): this process is one of the " +
           std::to_string(unique.size()) + " listed (" + pid_list({unique.begin(), unique.end()}) + ")";
  return c;
}

RunConditions assess_conditions(const GpuSnapshot& before, const GpuSnapshot& after,
                                std::span<const double> launch_clocks_khz, std::uint32_t own_pid) {
  RunConditions r;
  if (!before.applicable || !after.applicable) {
    r.json["applicable"] = false;
    r.json["why"] = !before.applicable ? before.not_applicable_why : after.not_applicable_why;
    r.json["sm_clock_moved"] = "not applicable";
    r.json["other_processes"] = "not applicable";
    return r;
  }
  r.json["applicable"] = true;
  assess_clock(before, after, launch_clocks_khz, r);
  assess_processes(before, after, own_pid, r);
  r.json["warnings"] = r.warnings;
  return r;
}

}  // namespace dissect
