// Which points share a launch: SM-private targets one per SM, shared targets alone.
#include <doctest/doctest.h>

#include "engine/device/cuda/launch_plan.hpp"

using namespace dissect;

namespace {
std::vector<Point> sweep(const std::string& extra, int n) {
  return load_spec_text("dissect: 1\nname: t\nkernel: pchase\n" + extra +
                            "array: {size: 4 KiB, stride: 128 B}\niterations: 64\nsweep:\n  array.size: {from: 4 KiB, "
                            "to: " + std::to_string(4 * n) + " KiB, step: 4 KiB}\n",
                        "t.yaml")
      .expand();
}
std::string same(const Point&) { return "k"; }
}  // namespace

TEST_CASE("an L1 sweep packs up to one point per SM") {
  const auto pts = sweep("path: ca\n", 300);
  PackingLimits l;
  l.sm_count = 132;
  const auto plan = plan_launches(pts, l, same);
  REQUIRE(plan.size() == 3);
  CHECK(plan[0].points.size() == 132);
  CHECK(plan[0].per_sm);
  CHECK(plan[2].points.size() == 300 - 264);
  CHECK(plan[0].points[1] == 1);
}

TEST_CASE("L2 / DRAM targets, parallel: false and the driver-default carveout run alone") {
  PackingLimits l;
  l.sm_count = 132;
  for (const char* extra : {"path: cg\n", "path: ca\ntarget: dram\n", "path: ca\nparallel: false\n",
                            "path: ca\ncarveout: default\n"}) {
    CAPTURE(extra);
    const auto plan = plan_launches(sweep(extra, 10), l, same);
    CHECK(plan.size() == 10);
    for (const auto& g : plan) CHECK_FALSE(g.per_sm);
    CHECK_FALSE(why_alone(sweep(extra, 1)[0].experiment).empty());
  }
}

TEST_CASE("different kernels never share a launch") {
  const auto pts = sweep("path: ca\n", 6);
  PackingLimits l;
  l.sm_count = 132;
  const auto plan = plan_launches(pts, l, [](const Point& p) { return std::to_string(p.id / 2); });
  CHECK(plan.size() == 3);
}

TEST_CASE("constant-path arrays of one launch fit the 64 KiB bank") {
  const auto pts = sweep("path: const\n", 8);  // 4+8+...+32 KiB
  PackingLimits l;
  l.sm_count = 132;
  const auto plan = plan_launches(pts, l, same);
  for (const auto& g : plan) {
    std::uint64_t bytes = 0;
    for (auto i : g.points) bytes += const_bytes(pts[i].experiment, l.const_align);
    CHECK(bytes <= 64 * 1024);
  }
  CHECK(plan.size() > 1);
}

TEST_CASE("sample slots per point") {
  auto e = sweep("path: ca\nlayout: {threads: 4, chasers: all}\n", 1)[0].experiment;
  CHECK(sample_slots(e) == 4 * 64);
  e.timing.mode = TimingMode::chain;
  CHECK(sample_slots(e) == 4);
}

TEST_CASE("shared_stride sweeps pack too (shared memory is SM-private)") {
  const auto pts = load_spec_text("dissect: 1\nname: t\nkernel: shared_stride\nelement: u32\narray: {size: 8 KiB, "
                                  "stride: 4 B}\nlayout: {threads: 32, chasers: all}\niterations: 64\nsweep:\n  "
                                  "array.stride: {from: 0, to: 64, step: 1, unit: elements}\n",
                                  "t.yaml")
                       .expand();
  PackingLimits l;
  l.sm_count = 132;
  const auto plan = plan_launches(pts, l, same);
  REQUIRE(plan.size() == 1);
  CHECK(plan[0].points.size() == 65);
  CHECK(sample_slots(pts[0].experiment) == 32);
}
