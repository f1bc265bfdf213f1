#pragma once
// The TLB rows of a topology.json against a simulated GPU's profile: every level
// with its entries, the reach of one entry (page x pages per entry), coverage,
// its own miss penalty, its scope (per SM or shared) and its sets (fully associative is one set; a stage
// sweep that ends inside the staircase gives a lower bound and the ways), and
// the page size (measured over scattered frames, where no entry coalesces pages).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "engine/device/sim/sim_profile.hpp"

namespace dissect::test {

// A level past what the topology's steps can tell (its entries do not fit two SMs'
// chases over contiguous frames within the memory: no scope; swept only at its span,
// above the finest reach: one set of span-sized entries or S sets of span / S look
// alike) must say so rather than claim: its scope "not measured", its associativity
// undetermined with the entries it would have as one set. Coverage and penalty hold.
inline bool scope_beyond_limits(const nlohmann::json& got) {
  return !got.contains("scope") && got.value("scope_summary", "").starts_with("not measured");
}

inline void check_tlb_truth(const nlohmann::json& r, const sim::Profile& truth) {
  REQUIRE(r.contains("tlb"));
  const nlohmann::json& t = r["tlb"];
  INFO(t.dump().substr(0, 4000));
  REQUIRE(t.contains("levels"));
  REQUIRE(t["levels"].size() == truth.tlb.size());
  for (std::size_t i = 0; i < truth.tlb.size(); ++i) {
    CAPTURE(i);
    const sim::TlbLevelSpec& want = truth.tlb[i];
    const nlohmann::json& got = t["levels"][i];
    CHECK(got["coverage_bytes"] == want.geometry.capacity_bytes());
    CHECK(got["miss_penalty_cycles"].get<double>() == doctest::Approx(want.miss_penalty).epsilon(0.1));
    // Its scope, from several SMs chasing at once (the tlb_scope step), where they fit.
    if (scope_beyond_limits(got)) {
      const std::uint64_t two_sms = 2 * want.geometry.capacity_bytes();
      CHECK(two_sms > std::min<std::uint64_t>(truth.memory_bytes > 0 ? truth.memory_bytes / 4 * 3 : two_sms,
                                              (1ull << 32) * 8));
    } else {
      CHECK(got["scope"] == (want.per_sm ? "sm" : "shared"));
    }
    if (got["associativity"] == "undetermined" && got.contains("entries_if_fully_associative")) {
      // Swept at its span only: the entries it would have as one set, and no claim.
      CHECK(got["entries"].is_null());
      CHECK(got["entries_if_fully_associative"] ==
            want.geometry.capacity_bytes() / (got["stage_stride_bytes"].get<std::uint64_t>() - 32));
      CHECK((!got.contains("sets") || got["sets"].is_null()));
      continue;
    }
    CHECK(got["entries"] == want.geometry.lines());
    CHECK(got["reach_bytes"] == want.geometry.line_bytes);
    if (want.geometry.sets() == 1) {
      CHECK(got["associativity"] == "full");
    } else {
      CHECK(got["associativity"] == "set-associative");
      if (got["sets"].is_number()) {
        CHECK(got["sets"] == want.geometry.sets());
        auto sizes = got["set_sizes"].get<std::vector<std::uint32_t>>();
        auto ways = want.geometry.set_ways;
        std::sort(sizes.begin(), sizes.end());
        std::sort(ways.begin(), ways.end());
        CHECK(sizes == ways);
      } else {
        REQUIRE(got.contains("sets_at_least"));
        CHECK(got["sets_at_least"].get<std::uint32_t>() <= want.geometry.sets());
        CHECK(got["ways"] == want.geometry.uniform_ways());
      }
    }
  }
  // The page step's array lies in scattered frames: nothing coalesces, the page shows.
  CHECK(t["page_bytes"] == truth.tlb.front().page_bytes);
  for (std::size_t i = 0; i < truth.tlb.size(); ++i)
    if (t["levels"][i]["entries"].is_number())
      CHECK(t["levels"][i]["pages_per_entry"] == truth.tlb[i].pages_per_entry);
}

}  // namespace dissect::test
