#pragma once
// The TLB rows of a topology.json against a simulated GPU's profile: every level
// with its entries, the reach of one entry (page x pages per entry), coverage,
// its own miss penalty, its scope (per SM or shared), its sets (fully associative is one set; a stage
// sweep that ends inside the staircase gives a lower bound and the ways) and whether it
// replaces in LRU order, and the page size (measured over scattered frames, where no
// entry coalesces pages). A level whose set index hashes the address: bounds that hold
// the truth.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "engine/device/sim/sim_profile.hpp"

namespace dissect::test {

// A level whose scope the topology cannot measure (two SMs' chases of 3E/4 slots each,
// and one SM's of 3E/2, exceed the scope step's slot cap (at most 4 x 8192), the aliased
// footprint of 1 TiB, or a tenth short of the next level's coverage) must say so rather
// than claim: its scope "not measured".
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
    // A level that replaces in LRU order runs out at one slot past its entries; one that
    // does not misses a few accesses at a time past them, and is bracketed: between the
    // last point without a miss and its first misses, the truth inside.
    const bool lru = want.geometry.replacement.kind == sim::Replacement::Kind::lru;
    // A level whose set index hashes the address (one bit taken as it is, the others XORs
    // of higher ones: specs/devices/tlb-setbit.yaml) fills its sets unevenly at some
    // strides and evenly at others: its first misses come a few at a time, like those of a
    // level that is not LRU; footprints then bracket its coverage, bound its entries from
    // below and its reach from above (tlb_reach), and no set count or policy is claimed.
    const bool hashed = want.geometry.index.kind == sim::IndexFunction::Kind::xor_hash && want.geometry.sets() > 1;
    if (!hashed) CHECK((got.value("replacement", "") == "not LRU") == !lru);
    else if (lru) CHECK(got.value("replacement", "") != "not LRU");
    if (lru && !hashed) {
      CHECK(got["coverage_bytes"] == want.geometry.capacity_bytes());
    } else if (got["coverage_bytes"].is_number()) {
      CHECK(got["coverage_bytes"] == want.geometry.capacity_bytes());
    } else {
      REQUIRE(got["coverage_range_bytes"].is_array());
      CHECK(got["coverage_range_bytes"][0].get<std::uint64_t>() <= want.geometry.capacity_bytes());
      CHECK(got["coverage_range_bytes"][1].get<std::uint64_t>() >= want.geometry.capacity_bytes());
    }
    CHECK(got["miss_penalty_cycles"].get<double>() == doctest::Approx(want.miss_penalty).epsilon(0.1));
    // Its scope, from several SMs chasing at once (the tlb_scope step), where they fit.
    if (scope_beyond_limits(got)) {
      const std::uint64_t e = want.geometry.lines(), two_sms = 2 * (3 * e / 4) * want.geometry.line_bytes;
      const bool past_next = i + 1 < truth.tlb.size() && two_sms > truth.tlb[i + 1].geometry.capacity_bytes() / 10 * 9;
      CHECK((3 * e / 2 > 4 * 8192 || two_sms > (1ull << 40) || past_next));
    } else {
      CHECK(got["scope"] == (want.per_sm ? "sm" : "shared"));
    }
    if (hashed && !got["entries"].is_number()) {
      REQUIRE(got.contains("entries_at_least"));
      CHECK(got["entries_at_least"].get<std::uint64_t>() <= want.geometry.lines());
      REQUIRE(got.contains("reach_at_most_bytes"));
      CHECK(got["reach_at_most_bytes"].get<std::uint64_t>() >= want.geometry.line_bytes);
      CHECK_FALSE(got["sets"].is_number());
      CHECK(got["associativity"] != "full");
      if (got.contains("reach_bytes")) CHECK(got["reach_bytes"] == want.geometry.line_bytes);
      if (got.contains("entries_range") && got["entries_range"].is_array()) {
        CHECK(got["entries_range"][0].get<std::uint64_t>() <= want.geometry.lines());
        CHECK(got["entries_range"][1].get<std::uint64_t>() >= want.geometry.lines());
      }
      continue;
    }
    if (lru || got["entries"].is_number()) {
      CHECK(got["entries"] == want.geometry.lines());
    } else {
      REQUIRE(got["entries_range"].is_array());
      CHECK(got["entries_range"][0].get<std::uint64_t>() <= want.geometry.lines());
      CHECK(got["entries_range"][1].get<std::uint64_t>() >= want.geometry.lines());
    }
    CHECK(got["reach_bytes"] == want.geometry.line_bytes);
    if (want.geometry.sets() == 1) {
      CHECK(got["associativity"] == "full");
    } else {
      CHECK(got["associativity"] == "set-associative");
      if (got["sets"].is_number() && !lru) {
        CHECK(got["sets"] == want.geometry.sets());  // the ways bracketed as the coverage
      } else if (got["sets"].is_number()) {
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
