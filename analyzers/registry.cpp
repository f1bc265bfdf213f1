#include "analyzers/registry.hpp"

namespace dissect {

// One line per analyzer: the factory its file defines.
std::unique_ptr<Analyzer> make_summary_analyzer();

const std::vector<std::unique_ptr<Analyzer>>& analyzers() {
  static const std::vector<std::unique_ptr<Analyzer>> all = [] {
    std::vector<std::unique_ptr<Analyzer>> v;
    v.push_back(make_summary_analyzer());
    return v;
  }();
  return all;
}

const Analyzer* find_analyzer(const std::string& name) {
  for (const auto& a : analyzers())
    if (a->name() == name) return a.get();
  return nullptr;
}

std::vector<std::string> analyzer_names() {
  std::vector<std::string> out;
  for (const auto& a : analyzers()) out.push_back(a->name());
  return out;
}

}  // namespace dissect
