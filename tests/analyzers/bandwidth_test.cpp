#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "support/analysis.hpp"

using namespace dissect;

namespace {
// A throughput model: each SM moves min(peak, 2 B/cycle per load in flight) bytes per cycle.
TraceSet sweep(double peak_per_sm, std::uint32_t sms, double clock_khz) {
  TraceSet t;
  for (std::uint64_t ilp : {1, 2, 4, 8})
    for (std::uint64_t threads : {64, 128, 256, 512, 1024}) {
      PointTrace p;
      p.point_id = t.points.size();
      p.params = {{"kernel", "throughput"}, {"ilp", std::to_string(ilp)}, {"threads", std::to_string(threads)},
                  {"blocks", std::to_string(sms)}, {"size_bytes", "1073741824"}, {"stride_bytes", "4"}};
      const double warps = static_cast<double>(threads) / 32;
      const double rate = std::min(peak_per_sm, 2.0 * static_cast<double>(ilp) * warps);  // B/cycle per SM
      const double bytes_per_warp = 32.0 * 4 * 64 * static_cast<double>(ilp);
      const double cycles = bytes_per_warp * warps / rate;
      for (std::uint32_t sm = 0; sm < sms; ++sm)
        for (std::uint32_t w = 0; w < static_cast<std::uint32_t>(warps); ++w) {
          Sample s;
          s.thread = sm * 1024 + w * 32;
          s.sm_id = static_cast<std::int32_t>(sm);
          s.offset_bytes = static_cast<std::uint64_t>(bytes_per_warp);
          s.latency = cycles;
          p.samples.push_back(s);
        }
      p.kernel_ms = cycles / clock_khz;
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
