// What `dissect analyze BUNDLE` runs by default: the recorded expanded spec's
// analyzers; an older bundle's spec text; summary, never without saying why.
#include "engine/run/bundle_analysis_plan.hpp"

#include <doctest/doctest.h>

#include "support/temp_dir.hpp"

using namespace dissect;
using dissect::test::TempDir;

namespace {

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

}  // namespace

TEST_CASE("bundle analysis plan: the expanded spec's analyzers and parameters, no file read") {
  // The text includes a base that exists nowhere: the expanded form has it merged.
  const nlohmann::json header{
      {"spec",
       {{"path", "/nowhere/specs/s.yaml"},
        {"text", "dissect: 1\ninclude: ../base/gone.yaml\narray: {size: 1 KiB}\n"},
        {"expanded",
         "dissect: 1\nkernel: pchase\narray: {size: 1 KiB}\n"
         "analyzers: [latency_levels, {cache_size: {threshold: 0.4}}]\nexpect: ['cache_size > 0 B']\n"}}}};
  const BundleAnalysisPlan plan = plan_bundle_analysis(header, "b");
  CHECK(plan.warnings.empty());
  CHECK(plan.source == "the expanded spec recorded in bundle.json");
  REQUIRE(plan.requests.size() == 2);
  CHECK(plan.requests[0].analyzer == "latency_levels");
  CHECK(plan.requests[1].analyzer == "cache_size");
  CHECK(plan.requests[1].params == nlohmann::json{{"threshold", "0.4"}});
  REQUIRE(plan.expectations.size() == 1);
  CHECK(plan.expectations[0].text == "cache_size > 0 B");
}

TEST_CASE("bundle analysis plan: a spec that names no analyzers gets summary, as before, quietly") {
  const nlohmann::json header{{"spec", {{"path", "s.yaml"}, {"expanded", "dissect: 1\narray: {size: 1 KiB}\n"}}}};
  const BundleAnalysisPlan plan = plan_bundle_analysis(header, "b");
  CHECK(plan.warnings.empty());
  REQUIRE(plan.requests.size() == 1);
  CHECK(plan.requests[0].analyzer == "summary");
}

TEST_CASE("bundle analysis plan: an older bundle (no expanded spec) loads its text; includes from disk are said") {
  TempDir dir;
  SUBCASE("no include: the text alone, quietly") {
    const nlohmann::json header{
        {"spec", {{"path", dir.file("s.yaml")}, {"text", "dissect: 1\narray: {size: 1 KiB}\nanalyzers: [line_size]\n"}}}};
    const BundleAnalysisPlan plan = plan_bundle_analysis(header, "b");
    CHECK(plan.warnings.empty());
    REQUIRE(plan.requests.size() == 1);
    CHECK(plan.requests[0].analyzer == "line_size");
  }
  SUBCASE("an include that still resolves: used, and said to be read now") {
    dir.write("base.yaml", "dissect: 1\nabstract: true\nanalyzers: [line_size]\n");
    const nlohmann::json header{
        {"spec", {{"path", dir.file("s.yaml")}, {"text", "dissect: 1\ninclude: base.yaml\narray: {size: 1 KiB}\n"}}}};
    const BundleAnalysisPlan plan = plan_bundle_analysis(header, "b");
    REQUIRE(plan.requests.size() == 1);
    CHECK(plan.requests[0].analyzer == "line_size");
    REQUIRE(plan.warnings.size() == 1);
    CHECK(plan.warnings[0].find("records no expanded spec") != std::string::npos);
    CHECK(plan.warnings[0].find(dir.file("base.yaml")) != std::string::npos);
  }
  SUBCASE("an include that no longer resolves: summary, and the warning names the include") {
    const nlohmann::json header{
        {"spec", {{"path", dir.file("s.yaml")}, {"text", "dissect: 1\ninclude: ../base/gone.yaml\narray: {size: 1 KiB}\n"}}}};
    const BundleAnalysisPlan plan = plan_bundle_analysis(header, "b");
    REQUIRE(plan.requests.size() == 1);
    CHECK(plan.requests[0].analyzer == "summary");
    REQUIRE(plan.warnings.size() == 1);
    const std::string w = plan.warnings[0];
    CHECK(w.find("bundle.json records no expanded spec") != std::string::npos);
    CHECK(w.find("include: file '../base/gone.yaml' not found") != std::string::npos);
    CHECK(w.find("running summary instead") != std::string::npos);
  }
}

TEST_CASE("bundle analysis plan: an expanded spec that does not decode falls back, saying so") {
  const nlohmann::json header{
      {"spec",
       {{"path", "s.yaml"},
        {"text", "dissect: 1\narray: {size: 1 KiB}\nanalyzers: [line_size]\n"},
        {"expanded", "dissect: 1\nanalyzers: 3\n"}}}};
  const BundleAnalysisPlan plan = plan_bundle_analysis(header, "b");
  REQUIRE(plan.requests.size() == 1);
  CHECK(plan.requests[0].analyzer == "line_size");
  REQUIRE(plan.warnings.size() == 1);
  CHECK(plan.warnings[0].find("b/bundle.json spec.expanded:2:12: analyzers: expected a list") != std::string::npos);
  CHECK(plan.warnings[0].find("the spec text recorded in bundle.json is used") != std::string::npos);

  const BundleAnalysisPlan none = plan_bundle_analysis(nlohmann::json{{"status", "complete"}}, "b");
  REQUIRE(none.requests.size() == 1);
  CHECK(none.requests[0].analyzer == "summary");
  CHECK(joined(none.warnings).find("records no expanded spec; bundle.json records no spec text; running summary "
                                   "instead") != std::string::npos);
}
