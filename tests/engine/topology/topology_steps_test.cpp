// The topology plan: every step names a spec that exists, ids are unique, and
// each step sizes itself from the typed result of the earlier steps (or says
// why it cannot run).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <variant>

#include "engine/core/paths.hpp"
#include "engine/topology/tlb_sweeps.hpp"
#include "engine/topology/topology_plan.hpp"

using namespace dissect;

namespace {

const TopologyStep& step(const std::vector<TopologyStep>& plan, const std::string& id) {
  for (const auto& s : plan)
    if (s.id == id) return s;
  FAIL("no step " << id);
  throw std::logic_error("unreachable");
}

std::map<std::string, std::string> overrides(const StepSizing& s) {
  REQUIRE(std::holds_alternative<std::vector<SpecOverride>>(s));
  std::map<std::string, std::string> m;
  for (const auto& o : std::get<std::vector<SpecOverride>>(s)) m[o.key] = o.value;
  return m;
}

}  // namespace

TEST_CASE("topology plan: unique ids, each with its spec and an absorb") {
  const auto plan = topology_plan();
  std::set<std::string> ids;
  for (const auto& s : plan) {
    CAPTURE(s.id);
    CHECK(ids.insert(s.id).second);
    CHECK(std::filesystem::is_regular_file(std::filesystem::path(specs_dir()) / "topology" / s.spec_file()));
    CHECK(static_cast<bool>(s.absorb));
    CHECK(static_cast<bool>(s.sizes_from));
  }
  CHECK_FALSE(step(plan, "bandwidth_global").in_fast_mode);
  CHECK(step(plan, "l1_size").in_fast_mode);
  CHECK(step(plan, "l1_sets").cache == "l1");
}

TEST_CASE("topology plan: steps that need a size are skipped without one, sized from it with one") {
  const auto plan = topology_plan();
  TopologyResult r;
  const StepSizing skipped = step(plan, "l1_line").sizes_from(r);
  REQUIRE(std::holds_alternative<SkipStep>(skipped));
  CHECK(std::get<SkipStep>(skipped).reason == "the size was not measured");
  CHECK(std::holds_alternative<SkipStep>(step(plan, "sharing_l1_texture").sizes_from(r)));

  r.cache("l1").size_bytes = 16384;
  r.cache("l1").fetch_bytes = 32;
  r.cache("l1").line_bytes = 128;
  auto size = overrides(step(plan, "l1_size").sizes_from(r));
  CHECK(size["array.stride"] == "32 B");
  CHECK(size.count("sweep.array.size") == 0);  // the search's bounds and resolution are the spec's
  auto line = overrides(step(plan, "l1_line").sizes_from(r));
  CHECK(line["array.size"] == "16388 B");
  CHECK(line["iterations"] == "16388");
  auto sets = overrides(step(plan, "l1_sets").sizes_from(r));
  CHECK(sets["array.stride"] == "128 B");  // the measured line, not the fetch granularity
  CHECK(sets["sweep.array.size"] == "{from: 16384 B, to: 24576 B, step: 128 B}");
  auto blocks = overrides(step(plan, "l1_line_blocks").sizes_from(r));
  CHECK(blocks["array.size"] == "20480 B");
  CHECK(blocks["sweep.array.page"] == "[32 B, 64 B, 128 B, 256 B, 512 B, 1024 B]");
  r.cache("texture").size_bytes = 12288;
  CHECK(overrides(step(plan, "sharing_l1_texture").sizes_from(r))["arrays.a.size"] == "9728 B");
}

TEST_CASE("topology plan: device facts size the bandwidth steps") {
  const auto plan = topology_plan();
  TopologyResult r;
  CHECK(overrides(step(plan, "bandwidth_global").sizes_from(r)).empty());  // SM count unknown
  CHECK(overrides(step(plan, "bandwidth_global_write").sizes_from(r)).empty());
  r.device.sm_count = 4;
  // DRAM: 2, 4 and 8 blocks per SM, the blocks dimension of the search.
  for (const char* id : {"bandwidth_global", "bandwidth_global_write"}) {
    CAPTURE(id);
    const auto o = overrides(step(plan, id).sizes_from(r));
    CHECK(o.at("sweep.layout.blocks") == "[8, 16, 32]");
    CHECK(o.count("array.size") == 0);  // no L2 known: the spec's 1 GiB
  }
  for (const char* id : {"bandwidth_shared", "bandwidth_shared_write", "bandwidth_l1", "bandwidth_l2", "bandwidth_l2_write",
                         "bandwidth_l1_write", "bandwidth_l1_write_control"})
    CHECK(overrides(step(plan, id).sizes_from(r))["layout.blocks"] == "4");
  // L2 steps: half the one-SM L2, in MiB.
  r.cache("l2").size_bytes = 24ull << 20;
  for (const char* id : {"bandwidth_l2", "bandwidth_l2_write"})
    CHECK(overrides(step(plan, id).sizes_from(r))["array.size"] == std::to_string(12ull << 20) + " B");
  // DRAM: at least 16 times the L2 (the driver's figure first), a power of two, where that exceeds 1 GiB.
  r.driver.l2_bytes = 50ull << 20;
  CHECK(overrides(step(plan, "bandwidth_global").sizes_from(r)).count("array.size") == 0);  // 800 MiB
  r.driver.l2_bytes = 126ull << 20;  // 16 x: 2016 MiB
  CHECK(overrides(step(plan, "bandwidth_global").sizes_from(r))["array.size"] == std::to_string(2ull << 30) + " B");
  r.device.memory_bytes = 6ull << 30;  // at most a quarter of the device memory
  CHECK(overrides(step(plan, "bandwidth_global_write").sizes_from(r))["array.size"] ==
        std::to_string(3ull << 29) + " B");
  r.device.memory_bytes = 8ull << 30;
  r.driver.l2_bytes.reset();  // the one-SM figure counts twice
  r.cache("l2").size_bytes = 40ull << 20;
  CHECK(overrides(step(plan, "bandwidth_global").sizes_from(r))["array.size"] == std::to_string(2ull << 30) + " B");
}

TEST_CASE("topology plan: bandwidth of every level, read and write, after the steps over ordinary frames and not in --fast") {
  const auto plan = topology_plan();
  std::vector<std::string> ids;
  for (const auto& s : plan) ids.push_back(s.id);
  const std::vector<std::string> bw{"bandwidth_shared",       "bandwidth_global",   "bandwidth_l1",
                                    "bandwidth_l2",           "bandwidth_shared_write", "bandwidth_l2_write",
                                    "bandwidth_l1_write",     "bandwidth_l1_write_control",
                                    "bandwidth_global_write"};
  // The bandwidth steps follow every step whose arrays lie in ordinary frames (their
  // buffers cannot move those arrays), in this order (reads before writes); between and
  // after them come only TLB steps over aliased frames of their own, which wait on the
  // analyses the bandwidth steps are measured beside.
  const auto index_of = [&ids](const std::string& id) {
    return static_cast<std::size_t>(std::find(ids.begin(), ids.end(), id) - ids.begin());
  };
  for (std::size_t i = 1; i < bw.size(); ++i) CHECK(index_of(bw[i - 1]) < index_of(bw[i]));
  REQUIRE(index_of(bw.back()) < ids.size());
  std::vector<std::string> among;
  for (std::size_t i = index_of(bw.front()); i < ids.size(); ++i)
    if (std::find(bw.begin(), bw.end(), ids[i]) == bw.end()) among.push_back(ids[i]);
  CHECK(among == std::vector<std::string>{"tlb_sets", "tlb_spread", "tlb_reach", "tlb_scope"});
  for (const auto& id : among) {
    const Spec spec = load_spec((std::filesystem::path(specs_dir()) / "topology" / (id + ".yaml")).string());
    CHECK(spec.base.array.frames == Frames::aliased);
  }
  for (const auto& id : bw) {
    CAPTURE(id);
    CHECK_FALSE(step(plan, id).in_fast_mode);
    if (id == "bandwidth_l1_write_control") {
      // The L1 write's control: the same stores, array and sweep through the path without the L1.
      const auto at = [](const char* step_id) {
        return load_spec((std::filesystem::path(specs_dir()) / "topology" / (std::string(step_id) + ".yaml")).string());
      };
      const Spec control = at("bandwidth_l1_write_control"), l1 = at("bandwidth_l1_write");
      CHECK(control.base.access == Access::store);
      CHECK(control.base.path == LoadPath::cg);
      CHECK(l1.base.path == LoadPath::ca);
      CHECK(control.base.array.size_bytes == l1.base.array.size_bytes);
      CHECK(control.point_count() == l1.point_count());
      continue;
    }
    // One step per figure of topology.json, and its spec's access says which.
    const BandwidthMeasure* m = bandwidth_measure(id.substr(std::string("bandwidth_").size()));
    REQUIRE(m != nullptr);
    const Spec spec = load_spec((std::filesystem::path(specs_dir()) / "topology" / (id + ".yaml")).string());
    CHECK(spec.base.kernel == KernelKind::throughput);
    CHECK((spec.base.access == Access::store) == (std::string(m->access) == "write"));
    CHECK(to_string(spec.base.target) == std::string(m->level));
  }
  CHECK(bandwidth_measures().size() + 1 == bw.size());  // every figure's step, and the L1 write's control
}

TEST_CASE("topology plan: the DRAM steps' spec array is the size the step raises from") {
  for (const char* id : {"bandwidth_global", "bandwidth_global_write"}) {
    const Spec spec = load_spec((std::filesystem::path(specs_dir()) / "topology" / (std::string(id) + ".yaml")).string());
    CHECK(spec.base.array.size_bytes == (1ull << 30));
    // Every point more than one block per SM: a kernel-time figure, over 0.25 GB.
    for (const auto& p : spec.expand()) {
      const Experiment& e = p.experiment;
      CHECK(e.layout.blocks >= 2 * 132);
      CHECK(e.layout.blocks * e.layout.threads * e.iterations * e.ilp * e.elem_bytes() >= (1ull << 28));
    }
  }
}

namespace {

// (size, stride, iterations) of every point of the topology spec `id` with `sizing`.
std::vector<std::array<std::uint64_t, 3>> tlb_points(const std::string& id, const StepSizing& sizing) {
  LoadOptions o;
  o.overrides = std::get<std::vector<SpecOverride>>(sizing);
  const Spec spec = load_spec((std::filesystem::path(specs_dir()) / "topology" / (id + ".yaml")).string(), o);
  std::vector<std::array<std::uint64_t, 3>> out;
  for (const auto& p : spec.expand())
    out.push_back({p.experiment.array.size_bytes, p.experiment.array.stride_bytes, p.experiment.iterations});
  return out;
}

}  // namespace

TEST_CASE("topology plan: the TLB footprint sweep reaches 1 TiB of aliased frames; its slots follow the L2") {
  const auto plan = topology_plan();
  TopologyResult r;
  // No facts: the spec's own list (1 TiB of aliased frames, 8192 slots).
  const auto deflt = tlb_points("tlb", step(plan, "tlb").sizes_from(r));
  const auto file = tlb_points("tlb", std::vector<SpecOverride>{});
  CHECK(deflt == file);
  std::uint64_t largest = 0, most_slots = 0;
  for (const auto& [n, s, it] : deflt) {
    largest = std::max(largest, n);
    most_slots = std::max(most_slots, n / s);
    CHECK(s % 4096 == tlb_sweeps::kSlotPad);  // a power of two plus the pad
    CHECK(it >= 4 * (n / s));                 // four rounds: per-page medians of three
  }
  CHECK(largest <= tlb_sweeps::kAliasedFootprintCap);
  CHECK(largest > (1ull << 40) / 2);
  CHECK(most_slots == 8192);
  // Aliased frames: the memory does not bound the sweep (an 80 GiB device, a 1 GiB one).
  for (const std::uint64_t memory : {80ull << 30, 1ull << 30}) {
    r.device.memory_bytes = memory;
    largest = 0;
    for (const auto& [n, s, it] : tlb_points("tlb", step(plan, "tlb").sizes_from(r))) largest = std::max(largest, n);
    CHECK(largest > (1ull << 40) / 2);
    CHECK(largest <= tlb_sweeps::kAliasedFootprintCap);
    // The steps over contiguous frames keep to three quarters of it, at most 32 GiB.
    CHECK(tlb_sweeps::limits(r).contiguous_cap == std::min<std::uint64_t>(memory / 4 * 3, (1ull << 32) * 8));
  }
  // A 768 KiB L2: at most 384 slots (2 KiB of L2 each).
  r.cache("l2").size_bytes = 768 * 1024;
  largest = most_slots = 0;
  for (const auto& [n, s, it] : tlb_points("tlb", step(plan, "tlb").sizes_from(r))) {
    largest = std::max(largest, n);
    most_slots = std::max(most_slots, n / s);
  }
  CHECK(most_slots <= 384);
  CHECK(most_slots > 256);
}

TEST_CASE("topology plan: the later TLB steps sweep around the levels 'tlb' found; the page step past the first") {
  const auto plan = topology_plan();
  TopologyResult r;
  CHECK(std::holds_alternative<SkipStep>(step(plan, "tlb_entries").sizes_from(r)));
  CHECK(std::holds_alternative<SkipStep>(step(plan, "tlb_sets").sizes_from(r)));
  auto page = overrides(step(plan, "page_size").sizes_from(r));
  CHECK(page["array.size"] == "1073741824 B");
  CHECK(page["sweep.array.stride"] == "{from: 4096 B, to: 134217728 B, factor: 2}");
  // Levels covering 512 .. 704 MiB and 8 .. 11.3 GiB; the page step saw a 32 MiB
  // granule: the later steps sweep at 32 MiB + 32 B (consecutive slots in
  // consecutive entries).
  r.tlb_row().levels = std::vector<nlohmann::json>{{{"coverage_range_bytes", {536870912, 738197504}}},
                                                   {{"coverage_range_bytes", {8589934592, 12146704384}}}};
  r.tlb_row().page_granule_bytes = 33554432;
  const std::uint64_t stride = 33554432 + tlb_sweeps::kSlotPad;
  const auto narrow = tlb_points("tlb_entries", step(plan, "tlb_entries").sizes_from(r));
  REQUIRE(!narrow.empty());
  CHECK(narrow.size() <= 34);  // the wide one only, about 32 points across it
  for (const auto& [n, s, it] : narrow) {
    CHECK(s == stride);
    CHECK(n / s >= 255);
    CHECK(n / s <= 364);
  }
  const auto stage = tlb_points("tlb_sets", step(plan, "tlb_sets").sizes_from(r));
  std::size_t small = 0;
  for (const auto& [n, s, it] : stage) {
    CHECK(s == stride);
    if (n / s < 100) {
      ++small;
      CHECK(n / s >= 14);  // two below 512 MiB / 32 MiB
      CHECK(n / s <= 31);  // past 704 MiB / 32 MiB, by 8
    }
  }
  CHECK(small == 31 - 14 + 1);  // one slot at a time
  page = overrides(step(plan, "page_size").sizes_from(r));
  CHECK(page["array.size"] == "2147483648 B");  // twice 704 MiB (the first level's coverage), up to a power of two
  CHECK(page["sweep.array.stride"] == "{from: 4096 B, to: 268435456 B, factor: 2}");
}

TEST_CASE("topology plan: the spread and scope steps sweep each level clear of the next level") {
  const auto plan = topology_plan();
  TopologyResult r;
  CHECK(std::holds_alternative<SkipStep>(step(plan, "tlb_spread").sizes_from(r)));
  // 16 entries of 16 MiB (one set), 2048 of 32 MiB (open), 4096 of 64 MiB (open), and a
  // level the stage method read as set-associative (not swept).
  auto level = [](std::uint64_t entries, std::uint64_t span, const char* assoc, double penalty) {
    return nlohmann::json{{"coverage_bytes", entries * span},
                          {"coverage_range_bytes", {entries * span, entries * span}},
                          {"span_bytes", span},
                          {"associativity", assoc},
                          {"miss_penalty_cycles", penalty}};
  };
  r.tlb_row().levels = std::vector<nlohmann::json>{level(16, 16ull << 20, "full", 9), level(2048, 32ull << 20, "undetermined", 95),
                                                   level(4096, 64ull << 20, "undetermined", 700),
                                                   level(8192, 128ull << 20, "set-associative", 900)};
  r.caches["l2"].size_bytes = 64ull << 20;  // the slot cap: 8192; spread and scope: 32768
  const auto ranges = tlb_sweeps::spread_ranges(r);
  REQUIRE(ranges.size() == 3);
  CHECK(ranges[0].stride == (17ull << 20) + tlb_sweeps::kSlotPad);
  CHECK(ranges[1].stride == (34ull << 20) + 2 * tlb_sweeps::kSlotPad);
  CHECK(ranges[2].stride == (68ull << 20) + 3 * tlb_sweeps::kSlotPad);
  CHECK(ranges[0].slots == std::vector<std::uint64_t>{14, 19, 28, 37, 57, 74, 115, 148, 230, 295});
  CHECK(ranges[0].most_sets == 16);
  // The second level: up to 0.9 x 256 GiB (the next level) at 34 MiB: 6939 slots, k = 2.
  CHECK(ranges[1].slots == std::vector<std::uint64_t>{1843, 2356, 3686, 4711});
  CHECK(ranges[1].most_sets == 2);
  // The third: the aliased footprint (1 TiB at 68 MiB: 15420 slots), k = 2.
  CHECK(ranges[2].slots == std::vector<std::uint64_t>{3686, 4711, 7372, 9421});
  CHECK(ranges[2].most_sets == 2);
  for (const auto& g : ranges)
    for (const auto n : g.slots) CHECK(n * g.stride <= tlb_sweeps::kAliasedFootprintCap);
  const auto o = overrides(step(plan, "tlb_spread").sizes_from(r));
  CHECK(o.at("analyzers").find("tlb_spread") != std::string::npos);
  CHECK(o.at("analyzers").find(std::to_string(ranges[1].stride) + ":95") != std::string::npos);
  // The scope step: every SM's 3E/4 slots together a tenth short of the next level's
  // coverage (two SMs of 48 GiB each below 256 GiB, eight not), and of the aliased slots.
  r.device.sm_count = 132;
  const auto scope = tlb_sweeps::scope_ranges(r);
  REQUIRE(scope.size() >= 2);
  CHECK(scope[0].blocks == std::vector<std::uint32_t>{1, 2, 8, 16, 32, 132});
  CHECK(scope[1].hit_slots == 1536);
  CHECK(scope[1].miss_slots == 3072);
  CHECK(scope[1].blocks == std::vector<std::uint32_t>{1, 2});
  CHECK(scope[1].penalty == 95);
  // Accesses per point: at least four passes, more where the penalty is small.
  const auto sweep = tlb_sweeps::scope_sweep({scope[1]});
  CAPTURE(sweep[0].value);
  CHECK(sweep[0].value.find("iterations: [6144, 6144, 12288]") != std::string::npos);
}

TEST_CASE("topology plan: the stage step hands tlb_overflow each level's penalty, none for a stride two levels share") {
  TopologyResult r;
  auto level = [](std::uint64_t slots, double penalty) {
    const std::uint64_t span = 32ull << 20;
    return nlohmann::json{{"coverage_range_bytes", {slots * span, slots * span}},
                          {"span_bytes", span},
                          {"associativity", "full"},
                          {"miss_penalty_cycles", penalty}};
  };
  r.tlb_row().levels = std::vector<nlohmann::json>{level(2048, 95), level(4096, 527)};
  r.caches["l2"].size_bytes = 64ull << 20;
  const auto ranges = tlb_sweeps::stage_ranges(r);
  REQUIRE(ranges.size() == 2);
  REQUIRE(ranges[0].stride == ranges[1].stride);
  std::string analyzers;
  for (const auto& o : tlb_sweeps::stage_sweep(ranges, tlb_sweeps::limits(r)))
    if (o.key == "analyzers") analyzers = o.value;
  CHECK(analyzers.find("tlb_overflow: {penalties: ''}") != std::string::npos);
  r.tlb_row().levels = std::vector<nlohmann::json>{level(2048, 95)};
  for (const auto& o : tlb_sweeps::stage_sweep(tlb_sweeps::stage_ranges(r), tlb_sweeps::limits(r)))
    if (o.key == "analyzers") analyzers = o.value;
  CHECK(analyzers.find(std::to_string((32ull << 20) + tlb_sweeps::kSlotPad) + ":95") != std::string::npos);
}

TEST_CASE("topology plan: on-chip L1 steps keep two passes of every N within the smallest shared configuration") {
  const auto plan = topology_plan();
  TopologyResult r;
  r.device.on_chip_samples = 7104;  // Hopper: 8 KiB less the 1 KiB reservation and a scratch word
  r.cache("l1").size_bytes = 246784;
  r.cache("l1").line_bytes = 128;
  auto sets = overrides(step(plan, "l1_sets").sizes_from(r));
  CHECK(sets["iterations"] == "7104");
  CHECK(sets["sweep.array.size"] == "{from: 246784 B, to: 312320 B, step: 128 B}");  // 512 lines: 2 passes of 2440
  auto repl = overrides(step(plan, "l1_replacement").sizes_from(r));
  CHECK(repl["iterations"] == "7104");
  CHECK(repl["sweep.array.size"].find(", 263168 B]") != std::string::npos);  // C + 128 lines (2056): two passes fit
  // A 32 B line (the line steps failed, the fetch unit stands in): 7712 positions a pass at C,
  // more than the window holds twice: no sweep, and why.
  r.cache("l1").line_bytes.reset();
  r.cache("l1").fetch_bytes = 32;
  const auto skipped = step(plan, "l1_sets").sizes_from(r);
  REQUIRE(std::holds_alternative<SkipStep>(skipped));
  CHECK(std::get<SkipStep>(skipped).reason.find("fewer than two passes") != std::string::npos);
  CHECK(std::holds_alternative<SkipStep>(step(plan, "l1_replacement").sizes_from(r)));
  // Without a limit (a simulated GPU): the sweep as wide as the cache asks.
  r.device.on_chip_samples.reset();
  r.cache("l1").line_bytes = 128;
  CHECK(overrides(step(plan, "l1_sets").sizes_from(r))["iterations"] == "9760");
}

TEST_CASE("topology plan: every step needs only steps before it, and every id is unique") {
  // The plan's order is chosen for overlap (a step measures while the analyses it does not
  // need run): it must still put each step after every step it reads.
  const auto plan = topology_plan();
  std::vector<std::string> before;
  for (const auto& s : plan) {
    CAPTURE(s.id);
    CHECK(std::find(before.begin(), before.end(), s.id) == before.end());
    for (const auto& need : s.needs) {
      CAPTURE(need);
      CHECK((need == kEveryEarlierStep || std::find(before.begin(), before.end(), need) != before.end()));
    }
    before.push_back(s.id);
  }
}
