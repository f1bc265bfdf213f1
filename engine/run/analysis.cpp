#include "engine/run/analysis.hpp"

#include <cmath>

#include "analyzers/registry.hpp"
#include "engine/spec/units.hpp"

namespace dissect {

std::vector<AnalysisRequest> requests_from(const std::vector<AnalyzerRequest>& spec_requests) {
  std::vector<AnalysisRequest> out;
  for (const auto& r : spec_requests) out.push_back({r.name, nlohmann::json::parse(r.params_json)});
  return out;
}

std::vector<Finding> run_analyzers(const TraceSet& traces, const std::vector<AnalysisRequest>& requests) {
  std::vector<Finding> out;
  for (const auto& req : requests) {
    const Analyzer* a = find_analyzer(req.analyzer);
    if (a == nullptr) {
      Finding f;
      f.analyzer = req.analyzer;
      f.value = nullptr;
      f.details["reason"] = "no analyzer named '" + req.analyzer + "'";
      f.summary = f.details["reason"];
      out.push_back(f);
      continue;
    }
    // Defaults first, then what the request sets.
    nlohmann::json params = nlohmann::json::object();
    for (const auto& p : a->params()) params[p.name] = p.default_value;
    for (auto it = req.params.begin(); it != req.params.end(); ++it) params[it.key()] = it.value();
    try {
      for (auto& f : a->analyze(traces, AnalyzerParams(params))) {
        f.details["params"] = params;
        out.push_back(std::move(f));
      }
    } catch (const std::exception& e) {
      Finding f;
      f.analyzer = req.analyzer;
      f.value = nullptr;
      f.details["reason"] = std::string("analyzer failed: ") + e.what();
      f.summary = f.details["reason"];
      out.push_back(f);
    }
  }
  return out;
}

namespace {

const nlohmann::json* lookup(const nlohmann::json& j, const std::string& dotted) {
  const nlohmann::json* cur = &j;
  std::size_t start = 0;
  while (start <= dotted.size()) {
    const std::size_t dot = dotted.find('.', start);
    const std::string part = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!cur->is_object() || !cur->contains(part)) return nullptr;
    cur = &(*cur)[part];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return cur;
}

bool compare(double a, const std::string& op, double b) {
  const double eps = 1e-9 * std::max(1.0, std::fabs(b));
  if (op == "==") return std::fabs(a - b) <= eps;
  if (op == "!=") return std::fabs(a - b) > eps;
  if (op == "<") return a < b;
  if (op == "<=") return a <= b + eps;
  if (op == ">") return a > b;
  return a >= b - eps;
}

}  // namespace

std::vector<ExpectationResult> check_expectations(const std::vector<Expectation>& expectations,
                                                  const std::vector<Finding>& findings) {
  std::vector<ExpectationResult> out;
  for (const auto& x : expectations) {
    ExpectationResult r;
    r.expectation = x;
    const std::string analyzer = x.finding.substr(0, x.finding.find('.'));
    const std::string path = x.finding.find('.') == std::string::npos ? "value" : x.finding.substr(x.finding.find('.') + 1);
    const Finding* f = nullptr;
    for (const auto& cand : findings)
      if (cand.analyzer == analyzer) {
        f = &cand;
        break;
      }
    if (f == nullptr) {
      r.message = "no finding from analyzer '" + analyzer + "' (is it listed under analyzers:?)";
      out.push_back(r);
      continue;
    }
    const nlohmann::json j = f->to_json();
    const nlohmann::json* actual = lookup(j, path);
    if (actual == nullptr || actual->is_null()) {
      r.message = "finding '" + x.finding + "' was not determined" +
                  (f->details.contains("reason") ? " (" + f->details["reason"].get<std::string>() + ")" : "");
      out.push_back(r);
      continue;
    }
    r.actual = actual->is_string() ? actual->get<std::string>() : actual->dump();
    if (actual->is_number()) {
      std::string err;
      double expected = 0;
      if (auto q = parse_quantity(x.value, "", err); q && q->unit == QuantityUnit::bytes) {
        expected = static_cast<double>(q->amount);
      } else {
        try {
          std::size_t used = 0;
          expected = std::stod(x.value, &used);
          if (used != x.value.size()) throw std::invalid_argument("trailing");
        } catch (...) {
          r.message = "cannot compare the number " + r.actual + " with '" + x.value + "'";
          out.push_back(r);
          continue;
        }
      }
      const bool ok = compare(actual->get<double>(), x.op, expected);
      r.outcome = ok ? ExpectationResult::Outcome::pass : ExpectationResult::Outcome::fail;
    } else {
      if (x.op != "==" && x.op != "!=") {
        r.message = "'" + x.op + "' needs a number, the finding is '" + r.actual + "'";
        out.push_back(r);
        continue;
      }
      const bool equal = r.actual == x.value;
      r.outcome = (equal == (x.op == "==")) ? ExpectationResult::Outcome::pass : ExpectationResult::Outcome::fail;
    }
    r.message = std::string(r.outcome == ExpectationResult::Outcome::pass ? "holds" : "FAILS") + ": " + x.text +
                " (measured " + r.actual + (f->unit.empty() ? "" : " " + f->unit) + ")";
    out.push_back(r);
  }
  return out;
}

void check_analyzer_names(const Experiment& experiment, Diagnostics& diags) {
  const auto names = analyzer_names();
  for (const auto& r : experiment.analyzers) {
    if (find_analyzer(r.name) != nullptr) continue;
    std::string msg = "analyzers: unknown analyzer '" + r.name + "'";
    const std::string guess = closest_match(r.name, names);
    if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
    msg += " (dissect list analyzers)";
    diags.error(r.loc, msg);
  }
  for (const auto& x : experiment.expectations) {
    const std::string analyzer = x.finding.substr(0, x.finding.find('.'));
    bool requested = false;
    for (const auto& r : experiment.analyzers) requested |= r.name == analyzer;
    if (!requested)
      diags.error(x.loc, "expect: '" + x.text + "' checks analyzer '" + analyzer +
                             "', which is not listed under analyzers:");
  }
}

}  // namespace dissect
