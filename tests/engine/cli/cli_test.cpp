// End-to-end tests of the dissect binary: exit statuses, messages, files.
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

using dissect::test::run_dissect;
using dissect::test::TempDir;

TEST_CASE("--help answers on every verb, --version names the git revision") {
  for (const char* verb : {"validate", "run", "list", "analyze", "report", "topology", "export", "compare"}) {
    const auto r = run_dissect(std::string(verb) + " --help");
    CAPTURE(verb);
    CHECK(r.status == 0);
    CHECK(r.output.find("Usage: dissect " + std::string(verb)) != std::string::npos);
  }
  const auto h = run_dissect("--help");
  CHECK(h.status == 0);
  CHECK(h.output.find("Exit status") != std::string::npos);
  const auto v = run_dissect("--version");
  CHECK(v.status == 0);
  CHECK(v.output.find("(git ") != std::string::npos);
  // Where the data is read (an installed binary: <prefix>/share/dissect; tests/install/install_test.sh).
  CHECK(v.output.find("\nspecs:     ") != std::string::npos);
  CHECK(v.output.find("\ntemplates: ") != std::string::npos);
  CHECK(run_dissect("frobnicate").status == 2);
  CHECK(run_dissect("").status == 2);
}

TEST_CASE("validate: counts points, rejects bad specs with file:line:col and status 2, writes nothing") {
  TempDir dir;
  const std::string good = dir.write("good.yaml",
                                     "dissect: 1\narray: {size: 1 KiB}\nsweep:\n  array.size: [1 KiB, 2 KiB, 4 KiB]\n");
  const std::string bad = dir.write("bad.yaml", "dissect: 1\narray: {size: 1 KiB, strde: 8 B}\n");
  auto r = run_dissect("validate " + good);
  CHECK(r.status == 0);
  CHECK(r.output.find("good.yaml: 3 points") != std::string::npos);
  r = run_dissect("validate " + good + " " + bad);
  CHECK(r.status == 2);
  CHECK(r.output.find("bad.yaml:2:22: unknown key 'array.strde'; did you mean 'array.stride'?") != std::string::npos);
  CHECK(r.output.find("1 valid, 1 invalid") != std::string::npos);
  // A directory is searched; nothing is written into it.
  const auto before = std::distance(std::filesystem::directory_iterator(dir.path()), {});
  r = run_dissect("validate " + dir.path());
  CHECK(r.status == 2);
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), {}) == before);
  r = run_dissect("validate " + good + " --set array.size=512KiB --max-points 2");
  CHECK(r.status == 2);
  CHECK(r.output.find("sweep expands to 3 points, more than the limit of 2") != std::string::npos);
  r = run_dissect("validate " + good + " --set nonsense");
  CHECK(r.status == 2);
  CHECK(r.output.find("expected key=value") != std::string::npos);
}

TEST_CASE("validate: unknown analyzers are caught before any run") {
  TempDir dir;
  const std::string s = dir.write("s.yaml", "dissect: 1\narray: {size: 1 KiB}\nanalyzers: [sumary]\n");
  const auto r = run_dissect("validate " + s);
  CHECK(r.status == 2);
  CHECK(r.output.find("s.yaml:3:13: analyzers: unknown analyzer 'sumary'; did you mean 'summary'?") !=
        std::string::npos);
}

TEST_CASE("run --dry-run prints the expanded points and writes nothing") {
  TempDir dir;
  const std::string s = dir.write(
      "s.yaml", "dissect: 1\npath: tex\narray: {size: 1 KiB}\nsweep:\n  array.size: {from: 3080, to: 3096, step: 8, "
                "unit: elements}\n");
  const auto r = run_dissect("run --dry-run --out " + dir.file("out") + " " + s);
  CHECK(r.status == 0);
  CHECK(r.output.find("3 point(s)") != std::string::npos);
  CHECK(r.output.find("#2 array.size=3096 elements") != std::string::npos);
  CHECK(r.output.find("path=tex") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.file("out")));
}

TEST_CASE("run --dry-run shows generated kernels where the device family has them") {
  TempDir dir;
  const std::string s = dir.write("s.yaml", "dissect: 1\narray: {size: 1 KiB}\n");
  // CUDA (the default device): the kernel source, without a GPU (sm_90 unless --arch).
  auto r = run_dissect("run --dry-run --arch sm_80 " + s);
  CHECK(r.status == 0);
  CHECK(r.output.find("// ===== kernel") != std::string::npos);
  CHECK(r.output.find("-sm_80") != std::string::npos);
  // The simulated device has no generated kernels: its factory offers no preview.
  r = run_dissect("run --dry-run --device sim:fermi-gtx560ti " + s);
  CHECK(r.status == 0);
  CHECK(r.output.find("1 point(s)") != std::string::npos);
  CHECK(r.output.find("===== kernel") == std::string::npos);
}

TEST_CASE("run validates every spec before running any") {
  TempDir dir;
  const std::string good = dir.write("good.yaml", "dissect: 1\narray: {size: 1 KiB}\n");
  const std::string bad = dir.write("bad.yaml", "dissect: 1\narray: {size: 0 B}\n");
  const auto r = run_dissect("run --device sim:nothing --out " + dir.file("out") + " " + good + " " + bad);
  CHECK(r.status == 2);
  CHECK(r.output.find("bad.yaml:2:15: array.size must be larger than zero") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.file("out")));
}

TEST_CASE("run on an unknown device explains how to pick one") {
  TempDir dir;
  const std::string good = dir.write("good.yaml", "dissect: 1\narray: {size: 1 KiB}\n");
  const auto r = run_dissect("run --device nonsense --out " + dir.file("out") + " " + good);
  CHECK(r.status == 1);
  CHECK(r.output.find("no device 'nonsense'") != std::string::npos);
}

TEST_CASE("analyze --trace: findings as JSON lines; bad files get file:line and status 2") {
  TempDir dir;
  std::ostringstream csv;
  csv << "size_bytes,stride_bytes,seq,offset_bytes,latency\n";
  for (int i = 0; i < 64; ++i) csv << "12292,4," << i << "," << 4 * i << "," << (i % 8 == 0 ? 488 : 250) << "\n";
  const std::string trace = dir.write("t.csv", csv.str());
  auto r = run_dissect("analyze --trace " + trace + " --analyzer summary --json");
  CHECK(r.status == 0);
  const auto j = nlohmann::json::parse(r.output.substr(0, r.output.find('\n')));
  for (const char* key : {"analyzer", "value", "unit", "confidence", "details"}) CHECK(j.contains(key));
  CHECK(j["analyzer"] == "summary");
  CHECK(j["value"] == 250);

  const std::string bad = dir.write("bad.csv", "size_bytes,stride_bytes,seq,offset_bytes,latency\n4,4,0,0,x\n");
  r = run_dissect("analyze --trace " + bad);
  CHECK(r.status == 2);
  CHECK(r.output.find("bad.csv:2: column 'latency': 'x' is not a number") != std::string::npos);
  r = run_dissect("analyze --trace " + dir.write("empty.csv", ""));
  CHECK(r.status == 2);
  CHECK(r.output.find("empty.csv:1: empty file") != std::string::npos);
  r = run_dissect("analyze --trace " + trace + " --analyzer nope");
  CHECK(r.status == 2);
  r = run_dissect("analyze " + dir.file("no-bundle"));
  CHECK(r.status == 2);
  CHECK(r.output.find("not a bundle directory") != std::string::npos);
}

TEST_CASE("list") {
  auto r = run_dissect("list analyzers");
  CHECK(r.status == 0);
  CHECK(r.output.find("summary") != std::string::npos);
  CHECK(run_dissect("list devices").status == 0);
  CHECK(run_dissect("list specs").status == 0);
  CHECK(run_dissect("list everything").status == 2);
}

TEST_CASE("topology writes topology.json, the bundles and the report; report DIR rewrites the report") {
  TempDir dir;
  const std::string out = dir.file("topo");
  const auto r = run_dissect("topology --device sim:fermi-gtx560ti --fast --only l1_size --only l1_latency --out " +
                             out + " --quiet");
  CAPTURE(r.output);
  REQUIRE(r.status == 0);
  CHECK(std::filesystem::exists(out + "/topology.json"));
  CHECK(std::filesystem::exists(out + "/topology_l1_size/bundle.json"));
  CHECK(std::filesystem::exists(out + "/report/report.md"));
  CHECK(r.output.find("report: " + out + "/report/report.md") != std::string::npos);

  const auto again = run_dissect("report " + out + " --out " + dir.file("again") + " --no-render");
  CAPTURE(again.output);
  CHECK(again.status == 0);
  const std::string md = dissect::test::read_file(dir.file("again/report.md"));
  CHECK(md.find("## Caches and memories") != std::string::npos);
  CHECK(std::filesystem::exists(dir.file("again/topology_l1_size")));
  // A topology directory mixed with bundles is refused (its report has its own layout).
  CHECK(run_dissect("report " + out + " " + out + "/topology_l1_size --out " + dir.file("mixed")).status == 2);
  CHECK(run_dissect("topology --device sim:fermi-gtx560ti --no-report --only l1_latency --quiet --out " +
                    dir.file("plain")).status == 0);
  CHECK_FALSE(std::filesystem::exists(dir.file("plain/report")));
}
