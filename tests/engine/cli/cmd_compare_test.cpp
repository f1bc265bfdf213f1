// dissect compare: --help, exit statuses, the three output forms.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

using dissect::test::run_dissect;
using dissect::test::TempDir;

namespace {
const std::string kRes = std::string(DISSECT_SOURCE_DIR) + "/results/";
const std::string kRuns = kRes + "h100/topology/final/run1.json " + kRes + "h100/topology/final/run2.json " + kRes +
                          "h200/topology/run1.json";
}  // namespace

TEST_CASE("compare: --help, and bad arguments exit 2") {
  const auto h = run_dissect("compare --help");
  CHECK(h.status == 0);
  CHECK(h.output.find("Usage: dissect compare") != std::string::npos);
  CHECK(run_dissect("compare").status == 2);
  CHECK(run_dissect("compare " + kRes + "h200/topology/run1.json").status == 2);
  CHECK(run_dissect("compare " + kRes + "h200/topology/run1.json /nonexistent").status == 2);
  CHECK(run_dissect("compare " + kRuns + " --label a").status == 2);
  CHECK(run_dissect("compare " + kRuns + " --json --markdown").status == 2);
}

TEST_CASE("compare: terminal, Markdown and JSON") {
  const auto t = run_dissect("compare " + kRuns);
  CHECK(t.status == 0);
  CHECK(t.output.find("h100/final/run1") != std::string::npos);
  CHECK(t.output.find("2 runs of H100 80GB HBM3 stable") != std::string::npos);
  CHECK(t.output.find("**") == std::string::npos);
  TempDir dir;
  const auto m = run_dissect("compare " + kRuns + " --markdown --label A --label B --label C -o " + dir.file("c.md"));
  CHECK(m.status == 0);
  const std::string md = dissect::test::read_file(dir.file("c.md"));
  CHECK(md.find("| figure | A | B | C | tolerance | verdict |") != std::string::npos);
  CHECK(md.find("**differs**") != std::string::npos);
  const auto j = run_dissect("compare --json " + kRuns);
  CHECK(j.status == 0);
  const auto parsed = nlohmann::json::parse(j.output);
  CHECK(parsed["devices"].size() == 2);
  CHECK(parsed["rows"].is_array());
}
