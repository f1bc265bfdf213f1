// line_size: the spacing of misses in a chase with a small stride (seed 003
// §3.2 (2), seed 004 §4.3). Above C, a miss loads what follows it, so misses
// recur every fetch unit. Where a point overflows only a few sets, misses come
// in runs: g consecutive fetch units evicted together are one line of g
// sectors, or g lines mapped in one block (seed 003 Fig. 12); a chase with
// stride g*f over C < N <= g*C decides (hits: f-byte lines in blocks; misses:
// a g*f-byte line with f-byte sectors). Undecided, the line is the miss
// spacing (Mei's and MT4G's reading) and the other reading is reported.
#include <algorithm>
#include <map>
#include <numeric>

#include "analyzers/analyzer.hpp"
#include "analyzers/stats/chase.hpp"
#include "analyzers/stats/knee.hpp"
#include "analyzers/stats/periodicity.hpp"
#include "analyzers/stats/report.hpp"
#include "engine/spec/units.hpp"

namespace dissect {
namespace {

struct MissMap {
  const PointTrace* point = nullptr;
  std::size_t positions = 0;
  std::uint64_t misses = 0, known = 0;
  std::vector<std::uint64_t> spacings;  // between consecutive missed offsets, pass by pass
  stats::PassGrid grid;
};

// Missed offsets of each pass, ascending.
std::vector<std::vector<std::uint64_t>> missed_by_pass(const stats::PassGrid& g) {
  std::vector<std::vector<std::uint64_t>> out;
  for (const auto& pass : g.level) {
    std::vector<std::uint64_t> m;
    for (std::size_t j = 0; j < pass.size(); ++j)
      if (pass[j] >= 1) m.push_back(g.offsets[j]);
    std::sort(m.begin(), m.end());
    out.push_back(std::move(m));
  }
  return out;
}

bool power_of_two(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

template <class K>
K mode_of(const std::vector<K>& v, std::size_t* count = nullptr) {
  std::map<K, std::size_t> n;
  for (auto x : v) ++n[x];
  K best{};
  std::size_t bn = 0;
  for (auto [k, c] : n)
    if (c > bn) best = k, bn = c;
  if (count) *count = bn;
  return best;
}

// What one call reads of the series in hand: local to the call, since one analyzer object
// serves every bundle (analyses of several bundles run at once).
struct SeriesReading {
  std::vector<bool> ignore;   // levels left out
  bool runs_unclear = false;
};

class LineSizeAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "line_size"; }
  std::string purpose() const override {
    return "line size (and fetch/sector size) from the spacing of misses in a small-stride chase above C";
  }
  std::vector<AnalyzerParam> params() const override {
    return {{"noise", "1e-4", "share of slow samples a point needs beyond noise to count as missing"}};
  }
  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const override {
    const double noise = params.number("noise", 1e-4);
    // Points by stride (pointer chases only).
    std::map<std::uint64_t, std::vector<const PointTrace*>> by_stride;
    for (const auto& p : traces.points)
      if (!p.samples.empty() && p.param("kernel", "pchase") == "pchase" && p.stride_bytes() > 0 &&
          (p.status == "ok" || p.status.empty()))
        by_stride[p.stride_bytes()].push_back(&p);
    if (by_stride.empty()) return {stats::undetermined(name(), "B", "no pointer-chase points")};

    // The smallest stride whose points show misses.
    for (auto& [stride, pts] : by_stride) {
      std::vector<double> pool;
      for (const auto* p : pts) {
        const auto l = stats::latencies(p->measured_samples(), 20000);
        pool.insert(pool.end(), l.begin(), l.end());
      }
      stats::LevelOptions lo;
      lo.min_share = 1e-4;  // with min_count: a few slow samples can be a level; the tests decide
      stats::LevelModel model = stats::cluster_levels(pool, lo);
      const int hit = stats::hit_level_of(model, pool);
      // Misses too few or too scattered for a level (a cold chase's one in
      // eight, spread over the L2's near and far latencies) are still misses;
      // timer outliers (under 1 %) are not.
      stats::add_slow_level(model, hit, pool, 0.01);
      if (hit < 0 || static_cast<std::size_t>(hit) + 1 >= model.levels.size()) continue;
      // Rare slow levels that do not grow from the smallest N on are outliers.
      std::vector<const PointTrace*> by_size = pts;
      std::stable_sort(by_size.begin(), by_size.end(),
                       [](const PointTrace* a, const PointTrace* b) { return a->size_bytes() < b->size_bytes(); });
      std::vector<std::vector<double>> per_point;
      for (const auto* p : by_size) per_point.push_back(stats::latencies(p->measured_samples(), 20000));
      SeriesReading reading;
      reading.ignore = stats::static_levels(model, hit, per_point);
      if (by_size.front()->size_bytes() == by_size.back()->size_bytes()) reading.ignore.assign(model.levels.size(), false);
      std::vector<MissMap> maps;
      for (const auto* p : pts) {
        MissMap mm;
        mm.point = p;
        mm.grid = stats::make_grid(stats::main_chase(*p), model, hit, true, 1.25, &reading.ignore);
        mm.positions = mm.grid.period;
        mm.misses = mm.grid.count(1);
        mm.known = mm.grid.known();
        for (const auto& m : missed_by_pass(mm.grid))
          for (std::size_t i = 1; i < m.size(); ++i) mm.spacings.push_back(m[i] - m[i - 1]);
        // A stray slow sample or two is no miss pattern.
        if (mm.misses >= 3 && !mm.spacings.empty() &&
            static_cast<double>(mm.misses) > noise * static_cast<double>(mm.known) + 2)
          maps.push_back(std::move(mm));
      }
      if (maps.empty()) continue;
      return {conclude(traces, stride, maps, model, hit, by_stride, reading)};
    }
    return {stats::undetermined(name(), "B",
                                "no point misses beyond noise: line_size needs a small-stride chase with N above the "
                                "cache size")};
  }

 private:
  Finding conclude(const TraceSet&, std::uint64_t stride, std::vector<MissMap>& maps, const stats::LevelModel& model,
                   int hit, const std::map<std::uint64_t, std::vector<const PointTrace*>>& by_stride,
                   SeriesReading& reading) const {
    Finding f;
    f.analyzer = name();
    f.unit = "B";
    // Fetch unit: the usual spacing of misses where misses are densest.
    auto density = [](const MissMap& m) {
      return m.known == 0 ? 0.0 : static_cast<double>(m.misses) / static_cast<double>(m.known);
    };
    const MissMap* dense = &maps.front();
    for (const auto& m : maps)
      if (density(m) > density(*dense)) dense = &m;
    std::size_t fcount = 0;
    const std::uint64_t fetch = mode_of(dense->spacings, &fcount);
    const auto& gaps = dense->spacings;
    const double fshare = gaps.empty() ? 0 : static_cast<double>(fcount) / static_cast<double>(gaps.size());
    // The densest point: what share of its fetch units miss in a pass.
    const double units = static_cast<double>(dense->point->size_bytes()) / static_cast<double>(fetch);
    const double unit_cover =
        units > 0 ? dense->grid.misses_per_pass() / units : 0;
    nlohmann::json ev;
    ev["stride_bytes"] = stride;
    ev["dense_point"] = {{"point_id", dense->point->point_id},
                         {"size_bytes", dense->point->size_bytes()},
                         {"misses", dense->misses},
                         {"samples", dense->known},
                         {"positions", dense->positions},
                         {"modal_spacing_bytes", fetch},
                         {"modal_spacing_share", fshare}};
    ev["levels"] = model.to_json();
    ev["hit_level"] = hit;
    f.details["fetch_candidate_bytes"] = fetch;

    // Runs of consecutive missed fetch units, pass by pass, at the partial
    // point with the fewest misses per pass (one set overflowed, ideally):
    // what one eviction takes away. Per pass, because a random policy evicts
    // other lines in other passes. The run length that accounts for most
    // misses wins (a stray miss is a run of one).
    const MissMap* sparse = nullptr;
    double sparse_rate = 0;
    for (const auto& m : maps) {
      const double u = static_cast<double>(m.point->size_bytes()) / static_cast<double>(fetch);
      const double per_pass = m.grid.passes() == 0 ? 0
                                                   : static_cast<double>(m.misses) / static_cast<double>(m.grid.passes());
      if (per_pass >= 0.9 * u) continue;  // not partial
      if (per_pass < 1) continue;
      if (!sparse || per_pass < sparse_rate) sparse = &m, sparse_rate = per_pass;
    }
    std::uint64_t group = 1;
    reading.runs_unclear = false;
    if (sparse) {
      std::map<std::uint64_t, std::uint64_t> weight;  // run length -> misses in such runs
      std::size_t runs = 0;
      for (const auto& missed : missed_by_pass(sparse->grid)) {
        std::uint64_t run = 1;
        for (std::size_t i = 1; i <= missed.size(); ++i) {
          if (i < missed.size() && missed[i] - missed[i - 1] == fetch) {
            ++run;
          } else if (!missed.empty()) {
            weight[run] += run;
            ++runs;
            run = 1;
          }
        }
      }
      std::uint64_t best_w = 0;
      for (auto [len, w] : weight)
        if (w > best_w) best_w = w, group = len;
      ev["sparse_point"] = {{"point_id", sparse->point->point_id},
                            {"size_bytes", sparse->point->size_bytes()},
                            {"misses_per_pass", sparse_rate},
                            {"modal_run_units", group},
                            {"runs", runs}};
      if (!power_of_two(group) || group > 64) {
        ev["sparse_point"]["note"] = "misses come in runs of " + std::to_string(group) +
                                     " units: whole stretches evicted, no line structure to read";
        group = 1;
        reading.runs_unclear = true;
      }
    }
    // Is the modal spacing the fetch unit? Where a point overflows a single
    // set of a modulo-mapped cache, its misses are one set stride (sets x
    // line) apart: exactly what lines of that size would look like. Trust the
    // spacing when misses come in runs (a run is consecutive units), when a
    // point lies well above the smallest missing N (every set overflowed), or
    // when the array spans many spacings (more than any set holds ways).
    std::uint64_t n_min_missing = UINT64_MAX, n_max_missing = 0;
    for (const auto& m : maps) {
      n_min_missing = std::min(n_min_missing, m.point->size_bytes());
      n_max_missing = std::max(n_max_missing, m.point->size_bytes());
    }
    const bool trusted = group > 1 || n_max_missing >= 2 * n_min_missing ||
                         static_cast<double>(dense->point->size_bytes()) / static_cast<double>(fetch) >= 32;
    ev["spacing_trusted"] = trusted;
    if (!trusted || fshare < 0.3) {
      Finding u = stats::undetermined(
          name(), "B",
          !trusted ? "misses are " + format_bytes(fetch) + " apart, but only " +
                         std::to_string(dense->point->size_bytes() / fetch) +
                         " such spacings fit the array: that may be the stride of one overflowed set (sets x line), "
                         "not the line; add a point with N of twice the cache size or more"
                   : "the spacing of misses is irregular (" + stats::percent(fshare) + " of spacings equal " +
                         format_bytes(fetch) + "): too noisy to name a line");
      u.evidence = ev;
      return u;
    }
    std::uint64_t line = fetch;
    std::string how = "misses recur every " + format_bytes(fetch);
    // Confidence: how regular the spacing is (a clean chase: every spacing of
    // the densest point equals the fetch unit, or nearly).
    double conf = std::clamp(fshare / 0.6, 0.0, 1.0);
    ev["dense_point"]["unit_cover"] = unit_cover;
    nlohmann::json fetch_bytes = fetch;
    if (group > 1) {
      // Decide sector vs block from a coarse-stride chase.
      const std::uint64_t unit = group * fetch;
      // C from the small-stride series: largest N without misses, smallest with.
      std::uint64_t c_hi = UINT64_MAX;
      for (const auto& m : maps) c_hi = std::min(c_hi, m.point->size_bytes());
      std::uint64_t c_lo = 0;
      for (const auto& p : by_stride.at(stride))
        if (p->size_bytes() < c_hi) c_lo = std::max(c_lo, p->size_bytes());
      if (c_lo == 0) c_lo = c_hi / 2;
      int decided = 0;  // +1 sectored, -1 blocked
      nlohmann::json decisive = nlohmann::json::array();
      for (const auto& [s, pts] : by_stride) {
        if (s < unit || s % unit != 0) continue;
        for (const auto* p : pts) {
          const std::uint64_t n = p->size_bytes();
          if (!(n > c_hi && n <= group * c_lo)) continue;
          const auto g = stats::make_grid(stats::main_chase(*p), model, hit, true, 1.25, &reading.ignore);
          const auto pos = g.positions();
          const auto miss = stats::missing_positions(pos, 0.01);
          decisive.push_back({{"point_id", p->point_id}, {"stride_bytes", s}, {"size_bytes", n},
                              {"missing_positions", miss.size()}, {"positions", pos.size()}});
          decided += miss.empty() ? -1 : 1;
        }
      }
      ev["decisive_points"] = decisive;
      if (decided > 0) {
        line = unit;
        how = "misses come in runs of " + std::to_string(group) + " x " + format_bytes(fetch) +
              " and a chase with one access per " + format_bytes(unit) + " misses above C: " + format_bytes(unit) +
              " lines of " + format_bytes(fetch) + " sectors";
      } else if (decided < 0) {
        line = fetch;
        f.details["lines_per_block"] = group;
        how = "misses come in runs of " + std::to_string(group) + " x " + format_bytes(fetch) +
              " but a chase with one access per " + format_bytes(unit) + " fits up to " + std::to_string(group) +
              " x C: " + format_bytes(fetch) + " lines mapped " + std::to_string(group) + " to a set";
      } else {
        line = fetch;
        conf *= 0.5;
        f.details["miss_group_bytes"] = unit;
        f.details["alternative"] = {{"line_bytes", unit}, {"fetch_bytes", fetch}};
        how = "misses recur every " + format_bytes(fetch) + " and come in runs of " + std::to_string(group) +
              ": " + format_bytes(fetch) + " lines mapped in blocks of " + std::to_string(group) + " (seed 003 Fig. 12), or " +
              format_bytes(unit) + " lines of " + format_bytes(fetch) + " sectors; a chase with stride " +
              format_bytes(unit) + " and C < N <= " + std::to_string(group) + " x C decides";
      }
    } else if (!sparse || reading.runs_unclear) {
      fetch_bytes = nullptr;
      conf *= 0.6;
      f.details["fetch_note"] = sparse ? "the partial point's misses show no run structure: the line may be a "
                                         "multiple of this fetch unit (sectors)"
                                       : "no point overflows only part of the cache: sector and line cannot be told "
                                         "apart; the line may be a multiple of this fetch unit";
    }
    f.value = line;
    f.details["line_bytes"] = line;
    f.details["fetch_bytes"] = fetch_bytes;
    f.details["method"] = how;
    f.evidence = ev;
    f.confidence = conf;
    if (fshare < 0.5) {
      f.details["reason_low_confidence"] = "the spacing of misses is irregular (" + stats::percent(fshare) +
                                           " of spacings equal " + format_bytes(fetch) + ")";
    }
    f.summary = format_bytes(line) + (fetch_bytes.is_number() && fetch != line ? " (fetch " + format_bytes(fetch) + ")" : "") +
                ": " + how;
    // Said in the summary, not only in details: a sectored cache (Volta on) shows its sector here.
    if (f.details.contains("fetch_note")) f.summary += " (the line, or a sector of a line that is a multiple of it: nothing here tells them apart)";
    return f;
  }
};

}  // namespace

std::unique_ptr<Analyzer> make_line_size_analyzer() { return std::make_unique<LineSizeAnalyzer>(); }

}  // namespace dissect
