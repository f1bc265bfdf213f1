// A run's conditions: whether the SM clock moved and whether other processes shared
// the GPU, from snapshots a fake GPU would give (no clock of any real GPU assumed).
#include "engine/device/run_conditions.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace dissect;

namespace {

GpuSnapshot at(std::optional<double> clock_khz, std::optional<std::vector<std::uint32_t>> pids) {
  GpuSnapshot s;
  s.sm_clock_khz = clock_khz;
  if (!clock_khz) s.clock_unknown_why = "no NVML: libnvidia-ml.so.1 not found";
  s.process_pids = std::move(pids);
  if (!s.process_pids) s.processes_unknown_why = "no NVML: libnvidia-ml.so.1 not found";
  return s;
}

constexpr std::uint32_t kOwn = 4242;
const std::vector<std::uint32_t> kAlone{kOwn};

}  // namespace

TEST_CASE("a steady clock within the tolerance has not moved; beyond it, it has, and the terminal is told") {
  const double f = 1'000'000;  // any clock: the decision is relative
  const std::vector<double> launches{f, f * (1 - kClockTolerance / 2)};
  const RunConditions steady = assess_conditions(at(f, kAlone), at(f, kAlone), launches, kOwn);
  CHECK(steady.json["sm_clock_moved"] == "no");
  CHECK(steady.json["sm_clock_tolerance"] == kClockTolerance);
  CHECK_FALSE(steady.json["sm_clock_tolerance_why"].get<std::string>().empty());
  CHECK(steady.json["sm_clock_khz_launches"]["min"] == f * (1 - kClockTolerance / 2));
  CHECK(steady.warnings.empty());

  // Before and after alike, but a launch ran slower: a throttle in between is a move too.
  const std::vector<double> throttled{f, f * (1 - 3 * kClockTolerance), f};
  const RunConditions dip = assess_conditions(at(f, kAlone), at(f, kAlone), throttled, kOwn);
  CHECK(dip.json["sm_clock_moved"] == "yes");
  REQUIRE(dip.warnings.size() == 1);
  CHECK(dip.warnings[0].find("SM clock moved") != std::string::npos);
  CHECK(dip.json["warnings"] == dip.warnings);

  // From an idle clock before to a boosted one after.
  const RunConditions ramp = assess_conditions(at(0.5 * f, kAlone), at(f, kAlone), {}, kOwn);
  CHECK(ramp.json["sm_clock_moved"] == "yes");
  REQUIRE(ramp.warnings.size() == 1);
  CHECK(ramp.warnings[0].find("before 500 MHz, after 1000 MHz") != std::string::npos);
  CHECK_FALSE(ramp.json.contains("sm_clock_khz_launches"));
}

TEST_CASE("without NVML the clock and the processes are unknown, and that is no failure and no warning") {
  const std::vector<double> unknown{std::nan(""), 0};
  const RunConditions r = assess_conditions(at(std::nullopt, std::nullopt), at(std::nullopt, std::nullopt), unknown, kOwn);
  CHECK(r.json["applicable"] == true);
  CHECK(r.json["sm_clock_moved"] == "unknown");
  CHECK(r.json["sm_clock_khz_before"] == "unknown");
  CHECK(r.json["sm_clock_unknown_why"].get<std::string>().find("NVML") != std::string::npos);
  CHECK(r.json["other_processes"] == "unknown");
  CHECK(r.json["other_processes_why"].get<std::string>().find("NVML") != std::string::npos);
  CHECK(r.warnings.empty());
  // Launch clocks without a snapshot's reading are the rated clock, not a measurement.
  const std::vector<double> rated{1e6, 1e6};
  CHECK(assess_conditions(at(std::nullopt, kAlone), at(std::nullopt, kAlone), rated, kOwn).json["sm_clock_moved"] ==
        "unknown");
  // One reading alone cannot show a move either.
  CHECK(assess_conditions(at(1e6, std::nullopt), at(std::nullopt, std::nullopt), {}, kOwn).json["sm_clock_moved"] ==
        "unknown");
}

TEST_CASE("other processes: this one is counted out; present before or after is present") {
  const RunConditions alone = assess_conditions(at(1e6, kAlone), at(1e6, kAlone), {}, kOwn);
  CHECK(alone.json["other_processes"] == 0);
  CHECK(alone.warnings.empty());

  const RunConditions shared =
      assess_conditions(at(1e6, std::vector<std::uint32_t>{kOwn, 77}), at(1e6, std::vector<std::uint32_t>{kOwn, 78, 77}),
                        {}, kOwn);
  CHECK(shared.json["other_processes"] == 2);
  CHECK(shared.json["other_process_pids"] == nlohmann::json::array({77, 78}));
  REQUIRE(shared.warnings.size() == 1);
  CHECK(shared.warnings[0].find("2 other processes on the GPU during the run (pid 77, 78)") != std::string::npos);
}

TEST_CASE("the process census: another PID namespace and a list NVML cannot see") {
  // In a container NVML lists host pids: ours is among them under another number.
  const ProcessCensus foreign = census_other_processes({9001, 9002}, kOwn);
  CHECK(foreign.known);
  CHECK(foreign.others == 1);
  CHECK(foreign.pids.empty());
  CHECK(foreign.note.find("another PID namespace") != std::string::npos);
  // Only ours (under another pid): nobody else.
  CHECK(census_other_processes({9001}, kOwn).others == 0);
  // Nothing listed although this process holds a context: NVML cannot see, so unknown.
  const ProcessCensus blind = census_other_processes({}, kOwn);
  CHECK_FALSE(blind.known);
  CHECK(blind.note.find("cannot see") != std::string::npos);
  const RunConditions r = assess_conditions(at(1e6, std::vector<std::uint32_t>{}), at(1e6, std::vector<std::uint32_t>{}),
                                            {}, kOwn);
  CHECK(r.json["other_processes"] == "unknown");
  CHECK(r.warnings.empty());
  // A pid listed twice (MIG instances) is one process.
  CHECK(census_other_processes({kOwn, 5, 5}, kOwn).others == 1);
}

TEST_CASE("a device without a clock or processes to read (a simulated one): not applicable") {
  GpuSnapshot sim;
  sim.applicable = false;
  sim.not_applicable_why = "device sim:h100-sxm has no SM clock or processes to read";
  const RunConditions r = assess_conditions(sim, sim, std::vector<double>{1e6, 2e6}, kOwn);
  CHECK(r.json["applicable"] == false);
  CHECK(r.json["sm_clock_moved"] == "not applicable");
  CHECK(r.json["other_processes"] == "not applicable");
  CHECK(r.json["why"] == sim.not_applicable_why);
  CHECK(r.warnings.empty());
}
