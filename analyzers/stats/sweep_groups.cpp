#include "analyzers/stats/sweep_groups.hpp"

#include <algorithm>
#include <set>

namespace dissect::stats {

const std::vector<std::string>& configuration_keys() {
  static const std::vector<std::string> keys{"kernel",  "target",  "path",   "access", "element",  "pattern",
                                             "size_bytes", "stride_bytes", "offset_bytes", "page_bytes",
                                             "timing_mode", "clock", "blocks", "threads", "chasers",
                                             "thread_offset_bytes", "ilp", "carveout", "arrays"};
  return keys;
}

std::string SweepGroup::label() const {
  std::string s;
  for (const auto& k : distinct) {
    auto it = fixed.find(k);
    s += (s.empty() ? "" : " ") + k + "=" + (it == fixed.end() ? "-" : it->second);
  }
  return s;
}

std::vector<SweepGroup> group_points(const TraceSet& traces, const std::string& swept,
                                     const std::function<bool(const PointTrace&)>& keep) {
  std::map<std::string, SweepGroup> by_key;
  std::vector<std::string> order;
  for (const auto& p : traces.points) {
    if (p.status != "ok" && !p.status.empty()) continue;
    if (p.samples.empty()) continue;
    if (keep && !keep(p)) continue;
    std::map<std::string, std::string> fixed;
    std::string key;
    for (const auto& k : configuration_keys()) {
      if (k == swept) continue;
      auto it = p.params.find(k);
      if (it == p.params.end()) continue;
      fixed[k] = it->second;
      key += k + "=" + it->second + ";";
    }
    auto [it, fresh] = by_key.try_emplace(key);
    if (fresh) {
      it->second.fixed = fixed;
      order.push_back(key);
    }
    it->second.points.push_back(&p);
  }
  std::vector<SweepGroup> out;
  for (const auto& k : order) {
    auto g = std::move(by_key[k]);
    std::stable_sort(g.points.begin(), g.points.end(), [&](const PointTrace* a, const PointTrace* b) {
      return a->param_double(swept, 0) < b->param_double(swept, 0);
    });
    out.push_back(std::move(g));
  }
  // Keys that differ between groups name them.
  std::vector<std::string> distinct;
  for (const auto& k : configuration_keys()) {
    std::set<std::string> values;
    for (const auto& g : out) {
      auto it = g.fixed.find(k);
      values.insert(it == g.fixed.end() ? "-" : it->second);
    }
    if (values.size() > 1) distinct.push_back(k);
  }
  for (auto& g : out) g.distinct = distinct;
  std::stable_sort(out.begin(), out.end(),
                   [](const SweepGroup& a, const SweepGroup& b) { return a.points.size() > b.points.size(); });
  return out;
}

std::string label_suffix(const SweepGroup& g) {
  const std::string l = g.label();
  return l.empty() ? std::string() : " [" + l + "]";
}

}  // namespace dissect::stats
