#include "engine/spec/analysis_section.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace dissect {
namespace {

// A key that is absent or null ("analyzers:" with nothing after it) is not there.
const SpecNode* present(const SpecNode& root, const std::string& key) {
  const SpecNode* v = root.find(key);
  return (v == nullptr || v->is_null()) ? nullptr : v;
}

std::string trim(std::string s) {
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// analyzers: a list of names or {X: {param: value, ...}}
void decode_analyzers(const SpecNode& an, std::vector<AnalyzerRequest>& out, Diagnostics& d) {
  if (!an.is_sequence()) {
    d.error(an.loc, "analyzers: expected a list (e.g. '[cache_size, line_size]')");
    return;
  }
  for (const auto& item : an.items) {
    AnalyzerRequest req;
    req.loc = item.loc;
    if (item.is_scalar()) {
      req.name = item.scalar;
    } else if (item.is_map() && item.entries.size() == 1 && item.find("name") == nullptr) {
      req.name = item.entries[0].key;
      req.loc = item.entries[0].key_loc;
      const SpecNode& params = item.entries[0].value;
      if (!params.is_null() && !params.is_map()) {
        d.error(params.loc, "analyzers: parameters of '" + req.name + "' must be a mapping");
        continue;
      }
      nlohmann::json j = nlohmann::json::object();
      for (const auto& p : params.entries) {
        if (!p.value.is_scalar()) {
          d.error(p.value.loc, "analyzers: parameter '" + p.key + "' must be a single value");
          continue;
        }
        j[p.key] = p.value.scalar;
      }
      req.params_json = j.dump();
    } else {
      d.error(item.loc, "analyzers: each entry is a name or 'name: {param: value}'");
      continue;
    }
    out.push_back(std::move(req));
  }
}

// expect: ["line_size == 128 B", ...]
void decode_expectations(const SpecNode& ex, std::vector<Expectation>& out, Diagnostics& d) {
  if (!ex.is_sequence()) {
    d.error(ex.loc, "expect: expected a list of conditions such as 'line_size == 128 B'");
    return;
  }
  for (const auto& item : ex.items) {
    if (!item.is_scalar()) {
      d.error(item.loc, "expect: expected a condition such as 'line_size == 128 B', got " + item.kind_name());
      continue;
    }
    Expectation x;
    x.text = item.scalar;
    x.loc = item.loc;
    // Two-character operators first: "<=" is not "<" followed by "=".
    static const std::vector<std::string> ops{"==", "!=", "<=", ">=", "<", ">"};
    std::size_t pos = std::string::npos;
    for (const auto& op : ops) {
      pos = x.text.find(op);
      if (pos != std::string::npos) {
        x.op = op;
        break;
      }
    }
    if (pos == std::string::npos) {
      d.error(item.loc, "expect: '" + x.text + "' has no comparison (==, !=, <, <=, >, >=)");
      continue;
    }
    x.finding = trim(x.text.substr(0, pos));
    x.value = trim(x.text.substr(pos + x.op.size()));
    if (x.finding.empty() || x.value.empty()) {
      d.error(item.loc, "expect: '" + x.text + "' needs a finding on the left and a value on the right");
      continue;
    }
    out.push_back(std::move(x));
  }
}

}  // namespace

AnalysisSection decode_analysis_section(const SpecNode& root, Diagnostics& diags) {
  AnalysisSection s;
  if (!root.is_map()) return s;
  if (const SpecNode* an = present(root, "analyzers")) decode_analyzers(*an, s.analyzers, diags);
  if (const SpecNode* ex = present(root, "expect")) decode_expectations(*ex, s.expectations, diags);
  return s;
}

}  // namespace dissect
