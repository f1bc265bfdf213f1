// The typed readers of analyzer findings: each knows its analyzer's name and
// detail keys, and says "absent" for a missing finding or a null detail.
#include <doctest/doctest.h>

#include "engine/topology/topology_findings.hpp"

using namespace dissect;
using json = nlohmann::json;

namespace {

Finding finding(const std::string& analyzer, json value, json details = json::object(), double confidence = 0.9) {
  Finding f;
  f.analyzer = analyzer;
  f.value = std::move(value);
  f.details = std::move(details);
  f.confidence = confidence;
  f.summary = analyzer + " summary";
  return f;
}

}  // namespace

TEST_CASE("topology findings: a missing analyzer or value reads as absent") {
  const findings::Findings none;
  CHECK_FALSE(findings::latency(none));
  CHECK_FALSE(findings::cache_size(none));
  CHECK_FALSE(findings::tlb(none));
  const findings::Findings nulls{finding("summary", nullptr), finding("line_size", nullptr),
                                 finding("replacement", nullptr), finding("bank_conflicts", nullptr)};
  CHECK_FALSE(findings::latency(nulls));
  CHECK_FALSE(findings::line_size(nulls));
  CHECK_FALSE(findings::replacement(nulls));
  CHECK_FALSE(findings::banks(nulls));
}

TEST_CASE("topology findings: latency with the first point's timer overhead") {
  const auto l = findings::latency(
      {finding("summary", 42.5, {{"points", {{{"timer_overhead_cycles", 6.0}}, {{"timer_overhead_cycles", 9.0}}}}})});
  REQUIRE(l);
  CHECK(l->cycles == 42.5);
  CHECK(l->timer_overhead_cycles == 6.0);
  CHECK_FALSE(findings::latency({finding("summary", 42.5)})->timer_overhead_cycles);
}

TEST_CASE("topology findings: cache size, undetermined with its reason and lower bound") {
  const auto known = findings::cache_size(
      {finding("cache_size", 16384, {{"hit_latency_cycles", 30.0}, {"miss_latency_cycles", 90.0}})});
  REQUIRE(known);
  CHECK(known->verdict.determined);
  CHECK(known->size_bytes == 16384u);
  CHECK(known->hit_latency_cycles == 30.0);
  CHECK(known->miss_latency_cycles == 90.0);
  const auto open = findings::cache_size(
      {finding("cache_size", nullptr, {{"reason", "no knee"}, {"lower_bound_bytes", 64512}}, 0.2)});
  REQUIRE(open);
  CHECK_FALSE(open->verdict.determined);
  CHECK(open->verdict.reason == "no knee");
  CHECK(open->verdict.confidence == 0.2);
  CHECK(open->lower_bound_bytes == 64512u);
  CHECK(findings::cache_size({finding("cache_size", nullptr)})->verdict.reason == "cache_size summary");
}

TEST_CASE("topology findings: line, sets, sharing, banks, TLB and bandwidth details") {
  const auto line = findings::line_size({finding("line_size", 128, {{"fetch_bytes", nullptr}})});
  REQUIRE(line);
  CHECK(line->line_bytes == 128u);
  CHECK_FALSE(line->fetch_bytes);
  const auto s = findings::sets({finding("sets", 64,
                                         {{"ways", 4}, {"lines_per_block", 1}, {"bit_defined", nullptr},
                                          {"set_sizes", {4, 4}}})});
  REQUIRE(s);
  CHECK(s->sets == 64u);
  CHECK(s->ways == 4.0);
  CHECK_FALSE(s->bit_defined);
  CHECK(s->set_sizes == std::vector<std::uint64_t>{4, 4});
  CHECK(findings::sharing({finding("sharing", true, json::object(), 0.8)})->shared);
  CHECK(findings::amount({finding("amount", 2)}) == 2u);
  const auto b = findings::banks({finding("bank_conflicts", 32, {{"bank_width_bytes", 4}})});
  REQUIRE(b);
  CHECK(b->banks == 32u);
  CHECK(b->width_bytes == 4u);
  const auto levels = findings::latency_level_medians(
      {finding("latency_levels", 2, {{"levels", {{{"median", 200.0}}, {{"p5", 1.0}}, {{"median", 260.0}}}}})});
  CHECK(levels == std::vector<double>{200.0, 260.0});
  const auto t = findings::tlb({finding("tlb", 1, {{"levels", {{{"entries", 16}}}}})});
  REQUIRE(t);
  REQUIRE(t->levels.size() == 1);
  CHECK(t->levels[0]["entries"] == 16);
  const auto bw = findings::bandwidth({finding(
      "bandwidth", 1000.0, {{"sms", 4}, {"peak_bytes_per_cycle_per_sm", 64.0}, {"peak_gbps", nullptr}, {"method", "sm_clocks"}})});
  REQUIRE(bw);
  CHECK(bw->sms == 4u);
  CHECK(bw->bytes_per_cycle_per_sm == 64.0);
  CHECK_FALSE(bw->gbps);
  CHECK(bw->method == "sm_clocks");
}

TEST_CASE("topology findings: replacement is deterministic only where repeated launches missed alike") {
  const auto same = findings::replacement({finding("replacement", "non-lru", {{"launches_identical", true}})});
  REQUIRE(same);
  CHECK(same->policy == "non-lru");
  CHECK(same->deterministic == true);
  // Launches that differ may differ by noise alone: nothing is said.
  CHECK_FALSE(findings::replacement({finding("replacement", "lru", {{"launches_identical", false}})})->deterministic);
  CHECK_FALSE(findings::replacement({finding("replacement", "lru")})->deterministic);
}
