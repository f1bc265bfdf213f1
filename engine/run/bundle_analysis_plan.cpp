#include "engine/run/bundle_analysis_plan.hpp"

#include <optional>

#include "engine/core/diagnostics.hpp"
#include "engine/spec/analysis_section.hpp"
#include "engine/spec/spec.hpp"
#include "engine/spec/spec_node.hpp"

namespace dissect {
namespace {

// A spec's diagnostics on one line: warnings are one line each.
std::string one_line(const Diagnostics& d) {
  std::string s;
  for (const auto& e : d.errors()) s += (s.empty() ? "" : "; ") + e.str();
  return s;
}

std::string names_of(const std::vector<AnalysisRequest>& requests) {
  std::string s;
  for (const auto& r : requests) s += (s.empty() ? "" : ", ") + r.analyzer;
  return s;
}

// A spec that names no analyzers is analysed by summary, as before.
void fill(BundleAnalysisPlan& plan, const std::vector<AnalyzerRequest>& analyzers,
          std::vector<Expectation> expectations) {
  plan.requests = requests_from(analyzers);
  if (plan.requests.empty()) plan.requests.push_back({"summary", nlohmann::json::object()});
  plan.expectations = std::move(expectations);
}

// From spec.expanded: includes and --set already merged, so no file is read.
// Returns why it could not be used, or nothing once the plan is filled.
std::optional<std::string> from_expanded(BundleAnalysisPlan& plan, const std::string& expanded,
                                         const std::string& name) {
  try {
    const SpecNode root = parse_yaml(expanded, name);
    Diagnostics d;
    AnalysisSection section = decode_analysis_section(root, d);
    if (!d.empty()) return one_line(d);
    fill(plan, section.analyzers, std::move(section.expectations));
    plan.source = "the expanded spec recorded in bundle.json";
    return std::nullopt;
  } catch (const SpecError& e) {
    return one_line(e.diagnostics());
  }
}

// The way of bundles written before spec.expanded was kept: the spec's text,
// its includes resolved from disk relative to the recorded path, now.
std::optional<std::string> from_text(BundleAnalysisPlan& plan, const std::string& text, const std::string& path) {
  try {
    const Spec s = load_spec_text(text, path);
    fill(plan, s.base.analyzers, s.base.expectations);
    plan.source = "the spec text recorded in bundle.json";
    if (!s.included.empty()) {
      std::string files;
      for (const auto& f : s.included) files += (files.empty() ? "" : ", ") + f;
      plan.source += ", its includes read from disk now";
      plan.warnings.push_back("bundle.json records no expanded spec (an older bundle): the analyzers come from the "
                              "spec text with its includes read from disk now (" + files +
                              "), which may have changed since the run");
    }
    return std::nullopt;
  } catch (const SpecError& e) {
    return one_line(e.diagnostics());
  }
}

}  // namespace

BundleAnalysisPlan plan_bundle_analysis(const nlohmann::json& header, const std::string& where) {
  BundleAnalysisPlan plan;
  const nlohmann::json none = nlohmann::json::object();
  const nlohmann::json& spec = header.is_object() && header.contains("spec") && header["spec"].is_object()
                                   ? header["spec"]
                                   : none;
  const std::string path = spec.contains("path") && spec["path"].is_string() ? spec["path"].get<std::string>()
                                                                              : std::string("bundle spec");
  std::vector<std::string> why;  // every way that failed, in the order tried
  if (spec.contains("expanded") && spec["expanded"].is_string()) {
    const auto failed = from_expanded(plan, spec["expanded"].get<std::string>(), where + "/bundle.json spec.expanded");
    if (!failed) return plan;
    why.push_back("its recorded expanded spec does not decode (" + *failed + ")");
  } else {
    why.push_back("bundle.json records no expanded spec");
  }
  if (spec.contains("text") && spec["text"].is_string()) {
    const auto failed = from_text(plan, spec["text"].get<std::string>(), path);
    if (!failed) {
      if (why.size() == 1 && spec.contains("expanded"))
        plan.warnings.insert(plan.warnings.begin(), why.front() + "; the spec text recorded in bundle.json is used");
      return plan;
    }
    why.push_back("the spec text recorded in bundle.json does not load here (" + *failed + ")");
  } else {
    why.push_back("bundle.json records no spec text");
  }
  plan.requests = {{"summary", nlohmann::json::object()}};
  plan.source = "the default (summary)";
  std::string line = "the spec's analyzers are unknown: ";
  for (std::size_t i = 0; i < why.size(); ++i) line += (i == 0 ? "" : "; ") + why[i];
  plan.warnings.push_back(line + "; running " + names_of(plan.requests) + " instead");
  return plan;
}

}  // namespace dissect
