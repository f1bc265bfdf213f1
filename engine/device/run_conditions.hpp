#pragma once
// The conditions a run measured under that can spoil its figures without failing
// it: the SM clock moving (boost, a power or thermal limit, clocks locked or unlocked
// meanwhile) and other processes on the GPU (their kernels share the SMs, the caches
// and the memory). The runner takes a snapshot of the GPU before and after each run
// (Device::snapshot); assess_conditions compares them, together with the clocks read
// while the run's launches ran (points.csv sm_clock_khz), and says what it finds: for
// bundle.json ("conditions") and as warnings for the terminal. A device with nothing
// to read (a simulated one) says so: its conditions are "not applicable".
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dissect {

struct GpuSnapshot {
  bool applicable = true;  // false: the device has no clock or processes to read
  std::string not_applicable_why;
  std::optional<double> sm_clock_khz;  // the current SM clock; nullopt: unknown
  std::string clock_unknown_why;
  // The pid of every compute process the GPU has (this one included while it holds a
  // context, as a CUDA device does), as NVML lists them; nullopt: unknown.
  std::optional<std::vector<std::uint32_t>> process_pids;
  std::string processes_unknown_why;
};

// Two SM-clock readings further apart than this share of the higher one count as a
// move. 1 %: what `dissect compare` treats as beyond run-to-run noise for latencies
// (docs/compare.md), i.e. the least change of a clock that would show in a figure
// converted with it (ns, bandwidths); one step of a GPU's clock table (15 MHz, 0.76 %
// of the H100's 1980 MHz) stays within it.
inline constexpr double kClockTolerance = 0.01;

// Other processes on the GPU in one snapshot.
struct ProcessCensus {
  bool known = false;
  std::size_t others = 0;                // how many besides this one
  std::vector<std::uint32_t> pids;       // theirs, where NVML's pids are this process's namespace's
  std::string note;                      // why unknown, or what could not be told apart
};

// The other processes among the pids NVML lists, given this process's pid. NVML lists
// pids as the host sees them: in a container (another PID namespace) this process is
// among them under another pid, so it is counted out without being named, and a list
// without any process at all (while this one holds a context) means NVML cannot see
// the processes here: unknown.
ProcessCensus census_other_processes(const std::vector<std::uint32_t>& listed, std::uint32_t own_pid);

struct RunConditions {
  nlohmann::json json;                // bundle.json "conditions"
  std::vector<std::string> warnings;  // one line each, for the terminal (empty: nothing to say)
};

// `launch_clocks_khz`: the SM clock read while each launch ran (any order; NaN or 0 for unknown);
// used only where a snapshot read the clock too (without NVML a CUDA device reports its rated clock).
RunConditions assess_conditions(const GpuSnapshot& before, const GpuSnapshot& after,
                                std::span<const double> launch_clocks_khz, std::uint32_t own_pid);

}  // namespace dissect
