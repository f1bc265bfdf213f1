// The analysis part of a spec (analyzers with parameters, expectations),
// decoded on its own: what `dissect analyze` reads from a bundle's record.
#include "engine/spec/analysis_section.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

using namespace dissect;

TEST_CASE("analysis section: analyzers with parameters and expectations, in the spec's order") {
  const SpecNode root = parse_yaml(
      "array: {size: 1 KiB}\n"
      "analyzers:\n"
      "  - latency_levels\n"
      "  - cache_size: {threshold: 0.4}\n"
      "expect: ['line_size == 128 B', 'cache_size.details.ways >= 4']\n",
      "s.yaml");
  Diagnostics d;
  const AnalysisSection s = decode_analysis_section(root, d);
  CHECK(d.empty());
  REQUIRE(s.analyzers.size() == 2);
  CHECK(s.analyzers[0].name == "latency_levels");
  CHECK(s.analyzers[0].params_json == "{}");
  CHECK(s.analyzers[1].name == "cache_size");
  CHECK(nlohmann::json::parse(s.analyzers[1].params_json) == nlohmann::json{{"threshold", "0.4"}});
  CHECK(s.analyzers[1].loc.line == 4);
  REQUIRE(s.expectations.size() == 2);
  CHECK(s.expectations[0].finding == "line_size");
  CHECK(s.expectations[0].op == "==");
  CHECK(s.expectations[0].value == "128 B");
  CHECK(s.expectations[1].op == ">=");
  CHECK(s.expectations[1].finding == "cache_size.details.ways");
}

TEST_CASE("analysis section: a spec without one has none; mistakes are said at their line") {
  Diagnostics d;
  CHECK(decode_analysis_section(parse_yaml("array: {size: 1 KiB}\nanalyzers:\n", "s.yaml"), d).analyzers.empty());
  CHECK(d.empty());
  CHECK(decode_analysis_section(parse_yaml("- a\n- b\n", "s.yaml"), d).analyzers.empty());
  CHECK(d.empty());  // not a mapping: the experiment decoder says so

  const SpecNode bad = parse_yaml(
      "analyzers: [summary, {cache_size: 3}, [x]]\n"
      "expect: ['line_size', {a: b}]\n",
      "s.yaml");
  const AnalysisSection s = decode_analysis_section(bad, d);
  REQUIRE(s.analyzers.size() == 1);
  CHECK(s.analyzers[0].name == "summary");
  CHECK(s.expectations.empty());
  const std::string all = d.str();
  CHECK(all.find("analyzers: parameters of 'cache_size' must be a mapping") != std::string::npos);
  CHECK(all.find("analyzers: each entry is a name or 'name: {param: value}'") != std::string::npos);
  CHECK(all.find("s.yaml:2:10: expect: 'line_size' has no comparison") != std::string::npos);
  CHECK(all.find("expect: expected a condition such as 'line_size == 128 B', got") != std::string::npos);
}
