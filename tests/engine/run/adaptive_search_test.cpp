#include <doctest/doctest.h>

#include "engine/run/adaptive_search.hpp"
#include "support/fake_device.hpp"

using namespace dissect;
using dissect::test::FakeDevice;

namespace {

const char* kSearch = R"(dissect: 1
name: search
array: {size: 1 KiB, stride: 128 B}
iterations: 256
analyzers: [cache_size]
sweep:
  array.size: {search: knee, from: 1 KiB, to: 1 MiB, resolution: 128 B}
)";

// Keeps nothing: the search's own bookkeeping is under test.
struct NullSink final : RunSink {
  void point_done(const Point&, PointTrace) override {}
  void kernel_built(const KernelArtifact&) override {}
};

std::uint64_t mix(std::uint64_t x) {  // splitmix64: a fixed pseudo-random draw per point
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// One search of `spec` on `dev`, `width` points per round; its log entry (one combination).
nlohmann::json search(const Spec& spec, FakeDevice& dev, std::size_t width) {
  NullSink sink;
  std::atomic<bool> stop{false};
  const AdaptiveSearchOutcome r = run_adaptive_search(spec, dev, sink, stop, width);
  REQUIRE(r.log.size() == 1);
  return r.log[0];
}

}  // namespace

TEST_CASE("the knee search brackets a sharp knee to its resolution") {
  const Spec spec = load_spec_text(kSearch, "search.yaml");
  FakeDevice dev;
  dev.capacity = 20 * 1024 + 384;
  const nlohmann::json log = search(spec, dev, 32);
  CHECK(log["bracket_bytes"] == nlohmann::json::array({20 * 1024 + 384, 20 * 1024 + 512}));
  CHECK(log["confirmed_copies"] == 5);  // 32 points in the last launch, 6 sizes around the bracket
}

TEST_CASE("near the capacity, points that miss at random do not move the knee: copies outvote them") {
  // The H100's L1 near its 1928 lines: a point in the last 4 lines below the
  // capacity misses or not depending on where its array lies (about one in
  // four). Ten draws of those strays, one bracket.
  const Spec spec = load_spec_text(kSearch, "search.yaml");
  constexpr std::uint64_t capacity = 241 * 1024;
  for (std::uint64_t draw = 0; draw < 10; ++draw) {
    CAPTURE(draw);
    FakeDevice dev;
    dev.misses = [&](const Point& p) {
      const std::uint64_t n = p.experiment.array.size_bytes;
      if (n > capacity) return true;
      return n + 4 * 128 > capacity && mix(p.id * 131 + draw) % 4 == 0;
    };
    const nlohmann::json log = search(spec, dev, 128);
    CHECK(log["bracket_bytes"] == nlohmann::json::array({capacity, capacity + 128}));
  }
}

TEST_CASE("points run one at a time get two more measurements per size around the bracket") {
  const Spec spec = load_spec_text(kSearch, "search.yaml");
  FakeDevice dev;
  dev.capacity = 48 * 1024;
  const nlohmann::json log = search(spec, dev, 3);
  CHECK(log["bracket_bytes"] == nlohmann::json::array({48 * 1024, 48 * 1024 + 128}));
  CHECK(log["confirmed_copies"] == 2);
}

TEST_CASE("a resolution given as a share is taken of the bracket's clean end, as a power of two") {
  // 2% of 512 KiB (doubling from 1 KiB stops at 1 MiB) is 10.5 KiB: 8 KiB steps.
  std::string text = kSearch;
  text.replace(text.find("resolution: 128 B"), 17, "resolution: 2%");
  const Spec spec = load_spec_text(text, "search.yaml");
  FakeDevice dev;
  dev.capacity = 600 * 1024;
  const nlohmann::json log = search(spec, dev, 3);
  CHECK(log["resolution_bytes"] == 8 * 1024);
  CHECK(log["bracket_bytes"] == nlohmann::json::array({600 * 1024, 608 * 1024}));
}

TEST_CASE("a knee whose misses start gradually: the search takes cache_size's min_miss_share") {
  // Misses from 600 KiB on, 1 % more every 100 KiB (the H100's L2 from one SM,
  // scaled down). Without a share the first few misses make the knee; with 2 %
  // it lies where 2 % of the accesses miss: 800 KiB.
  const auto soft = [](const Point& p) {
    const double n = static_cast<double>(p.experiment.array.size_bytes) / 1024;
    return n <= 600 ? 0.0 : (n - 600) / 100 * 0.01;
  };
  std::string text = kSearch;
  text.replace(text.find("iterations: 256"), 15, "iterations: 8192");
  text.replace(text.find("resolution: 128 B"), 17, "resolution: 8 KiB");
  for (const bool with_share : {false, true}) {
    CAPTURE(with_share);
    std::string t = text;
    if (with_share) t.replace(t.find("analyzers: [cache_size]"), 23, "analyzers: [cache_size: {min_miss_share: 0.02}]");
    const Spec spec = load_spec_text(t, "search.yaml");
    FakeDevice dev;
    dev.miss_share = soft;
    const nlohmann::json log = search(spec, dev, 3);
    const auto lo = log["bracket_bytes"][0].get<std::uint64_t>() / 1024;
    if (with_share) {
      CHECK(lo >= 792);
      CHECK(lo <= 800);
    } else {
      CHECK(lo < 640);
    }
  }
}
