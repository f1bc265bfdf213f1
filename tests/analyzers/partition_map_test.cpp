// partition_map on traces of SMs that each read the same lines, a line answering sooner
// from the SMs near its partition: built here with a partition function given per test
// (a XOR of address bits, or none), so that the groups, the granularity and the function
// are known.
#include <doctest/doctest.h>

#include <functional>
#include <random>

#include "support/analysis.hpp"

using namespace dissect;

namespace {

constexpr std::uint64_t kLine = 128;

// `sms` SMs over `lines` lines; SM s is near partition (s < sms / 2 ? 0 : 1); a line in
// partition q answers in 280 cycles from SMs near q, else 310, with noise.
TraceSet map_trace(std::uint32_t sms, std::uint64_t lines, const std::function<int(std::uint64_t)>& partition,
                   double far_extra = 30, std::int32_t odd_sm = -1) {
  TraceSet t;
  PointTrace p;
  p.params = {{"kernel", "pchase"},
              {"size_bytes", std::to_string(lines * kLine)},
              {"stride_bytes", std::to_string(kLine)}};
  std::mt19937 rng(3);
  std::normal_distribution<double> noise(0, 3);
  for (std::uint32_t s = 0; s < sms; ++s)
    for (std::uint64_t i = 0; i < lines; ++i) {
      const std::uint64_t off = i * kLine;
      int near_part = s < sms / 2 ? 0 : 1;
      if (static_cast<std::int32_t>(s) == odd_sm) near_part = static_cast<int>((i / 2) % 2);  // like neither group
      Sample x;
      x.thread = s;
      x.seq = i;
      x.offset_bytes = off;
      x.sm_id = static_cast<std::int32_t>(s);
      x.latency = 280 + (partition(off) == near_part ? 0 : far_extra) + noise(rng);
      p.samples.push_back(x);
    }
  t.points.push_back(std::move(p));
  return t;
}

}  // namespace

TEST_CASE("partition_map: two SM groups and a XOR of address bits") {
  const auto part = [](std::uint64_t a) { return static_cast<int>(((a >> 9) ^ (a >> 14)) & 1); };
  const Finding f = test::analyze(map_trace(16, 4096, part), "partition_map");
  INFO(f.to_json().dump().substr(0, 2000));
  CHECK(f.value == 2);
  CHECK(f.details["sm_groups"][0] == nlohmann::json::array({0, 1, 2, 3, 4, 5, 6, 7}));
  CHECK(f.details["granularity_bytes"] == 512);
  CHECK(f.details["function"] == "xor");
  CHECK(f.details["xor_bits"] == nlohmann::json::array({9, 14}));
  CHECK(f.details["near_far_cycles"].get<double>() == doctest::Approx(30).epsilon(0.1));
}

TEST_CASE("partition_map: a split that no XOR of the bits gives is said to be none") {
  // Blocks of 256 B spread over three slices, two of them in partition 0: not linear.
  const auto part = [](std::uint64_t a) { return (a >> 8) % 3 == 0 ? 1 : 0; };
  const Finding f = test::analyze(map_trace(8, 4096, part), "partition_map");
  INFO(f.to_json().dump().substr(0, 2000));
  CHECK(f.value == 2);
  CHECK(f.details["granularity_bytes"] == 256);
  CHECK(f.details["function"] == "not a xor of these bits");
  CHECK(f.details["best_xor_agreement"].get<double>() < 0.9);
  CHECK(f.summary.find("no XOR of address bits") != std::string::npos);
}

TEST_CASE("partition_map: undetermined where SMs see no near and far lines, or split unlike both groups") {
  const auto part = [](std::uint64_t a) { return static_cast<int>((a >> 7) & 1); };
  const Finding flat = test::analyze(map_trace(8, 1024, part, 0), "partition_map");
  CHECK(flat.value.is_null());
  CHECK(test::reason(flat).find("no near and far lines") != std::string::npos);
  const Finding odd = test::analyze(map_trace(8, 1024, part, 30, 5), "partition_map");
  CHECK(odd.value.is_null());
  CHECK(test::reason(odd).find("like neither group") != std::string::npos);
}

TEST_CASE("partition_map: a XOR that a few lines break is that XOR, with the lines it misses") {
  // Lines 0, 509, 1018, ... go the other way (eight of 4096): a vote that mislabels a few
  // lines must not turn a XOR into "no XOR".
  const auto part = [](std::uint64_t a) {
    const int x = static_cast<int>(((a >> 9) ^ (a >> 14)) & 1);
    return (a / kLine) % 509 == 0 ? 1 - x : x;
  };
  const Finding f = test::analyze(map_trace(16, 4096, part), "partition_map");
  INFO(f.to_json().dump().substr(0, 2000));
  CHECK(f.details["function"] == "xor");
  CHECK(f.details["xor_bits"] == nlohmann::json::array({9, 14}));
  CHECK(f.details["lines_off_the_xor"] == 9);
  CHECK(f.summary.find("but for 9 lines") != std::string::npos);
}
