// The topology plan: every step names a spec that exists, ids are unique, and
// each step sizes itself from the typed result of the earlier steps (or says
// why it cannot run).
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <variant>

#include "engine/core/paths.hpp"
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

TEST_CASE("topology plan: device facts size the bandwidth and far-TLB steps") {
  const auto plan = topology_plan();
  TopologyResult r;
  CHECK(overrides(step(plan, "bandwidth_global").sizes_from(r)).empty());  // SM count unknown
  r.device.sm_count = 4;
  CHECK(overrides(step(plan, "bandwidth_global").sizes_from(r))["layout.blocks"] == "32");
  CHECK(overrides(step(plan, "bandwidth_shared").sizes_from(r))["layout.blocks"] == "4");
  CHECK(overrides(step(plan, "tlb_far").sizes_from(r)).count("sweep.array.size") == 1);
  r.device.memory_bytes = 1ULL << 30;  // too few pages beyond the 'tlb' sweep
  CHECK(std::holds_alternative<SkipStep>(step(plan, "tlb_far").sizes_from(r)));
}
