#include "analyzers/stats/chase.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "analyzers/stats/binomial.hpp"

namespace dissect::stats {

std::size_t infer_period(const std::vector<const Sample*>& s) {
  const std::size_t n = s.size();
  if (n < 2) return n;
  int tried = 0;
  for (std::size_t p = 1; p < n && tried < 16; ++p) {
    if (s[p]->offset_bytes != s[0]->offset_bytes) continue;
    ++tried;
    const std::size_t check = std::min(n - p, std::max<std::size_t>(4 * p, 64));
    std::size_t same = 0;
    for (std::size_t i = 0; i < check; ++i) same += s[i]->offset_bytes == s[i + p]->offset_bytes ? 1 : 0;
    if (static_cast<double>(same) >= 0.9 * static_cast<double>(check)) return p;
  }
  return n;
}

std::vector<Chase> chases_of(const PointTrace& point) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<const Sample*>> by_thread;
  std::vector<const Sample*> measured = point.measured_samples();
  // Most points are one thread's chase in one phase: no sample needs a lookup then.
  const bool one_chase =
      !measured.empty() && std::all_of(measured.begin(), measured.end(), [&](const Sample* s) {
        return s->thread == measured.front()->thread && s->phase == measured.front()->phase;
      });
  if (one_chase) {
    const std::pair<std::uint32_t, std::uint32_t> key{measured.front()->thread, measured.front()->phase};
    by_thread.emplace(key, std::move(measured));
  } else {
    for (const Sample* s : measured) by_thread[{s->thread, s->phase}].push_back(s);
  }
  std::vector<Chase> out;
  for (auto& [key, samples] : by_thread) {
    // Usually stored in measurement order already: then the sort would change nothing.
    const auto by_seq = [](const Sample* a, const Sample* b) { return a->seq < b->seq; };
    if (!std::is_sorted(samples.begin(), samples.end(), by_seq)) std::stable_sort(samples.begin(), samples.end(), by_seq);
    Chase c;
    c.point = &point;
    c.thread = key.first;
    c.phase = key.second;
    c.samples = std::move(samples);
    if (point.accesses_per_pass > 0) {
      c.period = static_cast<std::size_t>(point.accesses_per_pass);
    } else {
      c.period = infer_period(c.samples);
      c.period_inferred = true;
    }
    if (c.period == 0) c.period = std::max<std::size_t>(1, c.samples.size());
    out.push_back(std::move(c));
  }
  return out;
}

Chase main_chase(const PointTrace& point) {
  auto all = chases_of(point);
  if (all.empty()) {
    Chase c;
    c.point = &point;
    return c;
  }
  std::size_t best = 0;
  for (std::size_t i = 1; i < all.size(); ++i)
    if (all[i].samples.size() > all[best].samples.size()) best = i;
  return std::move(all[best]);
}

nlohmann::json WarmupCheck::to_json() const {
  return {{"checked", checked},
          {"failed", failed},
          {"first_pass_miss_rate", first_pass_miss_rate},
          {"later_miss_rate", later_miss_rate},
          {"z", z}};
}

std::vector<PositionStats> PassGrid::positions(int miss_level) const {
  std::vector<PositionStats> out(period);
  for (std::size_t j = 0; j < period; ++j) out[j].offset = j < offsets.size() ? offsets[j] : 0;
  for (const auto& pass : level)
    for (std::size_t j = 0; j < pass.size(); ++j) {
      const int l = pass[j];
      if (l == kAbsent) continue;
      if (l == kUnknown) ++out[j].unknown;
      else if (l >= miss_level) ++out[j].misses;
      else ++out[j].hits;
    }
  return out;
}

std::uint64_t PassGrid::count(int min_level, int max_level) const {
  std::uint64_t n = 0;
  for (const auto& pass : level)
    for (auto l : pass) n += (l >= min_level && l <= max_level) ? 1 : 0;
  return n;
}

double PassGrid::miss_fraction(int miss_level) const {
  const auto k = known();
  return k == 0 ? 0 : static_cast<double>(count(miss_level)) / static_cast<double>(k);
}

double PassGrid::misses_per_pass(int miss_level) const {
  std::uint64_t m = 0, complete = 0;
  for (const auto& pass : level) {
    bool full = true;
    for (auto l : pass) full = full && l != kAbsent;
    if (!full) continue;
    ++complete;
    for (auto l : pass) m += l >= miss_level ? 1 : 0;
  }
  return complete == 0 ? 0 : static_cast<double>(m) / static_cast<double>(complete);
}

int hit_level(const LevelModel& model, double min_share) {
  for (std::size_t i = 0; i < model.levels.size(); ++i)
    if (model.levels[i].share >= min_share) return static_cast<int>(i);
  return 0;
}

int dominant_level(const LevelModel& model, const std::vector<double>& lat) {
  std::vector<std::size_t> n(model.levels.size(), 0);
  for (double x : lat) {
    const int c = model.classify(x);
    if (c >= 0) ++n[static_cast<std::size_t>(c)];
  }
  if (n.empty()) return -1;
  const auto it = std::max_element(n.begin(), n.end());
  return *it == 0 ? -1 : static_cast<int>(it - n.begin());
}

std::vector<bool> static_levels(const LevelModel& m, int hit, const std::vector<std::vector<double>>& per_point,
                                double rare) {
  std::vector<bool> out(m.levels.size(), false);
  if (per_point.empty() || per_point.front().empty()) return out;
  auto shares = [&](const std::vector<double>& lat) {
    std::vector<double> n(m.levels.size(), 0);
    for (double x : lat) {
      const int c = m.classify(x);
      if (c >= 0) ++n[static_cast<std::size_t>(c)];
    }
    return n;
  };
  const auto nf = shares(per_point.front());
  const double Nf = static_cast<double>(per_point.front().size());
  std::vector<bool> grows(m.levels.size(), false);
  for (std::size_t i = 1; i < per_point.size(); ++i) {
    if (per_point[i].empty()) continue;
    const auto nl = shares(per_point[i]);
    const double Nl = static_cast<double>(per_point[i].size());
    for (std::size_t c = 0; c < m.levels.size(); ++c) {
      const double sf = nf[c] / Nf, sl = nl[c] / Nl;
      const double p = (nf[c] + nl[c]) / (Nf + Nl);
      const double se = std::sqrt(std::max(p * (1 - p), 1e-12) * (1 / Nf + 1 / Nl));
      if ((sl - sf) / se >= 4 && nl[c] >= 3) grows[c] = true;
    }
  }
  for (std::size_t c = static_cast<std::size_t>(std::max(hit, -1) + 1); c < m.levels.size(); ++c)
    if (nf[c] / Nf < rare && !grows[c]) out[c] = true;
  return out;
}

int hit_level_of(const LevelModel& m, const std::vector<double>& ref, double ratio) {
  int h = dominant_level(m, ref);
  while (h > 0 && m.levels[static_cast<std::size_t>(h - 1)].median * ratio >= m.levels[static_cast<std::size_t>(h)].median)
    --h;
  return h;
}

PassGrid make_grid(const Chase& chase, const LevelModel& model, int hit, bool check_warmup, double hit_ratio,
                   const std::vector<bool>* ignore) {
  constexpr int miss_level = 1;
  // First level that counts as slower than a hit.
  int slow = hit + 1;
  if (hit >= 0 && static_cast<std::size_t>(hit) < model.levels.size()) {
    const double h = model.levels[static_cast<std::size_t>(hit)].median;
    while (static_cast<std::size_t>(slow) < model.levels.size() &&
           model.levels[static_cast<std::size_t>(slow)].median < hit_ratio * h)
      ++slow;
  }
  auto label = [&](int c) -> std::int8_t {
    if (c < hit) return kUnknown;
    if (ignore && static_cast<std::size_t>(c) < ignore->size() && (*ignore)[static_cast<std::size_t>(c)]) return kUnknown;
    if (c < slow) return 0;
    return static_cast<std::int8_t>(std::min(c - slow + 1, 127));
  };
  PassGrid g;
  g.period = std::max<std::size_t>(1, chase.period);
  if (chase.samples.empty()) return g;
  const std::uint64_t seq0 = chase.samples.front()->seq;
  g.offsets.assign(g.period, 0);
  std::vector<bool> have(g.period, false);
  for (const Sample* s : chase.samples) {
    const std::uint64_t rel = s->seq - seq0;
    const auto pass = static_cast<std::size_t>(rel / g.period);
    const auto pos = static_cast<std::size_t>(rel % g.period);
    if (pass >= g.level.size()) g.level.resize(pass + 1, std::vector<std::int8_t>(g.period, kAbsent));
    const int c = model.classify(s->latency);
    g.level[pass][pos] = label(c);
    if (!have[pos]) g.offsets[pos] = s->offset_bytes, have[pos] = true;
  }
  if (!check_warmup || g.level.size() < 2) return g;
  // Warm-up check: first pass against the rest.
  std::uint64_t k0 = 0, n0 = 0, k1 = 0, n1 = 0;
  for (std::size_t p = 0; p < g.level.size(); ++p)
    for (auto l : g.level[p]) {
      if (l < 0) continue;
      const bool miss = l >= miss_level;
      if (p == 0) k0 += miss, ++n0;
      else k1 += miss, ++n1;
    }
  if (n0 == 0 || n1 == 0) return g;
  g.warmup.checked = true;
  g.warmup.first_pass_miss_rate = static_cast<double>(k0) / static_cast<double>(n0);
  g.warmup.later_miss_rate = static_cast<double>(k1) / static_cast<double>(n1);
  g.warmup.z = binomial_z(k0, n0, g.warmup.later_miss_rate);
  if (g.warmup.first_pass_miss_rate - g.warmup.later_miss_rate > 0.05 && g.warmup.z > 4) {
    g.warmup.failed = true;
    g.level.erase(g.level.begin());
    g.dropped_passes = 1;
  }
  return g;
}

std::vector<double> latencies(const std::vector<const Sample*>& samples, std::size_t max_count) {
  std::vector<double> out;
  const std::size_t step = (max_count == 0 || samples.size() <= max_count) ? 1 : (samples.size() + max_count - 1) / max_count;
  out.reserve(samples.size() / step + 1);
  for (std::size_t i = 0; i < samples.size(); i += step) out.push_back(samples[i]->latency);
  return out;
}

std::size_t pooled_per_point(std::size_t points, std::size_t per_point) {
  constexpr std::size_t kPoolTotal = 2'000'000, kFloor = 2'000;
  if (points == 0) return per_point;
  return std::min(per_point, std::max(kFloor, kPoolTotal / points));
}

}  // namespace dissect::stats
