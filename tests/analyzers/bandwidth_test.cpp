#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "support/analysis.hpp"

using namespace dissect;

namespace {
// A throughput model: each SM moves min(peak, 2 B/cycle per load in flight) bytes per cycle.
// `blocks_per_sm` blocks of each SM run one after another; the kernel time adds
// `launch_cycles` (launch overhead) to the SMs' work.
TraceSet sweep(double peak_per_sm, std::uint32_t sms, double clock_khz, std::uint32_t blocks_per_sm = 1,
               double launch_cycles = 0, const char* element = "u32") {
  TraceSet t;
  for (std::uint64_t ilp : {1, 2, 4, 8})
    for (std::uint64_t threads : {64, 128, 256, 512, 1024}) {
      PointTrace p;
      p.point_id = t.points.size();
      p.params = {{"kernel", "throughput"},
                  {"ilp", std::to_string(ilp)},
                  {"threads", std::to_string(threads)},
                  {"blocks", std::to_string(sms * blocks_per_sm)},
                  {"element", element},
                  {"size_bytes", "1073741824"},
                  {"stride_bytes", "4"}};
      const double warps = static_cast<double>(threads) / 32;
      const double rate = std::min(peak_per_sm, 2.0 * static_cast<double>(ilp) * warps);  // B/cycle per SM
      const double bytes_per_warp = 32.0 * 4 * 64 * static_cast<double>(ilp);
      const double cycles = bytes_per_warp * warps / rate;
      for (std::uint32_t b = 0; b < sms * blocks_per_sm; ++b)
        for (std::uint32_t w = 0; w < static_cast<std::uint32_t>(warps); ++w) {
          Sample s;
          s.thread = b * 1024 + w * 32;
          s.sm_id = static_cast<std::int32_t>(b % sms);
          s.offset_bytes = static_cast<std::uint64_t>(bytes_per_warp);
          s.latency = cycles;
          p.samples.push_back(s);
        }
      p.kernel_ms = (cycles * blocks_per_sm + launch_cycles) / clock_khz;
      p.sm_clock_khz = clock_khz;
      t.points.push_back(p);
    }
  return t;
}
}  // namespace

TEST_CASE("bandwidth: peak bytes per cycle, GB/s, and the ILP x warps that reach it") {
  const Finding f = test::analyze(sweep(64, 8, 1e6), "bandwidth");
  INFO(f.to_json().dump());
  CHECK(f.unit == "GB/s");
  // 8 SMs x 64 B/cycle at 1 GHz = 512 GB/s.
  CHECK(f.value.get<double>() == doctest::Approx(512).epsilon(0.01));
  CHECK(f.details["peak_bytes_per_cycle"].get<double>() == doctest::Approx(512).epsilon(0.01));
  CHECK(f.details["peak_bytes_per_cycle_per_sm"].get<double>() == doctest::Approx(64).epsilon(0.01));
  // 2 B/cycle per load in flight: 32 loads in flight reach 64 B/cycle.
  CHECK(f.details["reaches_peak"]["ilp_x_warps"] == 32);
}

TEST_CASE("bandwidth: without a kernel time, per-SM bytes per cycle from the warps") {
  TraceSet t = sweep(64, 4, 1e6);
  for (auto& p : t.points) p.kernel_ms = std::nan(""), p.sm_clock_khz = std::nan("");
  const Finding f = test::analyze(t, "bandwidth");
  CHECK(f.unit == "B/cycle");
  CHECK(f.value.get<double>() == doctest::Approx(256).epsilon(0.01));
}

TEST_CASE("bandwidth: one block per SM: per-SM bytes per cycle from the SM's clocks, summed over the SMs") {
  // 4 SMs at 1 GHz, 100 B/cycle each; the kernel time carries 20000 cycles of launch
  // overhead, which the in-kernel clocks do not see.
  const Finding f = test::analyze(sweep(100, 4, 1e6, 1, 20000), "bandwidth");
  INFO(f.to_json().dump());
  CHECK(f.details["method"] == "sm_clocks");
  CHECK(f.details["sms"] == 4);
  CHECK(f.details["blocks"] == 4);
  CHECK(f.details["peak_bytes_per_cycle_per_sm"].get<double>() == doctest::Approx(100).epsilon(0.001));
  CHECK(f.value.get<double>() == doctest::Approx(400).epsilon(0.001));  // 4 SMs x 100 B/cycle x 1 GHz
  CHECK(f.details["per_sm_bytes_per_cycle"]["min"].get<double>() == doctest::Approx(100).epsilon(0.001));
  // The kernel time (launch included) gives less: kept beside it, not used.
  CHECK(f.details["kernel_time_gbps"].get<double>() < 0.9 * f.value.get<double>());
  CHECK(f.summary.find("over 4 SMs") != std::string::npos);
}

TEST_CASE("bandwidth: a figure of one SM says so and is never the device's") {
  const Finding f = test::analyze(sweep(128, 1, 1.98e6), "bandwidth");
  INFO(f.to_json().dump());
  CHECK(f.details["sms"] == 1);
  CHECK(f.details["peak_bytes_per_cycle_per_sm"].get<double>() == doctest::Approx(128).epsilon(0.001));
  CHECK(f.value.get<double>() == doctest::Approx(128 * 1.98).epsilon(0.001));  // one SM's GB/s
  CHECK(f.summary.find("on 1 SM only") != std::string::npos);
}

TEST_CASE("bandwidth: several blocks per SM: rates from the kernel time, and a note that says why") {
  const Finding f = test::analyze(sweep(64, 8, 1e6, 4), "bandwidth");
  INFO(f.to_json().dump());
  CHECK(f.details["method"] == "kernel_time");
  CHECK(f.details["sms"] == 8);
  CHECK(f.details["blocks"] == 32);
  CHECK(f.value.get<double>() == doctest::Approx(512).epsilon(0.01));
  CHECK(f.details["peak_bytes_per_cycle_per_sm"].get<double>() == doctest::Approx(64).epsilon(0.01));
  CHECK(f.details["note"].get<std::string>().find("32 blocks ran on 8 SMs") != std::string::npos);
}

TEST_CASE("bandwidth: repeats are rates per launch, not bytes of all launches over one launch's cycles") {
  TraceSet t = sweep(64, 2, 1e6);
  for (auto& p : t.points) {
    const auto n = p.samples.size();
    for (std::size_t i = 0; i < n; ++i) {
      Sample s = p.samples[i];
      s.seq = 1;
      p.samples.push_back(s);
    }
    p.kernel_ms *= 2;
  }
  const Finding f = test::analyze(t, "bandwidth");
  CHECK(f.details["peak_bytes_per_cycle_per_sm"].get<double>() == doctest::Approx(64).epsilon(0.001));
}

TEST_CASE("bandwidth: the best point of each load width when the sweep has several") {
  TraceSet t = sweep(64, 2, 1e6, 1, 0, "u32");
  const TraceSet wide = sweep(120, 2, 1e6, 1, 0, "u64");
  for (auto p : wide.points) {
    p.point_id = t.points.size();
    t.points.push_back(p);
  }
  const Finding f = test::analyze(t, "bandwidth");
  INFO(f.to_json().dump());
  CHECK(f.details["peak_point"]["element"] == "u64");
  CHECK(f.details["by_element"]["u32"]["bytes_per_cycle_per_sm"].get<double>() == doctest::Approx(64).epsilon(0.001));
  CHECK(f.details["by_element"]["u64"]["bytes_per_cycle_per_sm"].get<double>() == doctest::Approx(120).epsilon(0.001));
}

TEST_CASE("bandwidth: a peak at the edge of the sweep alone is flagged") {
  // Still rising at the largest ILP x warps: only the last point reaches the peak.
  const Finding f = test::analyze(sweep(1e9, 2, 1e6), "bandwidth");
  CHECK(f.details["note"].get<std::string>().find("plateau may lie beyond the sweep") != std::string::npos);
  CHECK(f.confidence < 0.8);
}

TEST_CASE("bandwidth: stores are read as loads are, and say so") {
  TraceSet t = sweep(40, 4, 1e6);
  for (auto& p : t.points) p.params["access"] = "store";
  const Finding f = test::analyze(t, "bandwidth");
  INFO(f.to_json().dump());
  CHECK(f.details["access"] == "store");
  CHECK(f.value.get<double>() == doctest::Approx(160).epsilon(0.001));  // 4 SMs x 40 B/cycle x 1 GHz
  CHECK(f.summary.find("of stores over 4 SMs") != std::string::npos);
  CHECK(f.evidence["points"][0]["access"] == "store");
  CHECK_FALSE(f.details.contains("by_access"));
  // A trace without the parameter (an older bundle, an imported trace) is loads.
  CHECK(test::analyze(sweep(40, 4, 1e6), "bandwidth").details["access"] == "load");
}

TEST_CASE("bandwidth: a sweep of loads and stores reports the peak of each") {
  TraceSet t = sweep(64, 2, 1e6);
  for (auto& p : t.points) p.params["access"] = "load";
  TraceSet st = sweep(24, 2, 1e6);
  for (auto p : st.points) {
    p.params["access"] = "store";
    p.point_id = t.points.size();
    t.points.push_back(p);
  }
  const Finding f = test::analyze(t, "bandwidth");
  INFO(f.to_json().dump());
  CHECK(f.details["access"] == "load");
  CHECK(f.details["by_access"]["load"]["bytes_per_cycle_per_sm"].get<double>() == doctest::Approx(64).epsilon(0.001));
  CHECK(f.details["by_access"]["store"]["bytes_per_cycle_per_sm"].get<double>() == doctest::Approx(24).epsilon(0.001));
}

TEST_CASE("bandwidth: with several blocks per SM, the ILP x warps that reach the peak count every block of an SM") {
  // 4 blocks per SM, one after another: 2 B/cycle per load in flight of one block, so a
  // block's 32 loads in flight reach the peak; an SM ran 4 such blocks.
  const Finding f = test::analyze(sweep(64, 8, 1e6, 4), "bandwidth");
  INFO(f.to_json().dump());
  const auto& reach = f.details["reaches_peak"];
  CHECK(reach["blocks_per_sm"] == 4);
  CHECK(reach["warps_per_sm"] == 4 * reach["warps_per_block"].get<std::uint64_t>());
  CHECK(reach["ilp"].get<std::uint64_t>() * reach["warps_per_block"].get<std::uint64_t>() == 32);
  CHECK(reach["ilp_x_warps"] == 4 * 32);
  CHECK(f.details["peak_point"]["blocks_per_sm"] == 4);
  CHECK(f.summary.find("warps per SM (4 blocks of") != std::string::npos);
}
