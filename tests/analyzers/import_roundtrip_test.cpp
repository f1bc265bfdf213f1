// Traces of another tool, in the import format (size_bytes, stride_bytes, seq,
// offset_bytes, latency: no timer overhead, no accesses per pass), through
// `dissect analyze --trace`.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "support/process.hpp"
#include "support/ref_model.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;
using dissect::test::RefCacheConfig;

namespace {
nlohmann::json finding_of(const std::string& output, const std::string& analyzer) {
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '{') continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.value("analyzer", "") == analyzer) return j;
  }
  return {};
}

test::RefNoise noise(std::uint64_t seed) {
  test::RefNoise n;
  n.jitter = 4;
  n.outlier_rate = 0.003;
  n.short_rate = 0.001;
  n.seed = seed;
  return n;
}
}  // namespace

TEST_CASE("import: cache_size, line_size, sets and replacement of a foreign trace") {
  // A 24 KiB cache: 96 sets x 4 ways of 64 B, LRU.
  const auto cfg = RefCacheConfig::uniform(24576, 64, 4);
  TraceSet t;
  auto add = [&](std::uint64_t n, std::uint64_t s, std::uint64_t iters) {
    test::ChaseSpec cs;
    cs.size = n;
    cs.stride = s;
    cs.iterations = iters;
    cs.with_context = false;
    t.points.push_back(test::cache_chase(t.points.size(), cfg, cs, {40, 350}, noise(n * 7 + s)));
  };
  for (std::uint64_t n = 16384; n <= 32768; n += 1024) add(n, 4, 4 * n / 4);  // size sweep, 4 B
  add(49152, 4, 2 * 49152 / 4);                                               // dense misses: the line
  for (std::uint64_t n = 24576 - 128; n <= 24576 + 100 * 64; n += 64) add(n, 64, 12 * n / 64);  // stages

  test::TempDir dir;
  const std::string csv = dir.write("foreign.csv", test::to_import_csv(t));
  if (const char* keep = std::getenv("DISSECT_KEEP_CSV")) dir.write("x", ""), std::filesystem::copy_file(csv, keep, std::filesystem::copy_options::overwrite_existing);
  const auto r = test::run_dissect("analyze --trace '" + csv +
                                   "' -a cache_size -a line_size -a sets -a replacement -a latency_levels --json");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const auto cs = finding_of(r.output, "cache_size");
  CHECK(cs["value"] == 24576);
  const auto ls = finding_of(r.output, "line_size");
  CHECK(ls["value"] == 64);
  const auto st = finding_of(r.output, "sets");
  CHECK(st["value"] == 96);
  CHECK(st["details"]["ways"] == 4);
  CHECK(st["details"]["bit_defined"] == true);
  const auto rp = finding_of(r.output, "replacement");
  CHECK(rp["value"] == "lru");
  const auto ll = finding_of(r.output, "latency_levels");
  CHECK(ll["value"] == 2);
}

TEST_CASE("import: every analyzer runs on a foreign trace and none invents a value it cannot support") {
  const auto cfg = RefCacheConfig::uniform(16384, 128, 4);
  TraceSet t;
  test::ChaseSpec cs;
  cs.size = 8192;
  cs.stride = 4;
  cs.with_context = false;
  t.points.push_back(test::cache_chase(0, cfg, cs, {}, noise(1)));
  test::TempDir dir;
  const std::string csv = dir.write("one.csv", test::to_import_csv(t));
  const auto r = test::run_dissect("analyze --trace '" + csv + "' --json");
  INFO(r.output);
  REQUIRE(r.status == 0);
  for (const char* a : {"cache_size", "line_size", "sets", "replacement", "tlb", "page_size", "bank_conflicts",
                        "bandwidth", "sharing", "amount"}) {
    const auto f = finding_of(r.output, a);
    INFO(a);
    REQUIRE_FALSE(f.is_null());
    CHECK(f["value"].is_null());
    CHECK(f["confidence"] == 0);
    CHECK(f["details"]["reason"].is_string());
  }
}
