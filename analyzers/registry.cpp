#include "analyzers/registry.hpp"

namespace dissect {

// One line per analyzer: the factory its file defines.
std::unique_ptr<Analyzer> make_summary_analyzer();
std::unique_ptr<Analyzer> make_latency_levels_analyzer();
std::unique_ptr<Analyzer> make_cache_size_analyzer();
std::unique_ptr<Analyzer> make_line_size_analyzer();
std::unique_ptr<Analyzer> make_line_capacity_analyzer();
std::unique_ptr<Analyzer> make_sets_analyzer();
std::unique_ptr<Analyzer> make_replacement_analyzer();
std::unique_ptr<Analyzer> make_stage_profile_analyzer();
std::unique_ptr<Analyzer> make_tlb_analyzer();
std::unique_ptr<Analyzer> make_tlb_scope_analyzer();
std::unique_ptr<Analyzer> make_tlb_spread_analyzer();
std::unique_ptr<Analyzer> make_tlb_overflow_analyzer();
std::unique_ptr<Analyzer> make_page_size_analyzer();
std::unique_ptr<Analyzer> make_bank_conflicts_analyzer();
std::unique_ptr<Analyzer> make_bandwidth_analyzer();
std::unique_ptr<Analyzer> make_sharing_analyzer();
std::unique_ptr<Analyzer> make_amount_analyzer();
std::unique_ptr<Analyzer> make_partition_map_analyzer();

const std::vector<std::unique_ptr<Analyzer>>& analyzers() {
  static const std::vector<std::unique_ptr<Analyzer>> all = [] {
    std::vector<std::unique_ptr<Analyzer>> v;
    v.push_back(make_summary_analyzer());
    v.push_back(make_latency_levels_analyzer());
    v.push_back(make_cache_size_analyzer());
    v.push_back(make_line_size_analyzer());
    v.push_back(make_line_capacity_analyzer());
    v.push_back(make_sets_analyzer());
    v.push_back(make_replacement_analyzer());
    v.push_back(make_stage_profile_analyzer());
    v.push_back(make_tlb_analyzer());
    v.push_back(make_tlb_scope_analyzer());
    v.push_back(make_tlb_spread_analyzer());
    v.push_back(make_tlb_overflow_analyzer());
    v.push_back(make_page_size_analyzer());
    v.push_back(make_bank_conflicts_analyzer());
    v.push_back(make_bandwidth_analyzer());
    v.push_back(make_sharing_analyzer());
    v.push_back(make_amount_analyzer());
    v.push_back(make_partition_map_analyzer());
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
