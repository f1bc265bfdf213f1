#include <doctest/doctest.h>

#include "engine/report/markdown_writer.hpp"

using namespace dissect::report;

TEST_CASE("finding values carry their units; sizes in binary units") {
  CHECK(finding_value_text({{"value", 16384}, {"unit", "B"}}) == "16 KiB (16384 B)");
  CHECK(finding_value_text({{"value", 128}, {"unit", "B"}}) == "128 B");
  CHECK(finding_value_text({{"value", 412.25}, {"unit", "cycles"}}) == "412.25 cycles");
  CHECK(finding_value_text({{"value", "lru"}, {"unit", ""}}) == "lru");
  CHECK(finding_value_text({{"value", nullptr}, {"unit", "sets"}}) == "undetermined");
}

TEST_CASE("findings and expectations tables") {
  const nlohmann::json findings = {
      {{"analyzer", "line_size"}, {"value", 128}, {"unit", "B"}, {"confidence", 0.875}, {"summary", "a | b"}},
      {{"analyzer", "sets"}, {"value", nullptr}, {"confidence", 0}, {"details", {{"reason", "too few points"}}}}};
  const std::string t = findings_table(findings);
  CHECK(t.rfind("| analyzer | value | confidence | summary |\n| --- | --- | --- | --- |\n", 0) == 0);
  CHECK(t.find("| `line_size` | 128 B | 0.88 | a \\| b |") != std::string::npos);
  CHECK(t.find("| `sets` | undetermined | 0.00 | too few points |") != std::string::npos);
  CHECK(findings_table(nlohmann::json::array()).empty());

  const nlohmann::json ex = {{{"expect", "sets == 4"}, {"outcome", "fail"}, {"actual", "2"}, {"message", "FAILS"}},
                             {{"expect", "x > 1"}, {"outcome", "unknown"}, {"actual", ""}, {"message", "?"}}};
  const std::string e = expectations_table(ex);
  CHECK(e.find("| `sets == 4` | **FAIL** | 2 | FAILS |") != std::string::npos);
  CHECK(e.find("| `x > 1` | *unknown* |") != std::string::npos);
}

TEST_CASE("run table: device, spec, tool, wall time, status") {
  ExperimentData d;
  d.dir = "runs/x";
  d.header = {{"spec", {{"name", "mei_stage2"}, {"description", "sets"}, {"source", "Mei & Chu"}, {"points", 4}}},
              {"device", {{"name", "NVIDIA H200"}, {"compute_capability", "9.0"}, {"sm_clock_khz", 1980000}}},
              {"tool", {{"name", "dissect"}, {"version", "0.1.0"}, {"git_revision", "abc123"}}},
              {"started", "2026-01-01T00:00:00Z"},
              {"finished", "2026-01-01T00:00:09Z"},
              {"timings", {{"wall_ms", 9000}, {"kernel_ms", 1500}, {"compile_ms", 700}}},
              {"status", "interrupted"}};
  d.points.resize(3);
  d.points[2].status = "failed: launch";
  d.trace_rows = 300;
  const std::string t = run_table(d);
  CHECK(t.find("| spec | mei_stage2: sets |") != std::string::npos);
  CHECK(t.find("| source | Mei & Chu |") != std::string::npos);
  CHECK(t.find("| device | NVIDIA H200 (compute capability 9.0, SM clock 1980 MHz) |") != std::string::npos);
  CHECK(t.find("| tool | dissect 0.1.0 (git abc123) |") != std::string::npos);
  CHECK(t.find("| wall time | 9.00 s (kernels 1.50 s, compile 700 ms) |") != std::string::npos);
  CHECK(t.find("| status | interrupted: 3 points committed (1 failed) of 4, 300 samples |") != std::string::npos);
}

TEST_CASE("markdown helpers") {
  CHECK(markdown_anchor("mei_texture_l1 stage2") == "mei_texture_l1-stage2");
  CHECK(markdown_table({"a", "b"}, {{"1"}}) == "| a | b |\n| --- | --- |\n| 1 |  |\n");
}
