// What each kind of step writes into the topology result from its findings:
// confident figures as figures, weak ones as notes, the occupancy line over the
// miss spacing, and figures derived from earlier steps.
#include <doctest/doctest.h>

#include "engine/topology/topology_absorb.hpp"
#include "engine/topology/tlb_sweeps.hpp"

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

TEST_CASE("topology absorb: latency and its timer-corrected figure") {
  TopologyResult r;
  absorb::latency(r, "l1", {finding("summary", 40.0, {{"points", {{{"timer_overhead_cycles", 8.0}}}}})});
  CHECK(r.cache("l1").latency_cycles == 40.0);
  CHECK(r.cache("l1").timer_overhead_cycles == 8.0);
  CHECK(r.cache("l1").latency_corrected_cycles == 32.0);
}

TEST_CASE("topology absorb: a weak line is a note; the occupancy line wins and says what it replaced") {
  TopologyResult r;
  absorb::line(r, "l1", {finding("line_size", 32, json::object(), 0.5)});
  CHECK_FALSE(r.cache("l1").line_bytes);
  REQUIRE(r.cache("l1").line_note);
  CHECK(r.cache("l1").line_note->rfind("low confidence (0.500000)", 0) == 0);

  absorb::line(r, "l1", {finding("line_size", 32, {{"fetch_bytes", 32}})});
  CHECK(r.cache("l1").line_bytes == 32u);
  CHECK(r.cache("l1").fetch_bytes == 32u);
  absorb::line_blocks(r, "l1", {finding("line_capacity", 128)});
  CHECK(r.cache("l1").line_bytes == 128u);
  CHECK(r.cache("l1").line_method == "occupancy: line_capacity summary");
  CHECK(r.cache("l1").line_note ==
        "the miss spacing of a small-stride chase said 32 B; the occupancy of one access per block says 128 B (taken)");

  absorb::line_blocks(r, "l1", {finding("line_capacity", 128)});  // agreeing: no note
  CHECK_FALSE(r.cache("l1").line_note);
  absorb::line_blocks(r, "texture", {finding("line_capacity", nullptr, {{"reason", "no miss"}})});
  CHECK(r.cache("texture").line_blocks_note == "no miss");
}

TEST_CASE("topology absorb: size, and the constant L1.5's lower bound") {
  TopologyResult r;
  absorb::size(r.cache("l1"), {finding("cache_size", 16384, {{"hit_latency_cycles", 30.0}})});
  CHECK(r.size_of("l1") == 16384u);
  CHECK(r.cache("l1").hit_level_cycles == 30.0);
  absorb::size(r.cache("l2"), {});  // no finding: the row exists, nothing measured
  CHECK(r.find("l2") != nullptr);
  CHECK_FALSE(r.cache("l2").size_confidence);

  absorb::constant_l15_size(r, {finding("cache_size", nullptr, {{"lower_bound_bytes", 64512}}, 0.3)});
  const CacheResult& c = r.cache("constant_l15");
  CHECK(c.size_note == "no knee below 63 KiB: larger than a module's constant memory");
  CHECK(c.size_lower_bound_bytes == 64512u);
  CHECK(c.size_confidence == 0.3);
}

TEST_CASE("topology absorb: sharing lists both caches; the texture count carries to its storage") {
  TopologyResult r;
  absorb::sharing(r, "l1", "texture", {finding("sharing", true, json::object(), 0.8)});
  absorb::sharing(r, "l1", "readonly", {finding("sharing", false, json::object(), 0.7)});
  CHECK(r.sharing["l1/texture"].shared);
  CHECK_FALSE(r.sharing["l1/readonly"].shared);
  CHECK(r.cache("l1").shared_with == std::vector<std::string>{"texture"});
  CHECK(r.cache("texture").shared_with == std::vector<std::string>{"l1"});
  absorb::texture_amount(r, {finding("amount", 2)});
  CHECK(r.cache("texture").per_sm == 2u);
  CHECK(r.cache("l1").per_sm == 2u);
  CHECK(r.cache("l1").per_sm_note);
  CHECK_FALSE(r.cache("readonly").per_sm);
}

TEST_CASE("topology absorb: TLB levels, then coverage narrowed and entries, reach and sets by the stage method") {
  TopologyResult r;
  absorb::tlb_levels(r, {finding("tlb", nullptr, {{"reason", "no TLB miss"}})});
  CHECK(r.tlb->levels_note == "no TLB miss");
  CHECK_FALSE(r.tlb->levels);
  // 'tlb': a fully associative level covering 512 .. 704 MiB whose span (the
  // reach, for one set) is 32 MiB, and a level covering 8 .. 11.3 GiB.
  const json small{{"coverage_bytes", nullptr}, {"coverage_range_bytes", {536870912, 738197504}},
                   {"span_bytes", 33554432}, {"miss_penalty_cycles", 12.0}};
  const json large{{"coverage_bytes", nullptr}, {"coverage_range_bytes", {8589934592, 12146704384}},
                   {"span_bytes", 1073741824}, {"miss_penalty_cycles", 72.0}, {"associativity", "set-associative"}};
  absorb::tlb_levels(r, {finding("tlb", 2, {{"levels", {small, large}}})});
  REQUIRE(r.tlb->levels);
  REQUIRE(r.tlb->levels->size() == 2);
  CHECK_FALSE(r.tlb->levels_note);
  // The page step: no page size, a 32 MiB granule (the later steps' stride).
  absorb::page_size(r, {finding("page_size", nullptr, {{"reason", "saturates at 32 MiB"},
                                                      {"saturation_stride_bytes", 33554432}})});
  CHECK_FALSE(r.tlb->page_bytes);
  CHECK(r.tlb->page_note == "saturates at 32 MiB");
  CHECK(r.tlb->page_granule_bytes == 33554432u);
  const std::uint64_t stride = 33554432 + tlb_sweeps::kSlotPad;
  // 'tlb_entries' narrows the wide one (its range, at that stride): 256 slots fit, 259 not.
  // Left open instead, the level would be swept at its span (slots could share entries
  // below it): 8 .. 11 slots of 1 GiB, nothing to narrow.
  {
    TopologyResult open = r;
    (*open.tlb->levels)[1]["associativity"] = "undetermined";
    CHECK(tlb_sweeps::entry_ranges(open).empty());
    const auto at_span = tlb_sweeps::stage_ranges(open);
    REQUIRE(at_span.size() == 2);
    CHECK(at_span[1].stride == 1073741824 + tlb_sweeps::kSlotPad);
  }
  const auto narrow = tlb_sweeps::entry_ranges(r);
  REQUIRE(narrow.size() == 1);
  CHECK(narrow[0].level == 1);
  CHECK(narrow[0].stride == stride);
  absorb::tlb_entries(r, {finding("tlb", 1, {{"levels", {{{"knee_slots", 256}, {"first_miss_entries", 259},
                                                          {"stride_bytes", stride}}}}})});
  // ((256 - 1) s, (259 - 1) s], narrowed by the 8 GiB it was known to reach already.
  CHECK((*r.tlb->levels)[1]["coverage_range_bytes"] == json{8589934592ull, 258 * stride});
  // 'tlb_sets': one slot at a time. The first: one set (fully associative),
  // reach from the span; the second: 32 sets of 8, one slot per entry.
  const auto stage = tlb_sweeps::stage_ranges(r);
  REQUIRE(stage.size() == 2);
  CHECK(stage[0].step_slots == 1);
  CHECK(stage[1].step_slots == 1);
  const json fine_small{{"knee_slots", 16}, {"entries", 16}, {"first_miss_entries", 17}, {"stride_bytes", stride},
                        {"sets", 1}, {"set_sizes", {16}}, {"associativity", "full"}, {"miss_penalty_cycles", 11.5}};
  const json fine_large{{"knee_slots", 256}, {"entries", 256}, {"first_miss_entries", 257}, {"stride_bytes", stride},
                        {"sets", 32}, {"set_sizes", json(std::vector<int>(32, 8))}, {"associativity", "set-associative"},
                        {"slots_per_entry", 1}, {"miss_penalty_cycles", 60.0}};
  {
    // Against the bracket the earlier steps left the first level (512 .. 704 MiB: 16 .. 22
    // slots of 32 MiB), a stage reading one slot at a time stands within a slot of it, and
    // further off leaves the bracket.
    REQUIRE(stage[0].from_slots <= 14);
    REQUIRE(stage[0].to_slots >= 24);
    const auto reading = [&](std::uint64_t knee) {
      TopologyResult at = r;
      json l = fine_small;
      l["knee_slots"] = knee;
      l["entries"] = knee;
      l["first_miss_entries"] = knee + 1;
      absorb::tlb_sets(at, {finding("tlb", 2, {{"levels", {l, fine_large}}})});
      return (*at.tlb->levels)[0]["coverage_range_bytes"];
    };
    const auto exactly = [](std::uint64_t slots) { return json{slots * 33554432, slots * 33554432}; };
    const json bracket{536870912, 738197504};
    CHECK(reading(16) == exactly(16));
    CHECK(reading(15) == exactly(15));  // a slot below the bracket
    CHECK(reading(14) == bracket);      // two below
    CHECK(reading(23) == exactly(23));  // a slot above
    CHECK(reading(24) == bracket);      // two above
  }
  absorb::tlb_sets(r, {finding("tlb", 2, {{"levels", {fine_small, fine_large}}})});
  const json& l1 = (*r.tlb->levels)[0];
  const json& l2 = (*r.tlb->levels)[1];
  CHECK(l1["coverage_bytes"] == 16ull * 33554432);
  CHECK(l1["reach_bytes"] == 33554432);
  CHECK(l1["entries"] == 16);
  CHECK(l1["associativity"] == "full");
  CHECK(l1["miss_penalty_cycles"] == 11.5);
  {
    // A later stage reading of 14 slots, one slot at a time, against the 16 the bracket
    // holds: noise on a level of a few cycles; the coverage stays (no 14 x 32 MiB).
    TopologyResult again = r;
    json noisy = fine_small;
    noisy["knee_slots"] = 14;
    noisy["entries"] = 14;
    noisy["first_miss_entries"] = 15;
    absorb::tlb_sets(again, {finding("tlb", 2, {{"levels", {noisy, fine_large}}})});
    CHECK((*again.tlb->levels)[0]["coverage_bytes"] == 16ull * 33554432);
  }
  CHECK(l2["coverage_bytes"] == 256ull * 33554432);
  CHECK(l2["reach_bytes"] == 33554432);
  CHECK(l2["entries"] == 256);
  CHECK(l2["sets"] == 32);
  CHECK(l2["miss_penalty_cycles"] == 60.0);
  CHECK_FALSE(l2.contains("penalty_note"));
  // A stage sweep that saw only the first misses of a level (under half the footprint's
  // penalty: the memory ended a few slots past its knee) leaves the penalty as it was.
  json partial = fine_large;
  partial["miss_penalty_cycles"] = 2.9;
  absorb::tlb_sets(r, {finding("tlb", 2, {{"levels", {fine_small, partial}}})});
  CHECK((*r.tlb->levels)[1]["miss_penalty_cycles"] == 60.0);
  REQUIRE((*r.tlb->levels)[1].contains("penalty_note"));
  CHECK((*r.tlb->levels)[1]["penalty_note"].get<std::string>().find("+2.9 cycles") != std::string::npos);
  absorb::tlb_sets(r, {finding("tlb", 2, {{"levels", {fine_small, fine_large}}})});
  CHECK_FALSE(l2.contains("penalty_note"));
  CHECK_FALSE(l2.contains("pages_per_entry"));  // no page known
  // A page step that did find the page: pages per entry where a level's reach is known.
  absorb::page_size(r, {finding("page_size", 2097152)});
  CHECK(r.tlb->page_bytes == 2097152u);
  CHECK((*r.tlb->levels)[0]["pages_per_entry"] == 16);
  // 'tlb_scope': a stride per level (the pad grows with the level), 3/4 of its entries per
  // SM with one to 32 SMs, twice that for one SM; each finding lands on its level.
  r.device.sm_count = 8;
  r.caches["l2"].size_bytes = 1ull << 30;  // slot room for the large level's two SMs
  const auto scope = tlb_sweeps::scope_ranges(r);
  REQUIRE(scope.size() == 2);
  CHECK(scope[0].stride == 33554432 + tlb_sweeps::kSlotPad);
  CHECK(scope[1].stride == 33554432 + 2 * tlb_sweeps::kSlotPad);
  CHECK(scope[0].hit_slots == 12);
  CHECK(scope[0].miss_slots == 24);
  CHECK(scope[0].blocks == std::vector<std::uint32_t>{1, 2, 8});  // no more than the SMs
  CHECK(scope[1].hit_slots == 192);
  absorb::tlb_scope(r, {finding("tlb_scope", "sm", {{"stride_bytes", scope[0].stride}, {"private_up_to_sms", 8}}),
                        finding("tlb_scope", nullptr, {{"stride_bytes", scope[1].stride}, {"reason", "noisy"}})});
  CHECK((*r.tlb->levels)[0]["scope"] == "sm");
  CHECK((*r.tlb->levels)[0]["scope_sms_tested"] == 8);
  CHECK_FALSE((*r.tlb->levels)[1].contains("scope"));
  CHECK((*r.tlb->levels)[1]["scope_summary"] == "tlb_scope summary");
}

TEST_CASE("topology absorb: stage steps every few slots give the reach of entries wider than the page") {
  TopologyResult r;
  absorb::tlb_levels(r, {finding("tlb", 1, {{"levels", {{{"coverage_bytes", nullptr},
                                                         {"coverage_range_bytes", {100ull << 20, 180ull << 20}},
                                                         {"miss_penalty_cycles", 60.0}}}}})});
  absorb::page_size(r, {finding("page_size", 2097152)});
  const auto stage = tlb_sweeps::stage_ranges(r);
  REQUIRE(stage.size() == 1);
  // 64 slots of 2 MiB fit; a set overflows every 4 slots: 4 pages to an entry.
  absorb::tlb_sets(r, {finding("tlb", 1, {{"levels", {{{"knee_slots", 64}, {"entries", 16}, {"first_miss_entries", 65},
                                                       {"stride_bytes", stage[0].stride}, {"slots_per_entry", 4},
                                                       {"associativity", "undetermined"}}}}})});
  const json& l = (*r.tlb->levels)[0];
  CHECK(l["coverage_bytes"] == 128ull << 20);
  CHECK(l["reach_bytes"] == 8ull << 20);
  CHECK(l["entries"] == 16);
  CHECK(l["pages_per_entry"] == 4);
}

TEST_CASE("topology absorb: a level swept at its span above the granule: bounds, not claims") {
  // A level of 256 .. 362 GiB whose span is 64 MiB, its associativity left open by the
  // footprint sweep, over a 16 MiB granule: the stage step sweeps it at 64 MiB + pad.
  const std::uint64_t span = 64ull << 20, s = span + tlb_sweeps::kSlotPad;
  auto result = [&] {
    TopologyResult r;
    absorb::tlb_levels(r, {finding("tlb", 1, {{"levels", {{{"coverage_bytes", nullptr},
                                                           {"coverage_range_bytes", {4095 * s, 5792 * s}},
                                                           {"span_bytes", span},
                                                           {"associativity", "undetermined"},
                                                           {"miss_penalty_cycles", 700.0}}}}})});
    absorb::page_size(r, {finding("page_size", nullptr, {{"reason", "saturates at 16 MiB"},
                                                        {"saturation_stride_bytes", 16ull << 20}})});
    return r;
  };
  {
    // One step of the whole penalty, one slot past 4096: one set of 64 MiB entries, or
    // S sets of 64 / S MiB; no claim, the entries it would have as one set.
    TopologyResult r = result();
    const auto stage = tlb_sweeps::stage_ranges(r);
    REQUIRE(stage.size() == 1);
    CHECK(stage[0].stride == s);
    absorb::tlb_sets(r, {finding("tlb", 1, {{"levels", {{{"knee_slots", 4096}, {"first_miss_entries", 4097},
                                                         {"stride_bytes", s}, {"associativity", "full"},
                                                         {"sets", 1}, {"share_missing_one_past", 1.0},
                                                         {"miss_penalty_cycles", 690.0}}}}})});
    const json& l = (*r.tlb->levels)[0];
    CHECK(l["associativity"] == "undetermined");
    CHECK(l["entries"].is_null());
    CHECK(l["entries_if_fully_associative"] == 4096);
    CHECK_FALSE(l.contains("sets"));
    CHECK(l["coverage_bytes"] == 4096 * span);
  }
  {
    // Misses that grow a few cycles per slot past 4102 (not LRU): the first of them
    // bound the coverage from above; nothing is narrowed to a slot, no sets.
    TopologyResult r = result();
    absorb::tlb_sets(r, {finding("tlb", 1, {{"levels", {{{"knee_slots", 4102}, {"first_miss_entries", 4103},
                                                         {"stride_bytes", s}, {"associativity", "set-associative"},
                                                         {"sets_at_least", 40}, {"share_missing_one_past", 0.3},
                                                         {"miss_penalty_cycles", 4.6}}}}})});
    const json& l = (*r.tlb->levels)[0];
    CHECK(l["coverage_range_bytes"] == json{4095 * s, 4102 * s});
    CHECK(l["coverage_bytes"].is_null());
    // Gradual misses alone: not LRU, or sets that fill in an order of their own.
    CHECK_FALSE(l.contains("replacement"));
    CHECK(l["sets_note"].get<std::string>().find("a hashed index") != std::string::npos);
    CHECK(l["associativity"] == "undetermined");
    CHECK(l["entries"].is_null());
    CHECK_FALSE(l.contains("sets_at_least"));
    CHECK(l["miss_penalty_cycles"] == 700.0);  // the footprint sweep's: the stage saw a share
    CHECK(l["penalty_note"].get<std::string>().find("under half the footprint sweep's +700") != std::string::npos);
  }
  {
    // The same with the stage's penalty near the footprint's, but only 30 % of the accesses
    // missing one slot past the knee: partial too, and the note says which reading.
    TopologyResult r = result();
    absorb::tlb_sets(r, {finding("tlb", 1, {{"levels", {{{"knee_slots", 4102}, {"first_miss_entries", 4103},
                                                         {"stride_bytes", s}, {"associativity", "set-associative"},
                                                         {"sets_at_least", 40}, {"share_missing_one_past", 0.3},
                                                         {"miss_penalty_cycles", 650.0}}}}})});
    const json& l = (*r.tlb->levels)[0];
    CHECK(l["miss_penalty_cycles"] == 700.0);
    CHECK(l["penalty_note"].get<std::string>().find("with 30% of its accesses missing one slot past it") !=
          std::string::npos);
  }
  {
    // Read as one set by the footprint sweep (entries of the span), the same gradual
    // misses past 4096 after a bracket of (4095 s, 4096 s]: one set that is not LRU or sets
    // of a hashed index, no claim; bounds until the slots spread over its sets read it: at
    // least 4096 entries (the bracket over the span), of the span at most.
    TopologyResult r = result();
    (*r.tlb->levels)[0]["associativity"] = "full";
    (*r.tlb->levels)[0]["coverage_range_bytes"] = {4095 * s + 1, 4100 * s};
    absorb::tlb_sets(r, {finding("tlb", 1, {{"levels", {{{"knee_slots", 4096}, {"first_miss_entries", 4097},
                                                         {"stride_bytes", s}, {"associativity", "set-associative"},
                                                         {"share_missing_one_past", 0.01},
                                                         {"miss_penalty_cycles", 690.0}}}}})});
    const json& l = (*r.tlb->levels)[0];
    CHECK(l["coverage_range_bytes"] == json{4095 * s + 1, 4096 * s});
    CHECK(l["entries"].is_null());
    CHECK(l["entries_at_least"] == 4096);
    CHECK(l["reach_at_most_bytes"] == span);
    CHECK_FALSE(l.contains("reach_bytes"));
    CHECK(l["associativity"] == "undetermined");
    CHECK_FALSE(l.contains("sets"));
    CHECK(l["stage_misses_gradual"] == true);
    CHECK_FALSE(l.contains("replacement"));
  }
  {
    // Counted pass by pass, other slots miss from pass to pass: not LRU. The same slots
    // in every pass: still no claim.
    for (const bool repeats : {false, true}) {
      TopologyResult r = result();
      absorb::tlb_sets(r, {finding("tlb", 1, {{"levels", {{{"knee_slots", 4102}, {"first_miss_entries", 4103},
                                                           {"stride_bytes", s}, {"associativity", "set-associative"},
                                                           {"share_missing_one_past", 0.3},
                                                           {"miss_penalty_cycles", 4.6}}}}}),
                           finding("tlb_overflow", 4100, {{"stride_bytes", s}, {"holds_slots", 4100},
                                                          {"overflow_slots", 4101},
                                                          {"misses_repeat_each_pass", repeats}})});
      const json& l = (*r.tlb->levels)[0];
      CAPTURE(repeats);
      CHECK(l.contains("replacement") == !repeats);
      if (!repeats) CHECK(l["replacement"] == "not LRU");
      CHECK(l["sets_note"].get<std::string>().find(repeats ? "the same slots miss" : "other slots miss") !=
            std::string::npos);
    }
  }
}

TEST_CASE("topology absorb: slots spread over the sets tell one set from several") {
  // A level of 2048-2049 entries at its span of 32 MiB, penalty +95, left open or read as
  // one set by the footprint sweep; 'tlb_spread' sweeps it at 34 MiB (+ pad).
  const std::uint64_t span = 32ull << 20, s = span + tlb_sweeps::kSlotPad;
  auto result = [&](const std::string& assoc) {
    TopologyResult r;
    absorb::tlb_levels(r, {finding("tlb", 1, {{"levels", {{{"coverage_bytes", nullptr},
                                                           {"coverage_range_bytes", {2047 * s + 1, 2049 * s}},
                                                           {"span_bytes", span},
                                                           {"associativity", assoc},
                                                           {"miss_penalty_cycles", 95.0}}}}})});
    return r;
  };
  auto spread = [](const TopologyResult& r, json details) {
    const auto ranges = tlb_sweeps::spread_ranges(r);
    REQUIRE(ranges.size() == 1);
    CHECK(ranges[0].stride == 34ull * (1 << 20) + tlb_sweeps::kSlotPad);
    details["stride_bytes"] = ranges[0].stride;
    return finding("tlb_spread", details.value("clean_slots", json()), details);
  };
  {
    // Out of slots between 0.9 and 1.15 times 2048: one set of 2048 or 2049 entries of 32 MiB
    // (no bounds beside the figures).
    TopologyResult r = result("undetermined");
    absorb::tlb_spread(r, {spread(r, {{"clean_slots", 1843}, {"first_miss_slots", 2356}})});
    const json& l = (*r.tlb->levels)[0];
    CHECK_FALSE(l.contains("entries_at_least"));
    CHECK_FALSE(l.contains("reach_at_most_bytes"));
    CHECK(l["associativity"] == "full");
    CHECK(l["sets"] == 1);
    CHECK(l["reach_bytes"] == span);
    CHECK(l["entries"].is_null());
    CHECK(l["entries_range"] == json{2048, 2049});
  }
  {
    // The same, after a stage sweep whose misses grew gradually past the entries: one set
    // that is not LRU, or sets a hashed index fills evenly; the entries and reach stand.
    TopologyResult r = result("undetermined");
    (*r.tlb->levels)[0]["stage_misses_gradual"] = true;
    absorb::tlb_spread(r, {spread(r, {{"clean_slots", 1843}, {"first_miss_slots", 2356}})});
    const json& l = (*r.tlb->levels)[0];
    CHECK(l["associativity"] == "undetermined");
    CHECK(l["sets"].is_null());
    CHECK(l["reach_bytes"] == span);
    CHECK(l["entries_range"] == json{2048, 2049});
    CHECK(l["sets_note"].get<std::string>().find("hashing the address") != std::string::npos);
  }
  {
    // Twice as many fit: two sets of a reach of 16 MiB; the footprint sweep's one set was a
    // replacement that is not LRU, or sets that fill unevenly at half the span: no claim.
    TopologyResult r = result("full");
    absorb::tlb_spread(r, {spread(r, {{"clean_slots", 3686}, {"first_miss_slots", 4712}})});
    const json& l = (*r.tlb->levels)[0];
    CHECK(l["associativity"] == "set-associative");
    CHECK(l["sets"] == 2);
    CHECK(l["reach_bytes"] == span / 2);
    CHECK(l["entries_range"] == json{4096, 4098});
    CHECK(l["ways_range"] == json{2048, 2049});
    CHECK_FALSE(l.contains("replacement"));
    CHECK(l["sets_note"].get<std::string>().find("or sets that fill unevenly") != std::string::npos);
  }
  {
    // No miss up to the sweep's end at 4 x 2048: at least 4 sets, nothing more.
    TopologyResult r = result("undetermined");
    absorb::tlb_spread(r, {spread(r, {{"clean_slots", 7373}})});
    const json& l = (*r.tlb->levels)[0];
    CHECK(l["associativity"] == "set-associative");
    CHECK(l["sets"].is_null());
    CHECK(l["sets_at_least"] == 4);
    CHECK(l["entries"].is_null());
  }
  {
    // Clean to 2356 but missing at 3686: no whole number of sets of 2048 .. 2049 between.
    TopologyResult r = result("undetermined");
    absorb::tlb_spread(r, {spread(r, {{"clean_slots", 2356}, {"first_miss_slots", 3686}})});
    const json& l = (*r.tlb->levels)[0];
    CHECK(l["associativity"] == "undetermined");
    CHECK(l["sets"].is_null());
    CHECK(l["sets_note"].get<std::string>().find("no whole number of sets") != std::string::npos);
  }
  {
    // A point between clean and missing before the first miss: the miss bounds nothing,
    // and one set is not claimed.
    TopologyResult r = result("undetermined");
    absorb::tlb_spread(r, {spread(r, {{"clean_slots", 1843}, {"first_miss_slots", 3686}, {"unclear", "2356 slots rise by 9"}})});
    const json& l = (*r.tlb->levels)[0];
    CHECK(l["associativity"] == "undetermined");
    CHECK_FALSE(l.contains("sets"));
    CHECK(l["spread_note"].get<std::string>().find("2356 slots rise by 9") != std::string::npos);
  }
  {
    // The same unclear point, but too small a rise for one set: the pigeonhole principle
    // says at least 2300 fit, more than one set's 2048-2049; then the first miss bounds
    // again: two sets (4096-4098 slots) would hold 3686, so no whole number fits.
    TopologyResult r = result("undetermined");
    absorb::tlb_spread(r, {spread(r, {{"clean_slots", 1843},
                                      {"first_miss_slots", 3686},
                                      {"unclear", "2356 slots rise by 2"},
                                      {"holds_at_least_slots", 2300}})});
    const json& l = (*r.tlb->levels)[0];
    CHECK(l["associativity"] == "undetermined");
    CHECK(l["sets"].is_null());
    CHECK(l["spread_note"].get<std::string>().find("at least 2300 fit (pigeonhole)") != std::string::npos);
    CHECK(l["sets_note"].get<std::string>().find("not fully associative") != std::string::npos);
    // What holds all the same: the 2300 slots have an entry each, and an entry reaches at
    // most the span.
    CHECK(l["entries_at_least"] == 2300);
    CHECK(l["reach_at_most_bytes"] == span);
    CHECK_FALSE(l.contains("reach_bytes"));
  }
  {
    // Pigeonhole past one set, and no miss up to the sweep's end: at least two sets.
    TopologyResult r = result("undetermined");
    absorb::tlb_spread(r, {spread(r, {{"clean_slots", 1843},
                                      {"unclear", "2356 slots rise by 2"},
                                      {"holds_at_least_slots", 2300}})});
    const json& l = (*r.tlb->levels)[0];
    CHECK(l["associativity"] == "set-associative");
    CHECK(l["sets_at_least"] == 2);
    CHECK(l["entries"].is_null());
    CHECK(l["entries_at_least"] == 2300);
  }
  {
    // Pigeonhole past one set and a first miss past two sets' entries: two sets.
    TopologyResult r = result("undetermined");
    absorb::tlb_spread(r, {spread(r, {{"clean_slots", 1843},
                                      {"first_miss_slots", 4712},
                                      {"unclear", "2356 slots rise by 2"},
                                      {"holds_at_least_slots", 2300}})});
    const json& l = (*r.tlb->levels)[0];
    CHECK(l["associativity"] == "set-associative");
    CHECK(l["sets"] == 2);
  }
  {
    // An unread series changes nothing but its note.
    TopologyResult r = result("full");
    absorb::tlb_spread(r, {spread(r, {{"reason", "needs two points"}})});
    const json& l = (*r.tlb->levels)[0];
    CHECK(l["associativity"] == "full");
    CHECK(l.contains("spread_note"));
  }
}

TEST_CASE("topology absorb: strides below the span show a reach below it where the span fills only some sets") {
  // A level of 4096 slots at its 64 MiB span (penalty +764) whose slots spread over its sets
  // fit at least 4700 (tlb_spread: no whole number of sets): each entry reaches the span at
  // most. 'tlb_reach' sweeps it at 32 MiB and 16 MiB (+ pad).
  const std::uint64_t span = 64ull << 20, s = span + tlb_sweeps::kSlotPad;
  auto result = [&] {
    TopologyResult r;
    absorb::tlb_levels(r, {finding("tlb", 1, {{"levels", {{{"coverage_bytes", nullptr},
                                                           {"coverage_range_bytes", {4096 * s, 4097 * s}},
                                                           {"span_bytes", span},
                                                           {"associativity", "undetermined"},
                                                           {"miss_penalty_cycles", 764.0}}}}})});
    const auto spread = tlb_sweeps::spread_ranges(r);
    REQUIRE(spread.size() == 1);
    absorb::tlb_spread(r, {finding("tlb_spread", 3687,
                                   {{"stride_bytes", spread[0].stride},
                                    {"clean_slots", 3687},
                                    {"first_miss_slots", 7374},
                                    {"unclear", "4714 slots rise by 5"},
                                    {"holds_at_least_slots", 4700}})});
    REQUIRE((*r.tlb->levels)[0]["entries_at_least"] == 4700);
    REQUIRE((*r.tlb->levels)[0]["reach_at_most_bytes"] == span);
    return r;
  };
  auto reach = [](const TopologyResult& r, std::uint32_t halvings, json details) {
    const auto ranges = tlb_sweeps::reach_ranges(r);
    REQUIRE(ranges.size() == 1);
    REQUIRE(ranges[0].series.size() >= halvings);
    details["stride_bytes"] = ranges[0].series[halvings - 1].stride;
    return finding("tlb_spread", details.value("clean_slots", json()), details);
  };
  {
    // The sweep: half the span at and past 2 x 4096-4098 (the coverage bracket in spans), a
    // quarter of it at 1.5 times that; each from 4700 slots, the entries bound (below 0.9 x
    // 2 x 4096: a first point that fits whatever the reach).
    const TopologyResult r = result();
    const auto ranges = tlb_sweeps::reach_ranges(r);
    REQUIRE(ranges.size() == 1);
    REQUIRE(ranges[0].series.size() == 2);
    CHECK(ranges[0].series[0].stride == (32ull << 20) + tlb_sweeps::kSlotPad);
    CHECK(ranges[0].series[0].slots == std::vector<std::uint64_t>{4700, 8192, 8442, 8688});
    CHECK(ranges[0].series[1].stride == (16ull << 20) + tlb_sweeps::kSlotPad);
    CHECK(ranges[0].series[1].slots == std::vector<std::uint64_t>{4700, 12294});
    // The spec keys: both series in one sweep, the largest array first, and each stride's
    // penalty for tlb_spread.
    const auto o = tlb_sweeps::reach_sweep(ranges);
    REQUIRE(o.size() == 2);
    CHECK(o[0].value.find("array.size: [" + std::to_string(8688 * ranges[0].series[0].stride) + " B") !=
          std::string::npos);
    CHECK(o[1].value.find(std::to_string(ranges[0].series[0].stride) + ":764") != std::string::npos);
    CHECK(o[1].value.find(std::to_string(ranges[0].series[1].stride) + ":764") != std::string::npos);
  }
  {
    // Out of slots at 8442 at half the span: entries of the span would need 4222 of the
    // 4700 held: the reach is half the span at most, and 8192 slots fit, an entry each
    // (more where each access was counted: 8442 - 100 misses a pass). At a quarter of the
    // span nothing misses: no tighter.
    TopologyResult r = result();
    const auto half = reach(r, 1, {{"clean_slots", 8192}, {"first_miss_slots", 8442}, {"misses_per_pass", {{8192, 0.0}, {8442, 100.0}}}});
    const auto quarter = reach(r, 2, {{"clean_slots", 12294}});
    absorb::tlb_reach(r, {half, quarter});
    const json& l = (*r.tlb->levels)[0];
    CHECK(l["reach_at_most_bytes"] == span / 2);
    CHECK(l["entries_at_least"] == 8342);
    CHECK(l["entries"].is_null());
    CHECK_FALSE(l.contains("reach_bytes"));
    CHECK(l["reach_strides_note"].get<std::string>().find("no tighter reach") != std::string::npos);
  }
  {
    // Missing at a quarter of the span too, from 12294 slots: entries of half the span would
    // need 6148 of the 8192 held: a quarter of the span at most.
    TopologyResult r = result();
    const auto half = reach(r, 1, {{"clean_slots", 8192}, {"first_miss_slots", 8442}});
    const auto quarter = reach(r, 2, {{"clean_slots", 4700}, {"first_miss_slots", 12294}});
    absorb::tlb_reach(r, {half, quarter});
    const json& l = (*r.tlb->levels)[0];
    CHECK(l["reach_at_most_bytes"] == span / 4);
    CHECK(l["entries_at_least"] == 8192);
  }
  {
    // An entry of the span that fills every set: out of slots past twice its 4096-4098,
    // where entries of the span would need more than the 4700 held: nothing changes.
    TopologyResult r = result();
    const auto half = reach(r, 1, {{"clean_slots", 8688}});
    absorb::tlb_reach(r, {half});
    const json& l = (*r.tlb->levels)[0];
    CHECK(l["reach_at_most_bytes"] == span);
    CHECK(l["entries_at_least"] == 4700);
    CHECK(l["reach_strides_note"].get<std::string>().find("no tighter reach") != std::string::npos);
    TopologyResult late = result();
    absorb::tlb_reach(late, {reach(late, 1, {{"clean_slots", 8442}, {"first_miss_slots", 9600}})});
    CHECK((*late.tlb->levels)[0]["reach_at_most_bytes"] == span);
    CHECK((*late.tlb->levels)[0]["reach_strides_note"].get<std::string>().find("more than the 4700") != std::string::npos);
    // A first miss that a later point contradicts shows nothing either.
    TopologyResult noise = result();
    absorb::tlb_reach(noise, {reach(noise, 1, {{"clean_slots", 4700}, {"first_miss_slots", 8192}, {"first_miss_unconfirmed", "x"}})});
    CHECK((*noise.tlb->levels)[0]["reach_at_most_bytes"] == span);
    // Nor one at the series' last point that no access counted as a miss shows.
    TopologyResult uncounted = result();
    absorb::tlb_reach(uncounted, {reach(uncounted, 1, {{"clean_slots", 8192},
                                                       {"first_miss_slots", 8442},
                                                       {"misses_per_pass", {{8192, 0.0}, {8442, 0.0}}}})});
    CHECK((*uncounted.tlb->levels)[0]["reach_at_most_bytes"] == span);
    CHECK((*uncounted.tlb->levels)[0]["reach_strides_note"].get<std::string>().find("no access counted") !=
          std::string::npos);
  }
  {
    // A level read as one set (no bound past its ways) is not swept.
    TopologyResult r;
    absorb::tlb_levels(r, {finding("tlb", 1, {{"levels", {{{"coverage_bytes", 4096 * span},
                                                           {"coverage_range_bytes", {4096 * span, 4096 * span}},
                                                           {"span_bytes", span},
                                                           {"associativity", "full"},
                                                           {"miss_penalty_cycles", 764.0}}}}})});
    CHECK(tlb_sweeps::reach_ranges(r).empty());
  }
}

TEST_CASE("topology absorb: shared bandwidth against the bound of the measured banks") {
  TopologyResult r;
  r.device.sm_count = 132;
  absorb::banks(r, {finding("bank_conflicts", 32, {{"bank_width_bytes", 4}})});
  absorb::bandwidth(r, "shared",
                    {finding("bandwidth", 33000.0, {{"sms", 132}, {"peak_bytes_per_cycle_per_sm", 64.0}, {"method", "sm_clocks"}})});
  const BandwidthResult& b = r.bandwidth["shared"];
  CHECK(b.device_sms == 132u);
  CHECK(b.sms == 132u);
  CHECK(b.bound_bytes_per_cycle_per_sm == 128.0);
  CHECK(b.share_of_bound == 0.5);
  absorb::bandwidth(r, "global", {finding("bandwidth", 3000.0, {{"peak_bytes_per_cycle_per_sm", 16.0}})});
  CHECK_FALSE(r.bandwidth["global"].bound_bytes_per_cycle_per_sm);
  // Writes of shared memory approach the same bound.
  absorb::bandwidth(r, "shared_write",
                    {finding("bandwidth", 33000.0, {{"sms", 132}, {"peak_bytes_per_cycle_per_sm", 96.0}})});
  CHECK(r.bandwidth["shared_write"].level == "shared");
  CHECK(r.bandwidth["shared_write"].access == "write");
  CHECK(r.bandwidth["shared_write"].share_of_bound == 0.75);
}

TEST_CASE("topology absorb: L1 reads beside the banks' bound only where the L1 is shared memory's storage") {
  TopologyResult r;
  r.device.sm_count = 132;
  absorb::banks(r, {finding("bank_conflicts", 32, {{"bank_width_bytes", 4}})});
  const std::vector<Finding> l1 = {finding("bandwidth", 33000.0, {{"sms", 132}, {"peak_bytes_per_cycle_per_sm", 120.0}})};
  absorb::bandwidth(r, "l1", l1);
  CHECK_FALSE(r.bandwidth["l1"].bound_bytes_per_cycle_per_sm);  // no carveout measured
  r.cache("l1").size_bytes = 241 * 1024;
  r.cache("l1_carveout").size_bytes = 230 * 1024;  // within a tenth: search noise, not another split
  absorb::bandwidth(r, "l1", l1);
  CHECK_FALSE(r.bandwidth["l1"].bound_bytes_per_cycle_per_sm);
  r.cache("l1_carveout").size_bytes = 148 * 1024;  // the carveout took storage from the L1
  absorb::bandwidth(r, "l1", l1);
  REQUIRE(r.bandwidth["l1"].bound_bytes_per_cycle_per_sm);
  CHECK(*r.bandwidth["l1"].bound_bytes_per_cycle_per_sm == 128.0);
  CHECK(*r.bandwidth["l1"].share_of_bound == doctest::Approx(120.0 / 128));
  CHECK(r.bandwidth["l1"].bound_source->find("carveout") != std::string::npos);
  // Stores into the L1 get no banks' bound: where they end is the L2 comparison's to say.
  absorb::bandwidth(r, "l1_write", {finding("bandwidth", 4000.0, {{"peak_bytes_per_cycle_per_sm", 34.0}})});
  CHECK_FALSE(r.bandwidth["l1_write"].bound_bytes_per_cycle_per_sm);
  CHECK_FALSE(r.bandwidth["l1_write"].note);  // no L2 write figure yet
}

TEST_CASE("topology absorb: the L1's stores beside the same stores without the L1: write-through, write-back or neither") {
  const auto per_sm = [](double bpc) {
    return std::vector<Finding>{finding("bandwidth", bpc * 132, {{"sms", 132}, {"peak_bytes_per_cycle_per_sm", bpc}})};
  };
  struct Case {
    double l1, control;
    const char* says;
    bool bound;
  };
  for (const Case c : {Case{12.0, 11.5, "write-through", true}, Case{11.0, 12.0, "write-through", true},
                       Case{90.0, 34.0, "write-back", false}, Case{40.0, 34.0, "not determined", false},
                       Case{12.0, 17.0, "not determined", false}}) {
    CAPTURE(c.l1);
    CAPTURE(c.control);
    TopologyResult r;
    absorb::bandwidth(r, "l1_write", per_sm(c.l1));
    CHECK_FALSE(r.bandwidth["l1_write"].note);  // no control yet
    absorb::l1_write_control(r, per_sm(c.control));
    const BandwidthResult& w = r.bandwidth["l1_write"];
    CHECK(w.level == "l1");
    CHECK(w.access == "write");
    CHECK(*w.bytes_per_cycle_per_sm == c.l1);  // the figure is the L1 path's, the control stands beside it
    CHECK(*w.control_bytes_per_cycle_per_sm == c.control);
    REQUIRE(w.note);
    CHECK(w.note->find(c.says) != std::string::npos);
    CHECK(w.bound_bytes_per_cycle_per_sm.has_value() == c.bound);
    if (c.bound) CHECK(*w.share_of_bound == doctest::Approx(c.l1 / c.control));
    CHECK(r.bandwidth.size() == 1);  // the control has no row of its own
  }
  // A control without an L1 write figure says nothing and adds no row.
  TopologyResult alone;
  absorb::l1_write_control(alone, per_sm(12.0));
  CHECK(alone.bandwidth.empty());
}

TEST_CASE("topology absorb: DRAM read and write beside the driver's peak, where the driver gives one") {
  TopologyResult r;
  r.device.sm_count = 132;
  const auto bw = [](double gbps) {
    return std::vector<Finding>{finding("bandwidth", gbps, {{"sms", 132}, {"peak_gbps", gbps}, {"method", "kernel_time"}})};
  };
  absorb::bandwidth(r, "global", bw(3000.0));
  CHECK_FALSE(r.bandwidth["global"].bound_gbps);  // no driver figures (a simulated GPU)
  r.driver.memory_clock_khz = 2619000;
  r.driver.memory_bus_width_bits = 5120;
  absorb::bandwidth(r, "global", bw(3000.0));
  absorb::bandwidth(r, "global_write", bw(3100.0));
  for (const char* key : {"global", "global_write"}) {
    CAPTURE(key);
    const BandwidthResult& b = r.bandwidth[key];
    CHECK(b.level == "dram");
    REQUIRE(b.bound_gbps);
    CHECK(*b.bound_gbps == doctest::Approx(3352.32));
    CHECK(*b.share_of_bound == doctest::Approx(*b.gbps / 3352.32));
    CHECK(b.bound_source->find("memory clock x bus width") != std::string::npos);
  }
  CHECK(r.bandwidth["global"].access == "read");
  CHECK(r.bandwidth["global_write"].access == "write");
  CHECK_FALSE(r.bandwidth["global"].note);
  // Past the interface's peak, the L2 served part of the stream: an upper bound, said so.
  absorb::bandwidth(r, "global", bw(3400.0));
  REQUIRE(r.bandwidth["global"].note);
  CHECK(r.bandwidth["global"].note->find("bounds the DRAM rate from above") != std::string::npos);
  // L2: no known bound.
  absorb::bandwidth(r, "l2_write", bw(4000.0));
  CHECK_FALSE(r.bandwidth["l2_write"].bound_gbps);
  CHECK_FALSE(r.bandwidth["l2_write"].share_of_bound);
}

TEST_CASE("topology absorb: the L2 from every SM is the per-SM knee times the SMs, or why not") {
  TopologyResult r;
  absorb::l2_whole(r, {finding("cache_size", 262144)}, 132);
  CHECK(r.caches["l2"].whole_gpu_bytes == 132ull * 262144);
  CHECK(r.caches["l2"].whole_gpu_sms == 132u);
  CHECK_FALSE(r.caches["l2"].whole_gpu_note);
  absorb::l2_whole(r, {finding("cache_size", nullptr, {{"reason", "no knee"}})}, 132);
  CHECK_FALSE(r.caches["l2"].whole_gpu_bytes);
  REQUIRE(r.caches["l2"].whole_gpu_note);
  CHECK(r.caches["l2"].whole_gpu_note->find("no knee") != std::string::npos);
}

TEST_CASE("topology absorb: the stage profile keeps its details and the clean capacity, or why not") {
  TopologyResult r;
  absorb::stage_profile(r, "l1", {finding("stage_profile", 246784, {{"clean_lines", 1928}, {"aperiodic_points", 61}})});
  REQUIRE(r.caches["l1"].stage_profile);
  const json& p = *r.caches["l1"].stage_profile;
  CHECK(p["determined"] == true);
  CHECK(p["clean_bytes"] == 246784);
  CHECK(p["clean_lines"] == 1928);
  CHECK(p["aperiodic_points"] == 61);
  CHECK(p["summary"] == "stage_profile summary");
  absorb::stage_profile(r, "texture", {finding("stage_profile", nullptr, {{"reason", "no point misses"}})});
  const json& u = *r.caches["texture"].stage_profile;
  CHECK(u["determined"] == false);
  CHECK_FALSE(u.contains("clean_bytes"));
  CHECK_FALSE(u.contains("reason"));  // the summary carries it
  absorb::stage_profile(r, "readonly", {finding("sets", 4)});  // no stage_profile finding: nothing
  CHECK_FALSE(r.caches["readonly"].stage_profile);
}

namespace {
// The conflict step's finding for one stride: n lines fit (the next misses), or none missed up to n.
Finding fit(std::uint64_t stride, std::uint64_t n, bool at_least = false, std::uint64_t first_miss = 0) {
  if (at_least) return finding("stage_profile", nullptr, {{"clean_lines_at_least", n}, {"line_bytes", stride}});
  return finding("stage_profile", n * stride,
                 {{"clean_lines", n}, {"first_miss_lines", first_miss == 0 ? n + 1 : first_miss}, {"line_bytes", stride}});
}
}  // namespace

TEST_CASE("topology absorb: conflicts give ways and sets where every stride agrees exactly") {
  TopologyResult r;
  r.cache("l1").size_bytes = 49152;
  r.cache("l1").line_bytes = 128;
  // No periodic stage sweep to confirm that the lines share one set: ways if the sets are
  // a power of two, no sets claimed.
  absorb::conflict(r, "l1", {fit(32768, 6), fit(65536, 6), fit(98304, 6)});
  const CacheResult& c = r.caches["l1"];
  REQUIRE(c.conflict);
  CHECK((*c.conflict)["ways_if_power_of_two_sets"] == 6);
  CHECK_FALSE(c.conflict->contains("ways"));
  CHECK_FALSE(c.sets);
  CHECK((*c.conflict)["summary"].get<std::string>().find("if the set count is a power of two") != std::string::npos);
  // A periodic stage sweep whose first overflow missed ways + 1 = 7 lines confirms it.
  r.cache("l1").stage_profile = json{{"determined", true}, {"first_miss_per_pass", 7.0}, {"aperiodic_points", 0}};
  r.cache("l1").sets_note = "the staircase is no geometry";
  absorb::conflict(r, "l1", {fit(32768, 6), fit(65536, 6), fit(98304, 6)});
  CHECK_FALSE(c.sets_note);
  CHECK((*c.conflict)["ways"] == 6);
  CHECK((*c.conflict)["sets"] == 64);
  CHECK(c.sets == 64u);
  CHECK(c.ways == 6.0);
  CHECK(c.sets_source == "conflicts");
  CHECK((*c.conflict)["summary"].get<std::string>().find("one set of 6 ways; 64 sets of 128 B lines") != std::string::npos);
}

TEST_CASE("topology absorb: conflicts never override the stage method; disagreement is recorded") {
  TopologyResult r;
  CacheResult& c = r.cache("l1");
  c.size_bytes = 49152;
  c.line_bytes = 128;
  absorb::sets(r, "l1", {finding("sets", 96, {{"ways", 4}})});
  REQUIRE(c.sets == 96u);
  CHECK(c.sets_source == "stage method");
  c.stage_profile = json{{"determined", true}, {"first_miss_per_pass", 13.0}, {"aperiodic_points", 0}};
  absorb::conflict(r, "l1", {fit(32768, 12), fit(65536, 12), fit(98304, 12)});
  CHECK(c.sets == 96u);
  CHECK(c.sets_source == "stage method");
  CHECK((*c.conflict)["disagrees_with_stage_method"] == true);
}

TEST_CASE("topology absorb: conflicts that read nothing say why") {
  TopologyResult r;
  CacheResult& c = r.cache("l1");
  c.size_bytes = 246784;
  c.line_bytes = 128;
  // No miss up to 128 lines at any stride: a hash, or at least 128 ways.
  absorb::conflict(r, "l1", {fit(131072, 128, true), fit(262144, 128, true), fit(393216, 128, true)});
  CHECK_FALSE(c.sets);
  CHECK((*c.conflict)["summary"].get<std::string>().rfind("no conflict", 0) == 0);
  CHECK((*c.conflict)["summary"].get<std::string>().find("at least 128 ways") != std::string::npos);
  // Unequal counts (a set count with a factor 3): nothing read.
  absorb::conflict(r, "l1", {fit(32768, 12), fit(65536, 12), fit(98304, 4)});
  CHECK_FALSE(c.sets);
  CHECK((*c.conflict)["summary"].get<std::string>().find("not one count") != std::string::npos);
  // Equal counts, but an LRU-like stage sweep missed 5 lines one line past the capacity: 4 ways, not 12.
  c.stage_profile = json{{"determined", true}, {"first_miss_per_pass", 5.0}, {"aperiodic_points", 0}};
  c.size_bytes = 49152;
  absorb::conflict(r, "l1", {fit(32768, 12), fit(65536, 12), fit(131072, 12)});
  CHECK_FALSE(c.sets);
  CHECK((*c.conflict)["summary"].get<std::string>().find("not 13") != std::string::npos);
  // Equal but stepped counts: a range, no claim.
  c.stage_profile.reset();
  absorb::conflict(r, "l1", {fit(8192, 96, false, 104), fit(16384, 96, false, 104), fit(24576, 96, false, 104)});
  CHECK_FALSE(c.sets);
  CHECK((*c.conflict)["summary"].get<std::string>().find("96 to 103 ways") != std::string::npos);
}

TEST_CASE("topology absorb: the L2's size is the whole GPU's, one SM's figure under one_sm_bytes") {
  TopologyResult r;
  absorb::l2_one_sm(r, {finding("cache_size", 25165824)});
  const CacheResult& c = r.caches["l2"];
  CHECK(c.one_sm_bytes == 25165824u);
  CHECK(c.size_bytes == 25165824u);  // until every SM is measured
  CHECK(r.one_sm_size_of("l2") == 25165824u);
  absorb::l2_whole(r, {finding("cache_size", 262144)}, 132);
  CHECK(c.size_bytes == 132ull * 262144);
  CHECK(c.whole_gpu_bytes == c.size_bytes);
  CHECK(c.one_sm_bytes == 25165824u);
  CHECK(r.one_sm_size_of("l2") == 25165824u);  // later steps size from what one SM fills
  absorb::l2_whole(r, {finding("cache_size", nullptr, {{"reason", "no knee"}})}, 132);
  CHECK_FALSE(c.size_bytes);
  REQUIRE(c.size_note);
  CHECK(c.size_note->find("no knee") != std::string::npos);
  CHECK(c.size_note->find("one SM fills 24 MiB") != std::string::npos);
  CHECK(r.one_sm_size_of("l2") == 25165824u);
  // One SM's figure undetermined: the whole GPU's size stands for no one SM's, so steps
  // sized from one SM read the same before and after the whole-GPU step is folded in.
  TopologyResult u;
  absorb::l2_one_sm(u, {finding("cache_size", nullptr, {{"reason", "no knee"}})});
  CHECK_FALSE(u.one_sm_size_of("l2"));
  absorb::l2_whole(u, {finding("cache_size", 262144)}, 132);
  CHECK(u.size_of("l2") == 132ull * 262144);
  CHECK_FALSE(u.one_sm_size_of("l2"));
}
