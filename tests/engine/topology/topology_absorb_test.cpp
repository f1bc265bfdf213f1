// What each kind of step writes into the topology result from its findings:
// confident figures as figures, weak ones as notes, the occupancy line over the
// miss spacing, and figures derived from earlier steps.
#include <doctest/doctest.h>

#include "engine/topology/topology_absorb.hpp"

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

TEST_CASE("topology absorb: TLB levels of both sweeps in order; a note only while none is found") {
  TopologyResult r;
  absorb::tlb_levels(r, {finding("tlb", nullptr, {{"reason", "no TLB miss"}})});
  CHECK(r.tlb->levels_note == "no TLB miss");
  CHECK_FALSE(r.tlb->levels);
  absorb::far_tlb_levels(r, {finding("tlb", 1, {{"levels", {{{"entries", 4096}}}}})});
  REQUIRE(r.tlb->levels);
  CHECK(r.tlb->levels->size() == 1);
  CHECK_FALSE(r.tlb->levels_note);
  absorb::page_size(r, {finding("page_size", 2097152)});
  CHECK(r.tlb->page_bytes == 2097152u);
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
}
