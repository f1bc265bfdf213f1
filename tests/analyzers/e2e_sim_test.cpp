// End to end on the simulated GPU: specs run through `dissect run --device
// sim:<profile>`, the analyzers run on the bundle, and every finding is
// checked against the profile's ground truth (bundle.json device.ground_truth,
// the model itself, never a measurement). Profiles: the seed GPUs of the
// library and two invented ones (tests/data/analyzers/profiles: odd sizes,
// non-power-of-two sets, blocked and hashed mappings, FIFO and random
// replacement, sectors, unequal TLB sets).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kSpecs = std::string(DISSECT_TEST_DATA) + "/analyzers/specs/";
const std::string kProfiles = std::string(DISSECT_TEST_DATA) + "/analyzers/profiles/";

struct Run {
  json findings = json::array();
  json truth;
  std::string output;
  json bundle;
  [[nodiscard]] json finding(const std::string& analyzer) const {
    for (const auto& f : findings)
      if (f.value("analyzer", "") == analyzer) return f;
    return json();
  }
};

std::string device(const std::string& profile) {
  return profile.find(".yaml") != std::string::npos ? "sim:" + kProfiles + profile : "sim:" + profile;
}

Run run(const std::string& spec, const std::string& profile, const std::vector<std::string>& sets = {}) {
  dissect::test::TempDir dir;
  std::string cmd = "run '" + kSpecs + spec + "' --device '" + device(profile) + "' --out '" + dir.path() + "' -q";
  for (const auto& s : sets) cmd += " --set '" + s + "'";
  Run r;
  const auto res = dissect::test::run_dissect(cmd);
  r.output = res.output;
  for (const auto& e : fs::directory_iterator(dir.path())) {
    r.bundle = json::parse(dissect::test::read_file((e.path() / "bundle.json").string()));
    r.truth = r.bundle["device"]["ground_truth"];
    const std::string fpath = (e.path() / "findings.json").string();
    if (fs::exists(fpath)) r.findings = json::parse(dissect::test::read_file(fpath))["findings"];
  }
  return r;
}

std::size_t blocked_lines(const json& cache) {
  std::smatch m;
  const std::string idx = cache["index"].get<std::string>();
  static const std::regex re(R"(blocked \((\d+) consecutive)");
  return std::regex_search(idx, m, re) ? std::stoul(m[1]) : 1;
}

std::string bytes(std::uint64_t b) { return std::to_string(b) + " B"; }

// The stage method over one cache: s = line, N = C - 2b .. C + (extra lines)*b.
Run stages(const std::string& profile, const std::string& path, std::uint64_t size, std::uint64_t line,
           std::uint64_t extra, const std::vector<std::string>& more = {}) {
  std::vector<std::string> sets{"path=" + path, "array.stride=" + bytes(line),
                                "sweep.array.size={from: " + bytes(size - 2 * line) + ", to: " +
                                    bytes(size + extra * line) + ", step: " + bytes(line) + "}"};
  sets.insert(sets.end(), more.begin(), more.end());
  return run("stages.yaml", profile, sets);
}

void check_sets(const Run& r, const json& cache, bool bit_defined) {
  const json f = r.finding("sets");
  INFO(f.dump());
  CHECK(f["value"] == cache["sets"]);
  CHECK(f["details"]["ways"] == cache["ways"]);
  CHECK(f["details"]["size_bytes"] == cache["size_bytes"]);
  CHECK(f["details"]["line_bytes"] == cache["line_bytes"]);
  CHECK(f["details"]["lines_per_block"] == blocked_lines(cache));
  CHECK(f["details"]["bit_defined"] == bit_defined);
  CHECK(f["confidence"].get<double>() > 0.7);
}

void check_size(const Run& r, std::uint64_t truth, std::uint64_t step) {
  const json f = r.finding("cache_size");
  INFO(f.dump());
  INFO(r.output);
  REQUIRE(f["value"].is_number());
  const auto v = f["value"].get<std::uint64_t>();
  CHECK(v <= truth);
  CHECK(v + step > truth);  // within one sweep step
  CHECK(f["confidence"].get<double>() > 0.8);
}

void check_tlb(const Run& r) {
  const json f = r.finding("tlb");
  INFO(f.dump());
  const json& truth = r.truth["tlb"];
  REQUIRE(f["value"] == truth.size());
  for (std::size_t i = 0; i < truth.size(); ++i) {
    const json& l = f["details"]["levels"][i];
    CHECK(l["entries"] == truth[i]["entries"]);
    CHECK(l["coverage_bytes"] == truth[i]["entries"].get<std::uint64_t>() * truth[i]["page_bytes"].get<std::uint64_t>());
    CHECK(l["miss_penalty_cycles"].get<double>() ==
          doctest::Approx(truth[i]["miss_penalty_cycles"].get<double>()).epsilon(0.1));
    CHECK(l["sets"] == truth[i]["sets"]);
    auto got = l["set_sizes"].get<std::vector<int>>();
    auto want = truth[i]["set_ways"].get<std::vector<int>>();
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    CHECK(got == want);
  }
}

}  // namespace

TEST_CASE("e2e sim: Fermi GTX 560 Ti (seed profile)") {
  const std::string p = "fermi-gtx560ti";
  SUBCASE("L1 (16 KiB at 48 KiB shared): size, sets and ways, non-LRU, way probabilities") {
    Run r = run("size_sweep.yaml", p,
                {"carveout=75", "sweep.array.size={from: 8 KiB, to: 32 KiB, step: 512 B}"});
    const json l1 = r.truth["caches"]["l1"];
    std::uint64_t c = 0;
    for (const auto& cfg : l1["carveout"]["configs"])
      if (cfg["shared_bytes"] == 49152) c = cfg["size_bytes"];
    REQUIRE(c == 16384);
    check_size(r, c, 512);

    r = stages(p, "ca", c, l1["line_bytes"], 40, {"carveout=75"});
    check_sets(r, l1, true);
    CHECK(r.finding("replacement")["value"] == "non-lru");

    r = run("replacement.yaml", p, {"carveout=75", "array.size=" + bytes(c + 128)});
    const json f = r.finding("replacement");
    INFO(f.dump());
    CHECK(f["value"] == "non-lru");
    auto probs = f["details"]["way_probabilities_sorted"].get<std::vector<double>>();
    REQUIRE(probs.size() == 4);
    CHECK(probs[0] == doctest::Approx(3.0 / 6).epsilon(0.1));  // weights 1, 3, 1, 1 of the profile
    for (int i = 1; i < 4; ++i) CHECK(probs[static_cast<std::size_t>(i)] == doctest::Approx(1.0 / 6).epsilon(0.25));
  }
  SUBCASE("texture L1: size, 4 sets of 96 lines in blocks of 4, LRU, 32 B lines") {
    const Run sz = run("size_sweep.yaml", p, {"path=tex", "sweep.array.size={from: 8 KiB, to: 16 KiB, step: 256 B}"});
    const Run st = stages(p, "tex", 12288, 32, 20);
    const json tex = st.truth["caches"]["tex_l1"];
    check_size(sz, tex["size_bytes"], 256);
    check_sets(st, tex, true);
    CHECK(st.finding("replacement")["value"] == "lru");
    const Run ln = run("line.yaml", p,
                       {"path=tex", "sweep={zip: [{array.size: [24 KiB, 12292 B, 12 KiB, 24 KiB], "
                                    "array.stride: [4 B, 4 B, 4 B, 128 B]}]}"});
    const json f = ln.finding("line_size");
    INFO(f.dump());
    CHECK(f["value"] == tex["line_bytes"]);
    CHECK(f["details"]["lines_per_block"] == blocked_lines(tex));
  }
  SUBCASE("TLBs: 16 entries fully associative, 65 in unequal sets; 2 MiB pages; shared banks") {
    check_tlb(run("tlb.yaml", p));
    const Run pg = run("page.yaml", p, {"array.size=1 GiB", "sweep.array.stride={from: 64 KiB, to: 64 MiB, factor: 2}"});
    CHECK(pg.finding("page_size")["value"] == pg.truth["tlb"][0]["page_bytes"]);
    const Run sh = run("shared.yaml", p);
    CHECK(sh.finding("bank_conflicts")["value"] == sh.truth["shared"]["banks"]);
    CHECK(sh.finding("bank_conflicts")["details"]["bank_width_bytes"] == sh.truth["shared"]["bank_width_bytes"]);
  }
  SUBCASE("adaptive knee search") {
    const Run r = run("size_search.yaml", p, {"carveout=75"});
    check_size(r, 16384, 128);
    REQUIRE(r.bundle.contains("adaptive_search"));  // the search log (engine/run/adaptive_search.cpp)
  }
}

TEST_CASE("e2e sim: Kepler GTX 780 and Maxwell GTX 980 (seed profiles)") {
  SUBCASE("Kepler: a 6-cycle L1 TLB penalty under 3 cycles of jitter; LRU L1; shared texture paths") {
    check_tlb(run("tlb.yaml", "kepler-gtx780"));
    CHECK(run("replacement.yaml", "kepler-gtx780", {"carveout=75"}).finding("replacement")["value"] == "lru");
    CHECK(run("sharing.yaml", "kepler-gtx780", {"arrays.a.path=ldg"}).finding("sharing")["value"] == true);
    CHECK(run("sharing.yaml", "kepler-gtx780").finding("sharing")["value"] == false);
    const Run a = run("amount.yaml", "kepler-gtx780");
    CHECK(a.finding("amount")["value"] == a.truth["caches"]["tex_l1"]["per_sm"]);
  }
  SUBCASE("Maxwell: the texture cache is split in two and serves ld.global.ca") {
    const Run a = run("amount.yaml", "maxwell-gtx980", {"arrays.base.size=16 KiB", "arrays.test.size=16 KiB"});
    INFO(a.finding("amount").dump());
    CHECK(a.finding("amount")["value"] == a.truth["caches"]["tex_l1"]["per_sm"]);
    CHECK(run("sharing.yaml", "maxwell-gtx980", {"arrays.a.size=16 KiB", "arrays.b.size=16 KiB"})
              .finding("sharing")["value"] == true);
  }
}

TEST_CASE("e2e sim: invented profile an-odd (48 and 20 sets, blocked FIFO texture, unequal TLB sets)") {
  const std::string p = "an-odd.yaml";
  const Run sz = run("size_sweep.yaml", p, {"sweep.array.size={from: 8 KiB, to: 40 KiB, step: 512 B}"});
  const json l1 = sz.truth["caches"]["l1"];
  const json tex = sz.truth["caches"]["tex_l1"];
  check_size(sz, l1["size_bytes"], 512);
  check_size(run("size_sweep.yaml", p, {"path=tex", "sweep.array.size={from: 4 KiB, to: 20 KiB, step: 256 B}"}),
             tex["size_bytes"], 256);
  check_sets(stages(p, "ca", l1["size_bytes"], l1["line_bytes"], 52), l1, true);
  const Run ts = stages(p, "tex", tex["size_bytes"], tex["line_bytes"], 44);
  check_sets(ts, tex, true);
  CHECK(ts.finding("replacement")["value"] == "lru");  // FIFO: periodic on a cycle, like LRU
  const Run ln = run("line.yaml", p,
                     {"path=tex", "sweep={zip: [{array.size: [20 KiB, 10244 B, 10 KiB, 16 KiB], "
                                  "array.stride: [4 B, 4 B, 4 B, 128 B]}]}"});
  CHECK(ln.finding("line_size")["value"] == tex["line_bytes"]);
  CHECK(ln.finding("line_size")["details"]["lines_per_block"] == blocked_lines(tex));
  check_tlb(run("tlb.yaml", p, {"array.stride=64 KiB", "sweep.array.size={from: 64 KiB, to: 3 MiB, step: 64 KiB}"}));
  const Run pg = run("page.yaml", p);
  CHECK(pg.finding("page_size")["value"] == pg.truth["tlb"][0]["page_bytes"]);
  const Run sh = run("shared.yaml", p);
  CHECK(sh.finding("bank_conflicts")["value"] == sh.truth["shared"]["banks"]);
  CHECK(sh.finding("bank_conflicts")["details"]["bank_width_bytes"] == sh.truth["shared"]["bank_width_bytes"]);
}

TEST_CASE("e2e sim: invented profile an-sectored (sectors, hashed 40-set mapping, random replacement)") {
  const std::string p = "an-sectored.yaml";
  const Run sz = run("size_sweep.yaml", p, {"sweep.array.size={from: 8 KiB, to: 40 KiB, step: 512 B}"});
  const json l1 = sz.truth["caches"]["l1"];
  check_size(sz, l1["size_bytes"], 512);
  check_size(run("size_search.yaml", p), l1["size_bytes"], 128);
  // Chain timing (one average per chain), as the topology's L1-family size steps run:
  // the search narrows on median averages, the analyzer reads the same.
  const std::vector<std::string> chain{"timing.mode=chain", "timing.clock=clock64", "repeats=3", "iterations=16384"};
  check_size(run("size_search.yaml", p, chain), l1["size_bytes"], 128);
  // The allocation line beyond the 32 B sector, by occupancy: one access per block of
  // b bytes at a random word over N = 1.25 C (line_capacity), with chain timing.
  std::vector<std::string> blocks = chain;
  for (const char* s : {"array.size=25 KiB", "array.stride=4 B", "array.pattern=page_random", "array.page=32 B",
                        "sweep={array.page: [32 B, 64 B, 128 B, 256 B, 512 B, 1 KiB]}", "analyzers=[line_capacity]"})
    blocks.emplace_back(s);
  const Run lb = run("size_search.yaml", p, blocks);
  INFO(lb.finding("line_capacity").dump());
  CHECK(lb.finding("line_capacity")["value"] == l1["line_bytes"]);
  // A hashed mapping needs more steps than sets: the table repeats every 160 lines.
  const Run st = stages(p, "ca", l1["size_bytes"], l1["line_bytes"], 162);
  check_sets(st, l1, false);
  CHECK(st.finding("replacement")["value"] == "non-lru");
  const Run ln = run("line.yaml", p,
                     {"sweep={zip: [{array.size: [40 KiB, 20484 B, 20 KiB, 40 KiB], "
                      "array.stride: [4 B, 4 B, 4 B, 128 B]}]}"});
  const json f = ln.finding("line_size");
  INFO(f.dump());
  CHECK(f["value"] == l1["line_bytes"]);
  CHECK(f["details"]["fetch_bytes"] == l1["sector_bytes"]);
  check_tlb(run("tlb.yaml", p, {"sweep.array.size={from: 2 MiB, to: 80 MiB, step: 2 MiB}"}));
  const Run pg =
      run("page.yaml", p, {"array.size=1 GiB", "sweep.array.stride={from: 16 KiB, to: 16 MiB, factor: 2}"});
  CHECK(pg.finding("page_size")["value"] == pg.truth["tlb"][0]["page_bytes"]);
}

TEST_CASE("e2e sim: a sweep below the knee gives no invented value") {
  const Run r = run("size_sweep.yaml", "an-odd.yaml", {"sweep.array.size={from: 1 KiB, to: 16 KiB, step: 1 KiB}"});
  const json f = r.finding("cache_size");
  CHECK(f["value"].is_null());
  CHECK(f["confidence"] == 0);
  CHECK(f["details"]["reason"].get<std::string>().find("above the largest N (16 KiB)") != std::string::npos);
}

// The TLB profiles of issue 16 (specs/devices/tlb-*.yaml) through single specs:
// one stride, one page at a time, and the page-size sweeps from 4 KiB.
TEST_CASE("e2e sim: TLB profiles - additive penalties over near/far L2 halves, 64 KiB pages, coalesced entries") {
  SUBCASE("tlb-three: the fully associative second level alone, its own +40 over the first's miss") {
    // 500 .. 530 pages of 2 MiB: the first level (16) misses at every N, the
    // second (512, fully associative) runs out at 512; far L2 pages answer 30
    // cycles later than near ones throughout.
    const Run r = run("tlb.yaml", "tlb-three",
                      {"sweep.array.size={from: 1048576000 B, to: 1111490560 B, step: 2 MiB}", "iterations=4096"});
    const json f = r.finding("tlb");
    INFO(f.dump().substr(0, 3000));
    const json& truth = r.truth["tlb"][1];
    REQUIRE(f["value"] == 1);
    const json& l = f["details"]["levels"][0];
    CHECK(l["entries"] == truth["entries"]);
    CHECK(l["associativity"] == "full");
    CHECK(l["miss_penalty_cycles"].get<double>() ==
          doctest::Approx(truth["miss_penalty_cycles"].get<double>()).epsilon(0.1));
  }
  SUBCASE("tlb-64k: a page-size sweep from 4 KiB finds 64 KiB; the seed spec of Meltzer et al. too") {
    const Run pg = run("page.yaml", "tlb-64k");
    INFO(pg.finding("page_size").dump().substr(0, 3000));
    CHECK(pg.finding("page_size")["value"] == pg.truth["tlb"][0]["page_bytes"]);
    dissect::test::TempDir dir;
    const auto res = dissect::test::run_dissect("run '" + std::string(DISSECT_SOURCE_DIR) +
                                                "/specs/meltzer/page_size.yaml' --device sim:tlb-64k --out '" +
                                                dir.path() + "' -q");
    json findings;
    for (const auto& e : fs::directory_iterator(dir.path()))
      findings = json::parse(dissect::test::read_file((e.path() / "findings.json").string()))["findings"];
    for (const auto& f : findings)
      if (f["analyzer"] == "page_size") CHECK(f["value"] == pg.truth["tlb"][0]["page_bytes"]);
  }
  SUBCASE("tlb-coalesced: the page-size sweep saturates at the entries' reach, said to be no page size") {
    const Run pg = run("page.yaml", "tlb-coalesced", {"array.size=1 GiB", "sweep.array.stride={from: 4 KiB, to: 128 MiB, factor: 2}"});
    const json f = pg.finding("page_size");
    INFO(f.dump().substr(0, 3000));
    CHECK(f["value"].is_null());
    CHECK(f["details"]["saturation_stride_bytes"] == pg.truth["tlb"][0]["reach_bytes"]);
    CHECK(f["details"]["not_a_page_size"] == true);
  }
}
