#include "engine/topology/tlb_sweeps.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/device/chase_order.hpp"

namespace dissect::tlb_sweeps {
namespace {

constexpr std::uint64_t kMinStride = 4096, kMaxStride = 1ull << 30;
constexpr std::uint64_t kMaxSlots = 8192;
constexpr std::uint64_t kL2BytesPerSlot = 2048;
// Coverages 'tlb' left wider than this many slots are narrowed first
// ('tlb_entries'), across about kNarrowPoints points.
constexpr std::uint64_t kNarrow = 48, kNarrowPoints = 32;
// Past a level's coverage, 'tlb_sets' adds slots until every set has overflowed
// (a quarter of the slots: sets of four ways or more; at least 8, at most 64).
constexpr std::uint64_t kStageMinExtra = 8, kStageMaxExtra = 64;
// Points per level of 'tlb_sets': a narrowed range and its extra fit one slot apart.
constexpr std::uint64_t kStagePoints = 128;
// 'tlb_spread': a stride of span x (1 + 1/kSpreadSets) walks through up to this many
// sets, and its points go up to this many times the ways; a level of fewer ways than
// kSpreadMinWays is left to the stage method.
constexpr std::uint64_t kSpreadSets = 16, kSpreadMinWays = 4;

// Timed accesses of a chase over `slots` slots: four rounds (the first is left
// out by the tlb analyzer, the median of three per page), at least 512.
std::uint64_t iterations_for(std::uint64_t slots) { return std::max<std::uint64_t>(512, 4 * slots); }

// The largest array goes first: a GPU backend that keeps one buffer for the
// arrays of a run (and grows it when an array does not fit) then holds every
// later array where it lies, so that each page keeps its physical frame, hence
// its L2 partition, from point to point (the tlb analyzer reads each page
// against itself).
void largest_first(std::vector<std::uint64_t>& sizes, std::vector<std::uint64_t>& strides,
                   std::vector<std::uint64_t>& iterations) {
  if (sizes.empty()) return;
  const auto i = static_cast<std::size_t>(std::max_element(sizes.begin(), sizes.end()) - sizes.begin());
  std::rotate(sizes.begin(), sizes.begin() + static_cast<std::ptrdiff_t>(i), sizes.begin() + static_cast<std::ptrdiff_t>(i) + 1);
  std::rotate(strides.begin(), strides.begin() + static_cast<std::ptrdiff_t>(i), strides.begin() + static_cast<std::ptrdiff_t>(i) + 1);
  std::rotate(iterations.begin(), iterations.begin() + static_cast<std::ptrdiff_t>(i),
              iterations.begin() + static_cast<std::ptrdiff_t>(i) + 1);
}

std::string zip(std::vector<std::uint64_t> sizes, std::vector<std::uint64_t> strides,
                std::vector<std::uint64_t> iterations) {
  largest_first(sizes, strides, iterations);
  auto list = [](const std::vector<std::uint64_t>& v, const char* unit) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i == 0 ? "" : ", ") + std::to_string(v[i]) + unit;
    return s + "]";
  };
  return "{zip: [{array.size: " + list(sizes, " B") + ", array.stride: " + list(strides, " B") +
         ", iterations: " + list(iterations, "") + "}]}";
}

std::uint64_t pow2_floor(std::uint64_t v) {
  std::uint64_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

// A level record's miss penalty (cycles), 0 where none was read.
double penalty_of(const nlohmann::json& L) {
  return L.contains("miss_penalty_cycles") && L["miss_penalty_cycles"].is_number() ? L["miss_penalty_cycles"].get<double>()
                                                                                   : 0.0;
}

// One item of the analyzers' `penalties` parameter: "STRIDE:CYCLES", space-separated.
void append_penalty(std::string& list, std::uint64_t stride, double penalty) {
  list += (list.empty() ? "" : " ") + std::to_string(stride) + ":" + std::to_string(penalty);
}

struct Bounds {
  std::uint64_t cov_lo = 0, cov_hi = 0;  // the level's coverage in [lo, hi]
  std::uint64_t stride = 0;              // the stride to sweep it at (with the pad)
};

// A level record of 'tlb' (narrowed by 'tlb_entries'): its coverage, and the
// stride to sweep it at: the span of a level read as one set (every slot an
// entry), or of one whose associativity is open where the span exceeds the
// granule; else the granule the page step measured over one allocation (the
// finest reach: the page, or coalesced pages), else the page, so that
// consecutive slots fill consecutive entries and every set alike; else the
// smallest stride the level was seen at. Doubled while the
// level would take more slots than a chase may have.
std::optional<Bounds> bounds_of(const TopologyResult& r, const nlohmann::json& L, const Limits& limits) {
  Bounds b;
  if (L.contains("coverage_bytes") && L["coverage_bytes"].is_number()) {
    b.cov_lo = b.cov_hi = L["coverage_bytes"].get<std::uint64_t>();
  } else if (L.contains("coverage_range_bytes") && L["coverage_range_bytes"].is_array() &&
             L["coverage_range_bytes"].size() == 2) {
    b.cov_lo = L["coverage_range_bytes"][0].get<std::uint64_t>();
    b.cov_hi = L["coverage_range_bytes"][1].get<std::uint64_t>();
  } else {
    return std::nullopt;
  }
  if (b.cov_lo < 1 || b.cov_hi < b.cov_lo) return std::nullopt;
  std::uint64_t g = 0;
  if (r.tlb->page_granule_bytes) g = *r.tlb->page_granule_bytes;
  else if (r.tlb->page_bytes) g = *r.tlb->page_bytes;
  // A level the footprint sweep read as one set of entries that reach its span:
  // at the span every slot is an entry of its own (at the page, several slots
  // would share one). So too a level whose associativity it left open, where the
  // span exceeds the granule: below the span its slots may share entries, and a
  // random order then holds more slots than entries without a miss (a clean point
  // there bounds nothing); at the span it runs out at its coverage either way.
  const std::string assoc = L.value("associativity", "");
  if (L.contains("span_bytes") && L["span_bytes"].is_number() &&
      (assoc == "full" || (assoc != "set-associative" && L["span_bytes"].get<std::uint64_t>() > g)))
    g = L["span_bytes"].get<std::uint64_t>();
  if (g == 0 && L.contains("knees_at_coverage") && L["knees_at_coverage"].is_array() &&
      !L["knees_at_coverage"].empty())
    g = pow2_floor(L["knees_at_coverage"][0].value("stride_bytes", std::uint64_t{0}));
  if (g < kMinStride) g = kMinStride;
  while (b.cov_hi / g + 2 > limits.slot_cap && g < kMaxStride) g *= 2;
  b.stride = g + kSlotPad;
  return b;
}

}  // namespace

Limits limits(const TopologyResult& r) {
  Limits l;
  l.footprint_cap = kAliasedFootprintCap;
  // The page-size steps' arrays, in contiguous frames: what the memory holds. The samples
  // record 32-bit indices; the decoder completes them past 2^32 elements.
  l.contiguous_cap = (1ull << 32) * 8;
  if (r.device.memory_bytes) l.contiguous_cap = std::min(l.contiguous_cap, *r.device.memory_bytes / 4 * 3);
  l.slot_cap = kMaxSlots;
  std::optional<std::uint64_t> l2 = r.one_sm_size_of("l2");
  if (!l2) l2 = r.driver.l2_bytes;
  if (l2 && *l2 > 0) l.slot_cap = std::clamp<std::uint64_t>(*l2 / kL2BytesPerSlot, 4, kMaxSlots);
  l.aliased_slot_cap = 4 * l.slot_cap;
  return l;
}

std::vector<SpecOverride> footprint_sweep(const Limits& limits) {
  // Slots 2, 3, 4, 6, 8, 11, 16, ...: round(2^(j/2)).
  std::vector<std::uint64_t> grid;
  for (int j = 2; j < 64; ++j) {
    const auto n = static_cast<std::uint64_t>(std::llround(std::pow(2.0, j / 2.0)));
    if (n > limits.slot_cap) break;
    if (grid.empty() || grid.back() != n) grid.push_back(n);
  }
  std::vector<std::uint64_t> sizes, strides, iterations;
  for (std::uint64_t p = kMinStride; p <= kMaxStride; p *= 2) {
    const std::uint64_t s = p + kSlotPad;
    for (auto n : grid) {
      if (n * s > limits.footprint_cap) break;
      sizes.push_back(n * s);
      strides.push_back(s);
      iterations.push_back(iterations_for(n));
    }
  }
  return {{"sweep", zip(sizes, strides, iterations)}};
}

namespace {

// One Range per level whose coverage bounds are known, its slots in units of the stride less
// the pad set by `fill(range, lo_slots, hi_slots)`; a level `fill` refuses is left out.
template <class Fill>
std::vector<Range> level_ranges(const TopologyResult& r, Fill fill) {
  std::vector<Range> out;
  if (!r.tlb || !r.tlb->levels) return out;
  const Limits lim = limits(r);
  for (std::size_t i = 0; i < r.tlb->levels->size(); ++i) {
    const auto b = bounds_of(r, (*r.tlb->levels)[i], lim);
    if (!b) continue;
    Range g;
    g.level = i;
    g.stride = b->stride;
    const nlohmann::json& L = (*r.tlb->levels)[i];
    g.penalty = penalty_of(L);
    const std::uint64_t unit = b->stride - kSlotPad;
    // Down towards the footprint sweep's last clean point at this stride, by a sixteenth at
    // most: a narrowed bracket may start past a level that misses a few accesses at a time
    // (a few percent past its entries), while a wider range would lose one slot at a time.
    const std::uint64_t narrowed = b->cov_lo / unit;
    std::uint64_t lo = narrowed;
    if (L.contains("knees_at_coverage") && L["knees_at_coverage"].is_array())
      for (const auto& k : L["knees_at_coverage"])
        if (k.value("stride_bytes", std::uint64_t{0}) == g.stride && k.value("clean_slots", std::uint64_t{0}) > 0)
          lo = std::min(lo, std::max(k["clean_slots"].get<std::uint64_t>(), narrowed - narrowed / 16));
    if (fill(g, lo, b->cov_hi / unit)) out.push_back(g);
  }
  return out;
}

}  // namespace

std::vector<Range> entry_ranges(const TopologyResult& r) {
  return level_ranges(r, [](Range& g, std::uint64_t lo, std::uint64_t hi) {
    g.from_slots = std::max<std::uint64_t>(2, lo);
    g.to_slots = hi + 2;
    if (g.to_slots - g.from_slots <= kNarrow) return false;
    g.step_slots = (g.to_slots - g.from_slots + kNarrowPoints - 1) / kNarrowPoints;
    return true;
  });
}

std::vector<Range> stage_ranges(const TopologyResult& r) {
  return level_ranges(r, [](Range& g, std::uint64_t lo, std::uint64_t hi_slots) {
    const std::uint64_t hi = hi_slots + 1;
    g.from_slots = lo > 4 ? lo - 2 : 2;
    g.to_slots = hi + std::clamp(hi / 4, kStageMinExtra, kStageMaxExtra);
    // One slot at a time where the range is narrow enough; a wide one (no
    // narrowing measured) is crossed in as many steps, and gives no sets.
    g.step_slots = (g.to_slots - g.from_slots + kStagePoints - 1) / kStagePoints;
    return true;
  });
}

std::vector<SpecOverride> range_sweep(const std::vector<Range>& ranges, const Limits& limits) {
  std::vector<std::uint64_t> sizes, strides, iterations;
  for (const auto& g : ranges)
    for (std::uint64_t n = g.from_slots; n <= g.to_slots; n += g.step_slots) {
      if (n * g.stride > limits.footprint_cap) break;
      sizes.push_back(n * g.stride);
      strides.push_back(g.stride);
      iterations.push_back(iterations_for(n));
    }
  return {{"sweep", zip(sizes, strides, iterations)}};
}

std::vector<SpreadRange> spread_ranges(const TopologyResult& r) {
  std::vector<SpreadRange> out;
  if (!r.tlb || !r.tlb->levels) return out;
  const Limits lim = limits(r);
  const auto& levels = *r.tlb->levels;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const nlohmann::json& L = levels[i];
    const std::string assoc = L.value("associativity", "undetermined");
    if (assoc == "set-associative" || !L.contains("span_bytes") || !L["span_bytes"].is_number()) continue;
    const auto span = L["span_bytes"].get<std::uint64_t>();
    const auto b = bounds_of(r, L, lim);
    if (!b || span < kMinStride) continue;
    SpreadRange g;
    g.level = i;
    g.stride = span + span / kSpreadSets + kSlotPad * (i + 1);
    g.ways_lo = b->cov_lo / span;
    g.ways_hi = (b->cov_hi + span - 1) / span;
    g.penalty = penalty_of(L);
    if (g.ways_lo < kSpreadMinWays || g.penalty <= 0) continue;
    std::uint64_t most = std::min(lim.aliased_slot_cap, lim.footprint_cap / g.stride);
    if (i + 1 < levels.size()) {
      const auto next = bounds_of(r, levels[i + 1], lim);
      if (next) most = std::min(most, next->cov_lo / 10 * 9 / g.stride);
    }
    // A tenth below and 15 % above k W for k = 1, 2, 4, .. 16: no point lies just past S W
    // for S a power of two, where a level that replaces at random misses too few accesses
    // to be seen (a point read as clean there would claim one set too many).
    for (std::uint64_t k = 1; k <= kSpreadSets; k *= 2) {
      const auto below = static_cast<std::uint64_t>(std::floor(0.9 * static_cast<double>(k * g.ways_lo)));
      const auto above = static_cast<std::uint64_t>(std::ceil(1.15 * static_cast<double>(k * g.ways_hi)));
      if (above > most) break;
      if (g.slots.empty() || below > g.slots.back()) g.slots.push_back(below);
      if (above > g.slots.back()) g.slots.push_back(above);
      g.most_sets = k;
    }
    if (g.most_sets >= 1) out.push_back(std::move(g));
  }
  return out;
}

namespace {

// One series of tlb_spread: its stride, slot counts and the level's penalty.
struct SpreadSeries {
  std::uint64_t stride = 0;
  const std::vector<std::uint64_t>* slots = nullptr;
  double penalty = 0;
};

// {zip: [{array.size, array.stride, iterations}]} of the series, and tlb_spread with each
// stride's penalty.
std::vector<SpecOverride> spread_series_sweep(const std::vector<SpreadSeries>& series) {
  std::vector<std::uint64_t> sizes, strides, iterations;
  std::string penalties;
  for (const auto& s : series) {
    for (const auto n : *s.slots) {
      sizes.push_back(n * s.stride);
      strides.push_back(s.stride);
      iterations.push_back(iterations_for(n));
    }
    append_penalty(penalties, s.stride, s.penalty);
  }
  return {{"sweep", zip(sizes, strides, iterations)},
          {"analyzers", "[{tlb_spread: {penalties: '" + penalties + "'}}]"}};
}

}  // namespace

std::vector<SpecOverride> spread_sweep(const std::vector<SpreadRange>& ranges) {
  std::vector<SpreadSeries> series;
  for (const auto& g : ranges) series.push_back({g.stride, &g.slots, g.penalty});
  return spread_series_sweep(series);
}

const SpreadRange* spread_range_of(const std::vector<SpreadRange>& ranges, std::uint64_t stride) {
  for (const auto& g : ranges)
    if (g.stride == stride) return &g;
  return nullptr;
}

std::vector<ReachRange> reach_ranges(const TopologyResult& r) {
  std::vector<ReachRange> out;
  if (!r.tlb || !r.tlb->levels) return out;
  const Limits lim = limits(r);
  const auto& levels = *r.tlb->levels;
  std::uint64_t page = kMinStride;
  if (r.tlb->page_granule_bytes) page = std::max(page, *r.tlb->page_granule_bytes);
  else if (r.tlb->page_bytes) page = std::max(page, *r.tlb->page_bytes);
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const nlohmann::json& L = levels[i];
    auto number = [&](const char* k) {
      return L.contains(k) && L[k].is_number() ? L[k].get<std::uint64_t>() : std::uint64_t{0};
    };
    const std::uint64_t span = number("span_bytes"), at_least = number("entries_at_least");
    if (span == 0 || number("reach_at_most_bytes") != span || L.contains("reach_bytes")) continue;
    const auto b = bounds_of(r, L, lim);
    if (!b) continue;
    ReachRange g;
    g.level = i;
    g.ways_lo = std::max<std::uint64_t>(1, b->cov_lo / span);
    g.ways_hi = std::max(g.ways_lo, (b->cov_hi + span - 1) / span);
    // The footprint sweep's last clean point at the span, where it is below the bracket (a
    // bracket whose lower end a few stray misses moved past the capacity would put the
    // points at twice the ways past it, and each run somewhere else).
    if (L.contains("knees_at_coverage") && L["knees_at_coverage"].is_array())
      for (const auto& k : L["knees_at_coverage"])
        if (k.value("stride_bytes", std::uint64_t{0}) == span + kSlotPad && k.value("clean_slots", std::uint64_t{0}) > 0)
          g.ways_lo = std::min(g.ways_lo, k["clean_slots"].get<std::uint64_t>());
    g.entries_at_least = at_least;
    g.penalty = penalty_of(L);
    // Fewer entries than one set at the span holds: no point at half the span can show
    // a reach below it (its first miss needs as many entries of the span).
    if (at_least <= g.ways_hi || g.penalty <= 0) continue;
    std::uint64_t most_bytes = lim.footprint_cap;
    if (i + 1 < levels.size())
      if (const auto next = bounds_of(r, levels[i + 1], lim)) most_bytes = std::min(most_bytes, next->cov_lo / 10 * 9);
    const std::uint64_t w2_lo = 2 * g.ways_lo, w2_hi = 2 * g.ways_hi;
    auto scaled = [](std::uint64_t v, double f) { return static_cast<std::uint64_t>(std::llround(f * static_cast<double>(v))); };
    // Each series' first point fits whatever the reach: no more slots than the entries bound
    // (one entry a slot at most, contiguous ones), and a tenth below twice the ways.
    const std::uint64_t first = std::min(scaled(w2_lo, 0.9), at_least);
    const std::vector<std::vector<std::uint64_t>> wanted = {
        {first, w2_lo, scaled(w2_hi, 1.03), scaled(w2_hi, 1.06)},
        {first, scaled(w2_hi, 1.5)}};
    for (std::uint32_t h = 1; h <= wanted.size(); ++h) {
      ReachSeries s;
      s.unit = span >> h;
      if (s.unit < page || (s.unit << h) != span) break;
      s.stride = s.unit + kSlotPad * (i + 1);
      for (const auto n : wanted[h - 1])
        if (n >= 2 && n <= lim.aliased_slot_cap && n * s.stride <= most_bytes && (s.slots.empty() || n > s.slots.back()))
          s.slots.push_back(n);
      if (s.slots.size() < 2) break;
      g.series.push_back(std::move(s));
    }
    if (!g.series.empty()) out.push_back(std::move(g));
  }
  return out;
}

std::vector<SpecOverride> reach_sweep(const std::vector<ReachRange>& ranges) {
  std::vector<SpreadSeries> series;
  for (const auto& g : ranges)
    for (const auto& s : g.series) series.push_back({s.stride, &s.slots, g.penalty});
  return spread_series_sweep(series);
}

std::vector<SpecOverride> stage_sweep(const std::vector<Range>& ranges, const Limits& limits) {
  auto out = range_sweep(ranges, limits);
  // A stride two levels share makes one series of both: its misses are no one level's,
  // and tlb_overflow is given no penalty for it.
  std::string penalties;
  for (const auto& g : ranges) {
    const auto same = std::count_if(ranges.begin(), ranges.end(), [&](const Range& o) { return o.stride == g.stride; });
    if (g.penalty > 0 && same == 1) append_penalty(penalties, g.stride, g.penalty);
  }
  out.push_back({"analyzers", "[{tlb: {strides: separate}}, {tlb_overflow: {penalties: '" + penalties + "'}}]"});
  return out;
}

std::vector<ScopeRange> scope_ranges(const TopologyResult& r) {
  std::vector<ScopeRange> out;
  if (!r.tlb || !r.tlb->levels) return out;
  const Limits lim = limits(r);
  const std::uint64_t sms = r.device.sm_count.value_or(1);
  for (std::size_t i = 0; i < r.tlb->levels->size(); ++i) {
    const nlohmann::json& L = (*r.tlb->levels)[i];
    const auto b = bounds_of(r, L, lim);
    if (!b) continue;
    ScopeRange g;
    g.level = i;
    // One slot per entry, consecutive slots in consecutive sets: the reach where it is
    // known, else the stride the stage method swept the level at.
    const std::uint64_t unit = L.contains("reach_bytes") && L["reach_bytes"].is_number()
                                   ? L["reach_bytes"].get<std::uint64_t>()
                                   : (L.contains("stage_stride_bytes") && L["stage_stride_bytes"].is_number()
                                          ? L["stage_stride_bytes"].get<std::uint64_t>()
                                          : b->stride) -
                                         kSlotPad;
    // A pad of its own per level: levels swept at one granule stay apart as series (the
    // analyzer reads one series per stride) and the finding names its level's stride.
    g.stride = unit + kSlotPad * (i + 1);
    g.entries = L.contains("entries") && L["entries"].is_number() ? L["entries"].get<std::uint64_t>()
                                                                  : (b->cov_lo + b->cov_hi) / 2 / unit;
    if (g.entries < 4) continue;
    g.hit_slots = g.entries * 3 / 4;
    g.miss_slots = 2 * g.hit_slots;
    g.penalty = penalty_of(L);
    if (g.miss_slots * g.stride > lim.footprint_cap || g.miss_slots > lim.aliased_slot_cap) continue;
    // Every SM's slots together stay a tenth short of the next level's coverage: SMs that
    // overran a shared next level would pay its penalty, whatever this level's scope.
    std::uint64_t footprint_cap = lim.footprint_cap;
    if (i + 1 < r.tlb->levels->size())
      if (const auto next = bounds_of(r, (*r.tlb->levels)[i + 1], lim)) footprint_cap = std::min(footprint_cap, next->cov_lo / 10 * 9);
    // Every SM last: a level shared by any group of SMs (a TPC, a GPC) then has two of its
    // SMs chasing, wherever the scheduler puts the blocks.
    for (const std::uint64_t blocks :
         {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{8}, std::uint64_t{16}, std::uint64_t{32}, sms})
      if (blocks <= sms && (g.blocks.empty() || blocks > g.blocks.back()) && blocks * g.hit_slots <= lim.aliased_slot_cap &&
          blocks * per_block_array_stride(g.hit_slots * g.stride) <= footprint_cap)
        g.blocks.push_back(static_cast<std::uint32_t>(blocks));
    if (g.blocks.size() >= 2) out.push_back(std::move(g));
  }
  return out;
}

std::vector<SpecOverride> scope_sweep(const std::vector<ScopeRange>& ranges) {
  auto list = [](const auto& v, const char* unit) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i == 0 ? "" : ", ") + std::to_string(v[i]) + unit;
    return s + "]";
  };
  std::vector<std::uint64_t> blocks, sizes, strides, iterations;
  auto add = [&](std::uint64_t b, std::uint64_t slots, std::uint64_t stride, double penalty) {
    blocks.push_back(b);
    sizes.push_back(slots * stride);
    strides.push_back(stride);
    // Block 0's mean must tell a quarter of the penalty P from half of it at z = 4
    // standard errors: a standard error of P / 16 at most, over accesses whose latencies
    // spread by some 40 cycles (the L2's near and far halves): (640 / P)^2 accesses, at
    // least four passes (a level that is not LRU settles over the first) and 4096. A
    // level of unknown penalty: 64 passes.
    const std::uint64_t needed =
        penalty > 0 ? static_cast<std::uint64_t>(std::ceil((640 / penalty) * (640 / penalty))) : 64 * slots;
    iterations.push_back(std::max({std::uint64_t{4096}, 4 * slots, needed}));
  };
  // Each level's largest footprint first: the arena is allocated once, for the largest, and
  // block 0's copy keeps its frames (its L2 lines) from point to point.
  for (const auto& g : ranges) {
    const std::uint64_t most_blocks = g.blocks.back();
    const bool penalty_first = g.miss_slots * g.stride > most_blocks * per_block_array_stride(g.hit_slots * g.stride);
    if (penalty_first) add(1, g.miss_slots, g.stride, g.penalty);
    for (auto b = g.blocks.rbegin(); b != g.blocks.rend(); ++b) add(*b, g.hit_slots, g.stride, g.penalty);
    if (!penalty_first) add(1, g.miss_slots, g.stride, g.penalty);
  }
  return {{"sweep", "{zip: [{layout.blocks: " + list(blocks, "") + ", array.size: " + list(sizes, " B") +
                        ", array.stride: " + list(strides, " B") + ", iterations: " + list(iterations, "") + "}]}"}};
}

const Range* range_of(const std::vector<Range>& ranges, const nlohmann::json& level) {
  if (!level.contains("stride_bytes") || !level.contains("knee_slots") || !level["knee_slots"].is_number())
    return nullptr;
  const auto stride = level["stride_bytes"].get<std::uint64_t>();
  const auto entries = level["knee_slots"].get<std::uint64_t>();
  for (const auto& g : ranges)
    if (g.stride == stride && g.from_slots <= entries && entries <= g.to_slots) return &g;
  return nullptr;
}

}  // namespace dissect::tlb_sweeps
