#include "engine/topology/topology_absorb.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

#include "engine/spec/units.hpp"
#include "engine/topology/l2_partition_copies.hpp"
#include "engine/topology/tlb_sweeps.hpp"

namespace dissect::absorb {
namespace {

bool table_worthy(const findings::Verdict& v) { return v.determined && v.confidence >= kTableConfidence; }

// The note kept instead of a finding the table does not state.
std::string kept_out_note(const findings::Verdict& v) {
  return v.determined ? "low confidence (" + std::to_string(v.confidence) + "): " + v.summary : v.reason;
}

}  // namespace

void latency(TopologyResult& r, const std::string& cache, const Findings& fs) {
  const auto l = findings::latency(fs);
  if (!l) return;
  CacheResult& c = r.cache(cache);
  c.latency_cycles = l->cycles;
  if (l->timer_overhead_cycles) {
    c.timer_overhead_cycles = *l->timer_overhead_cycles;
    c.latency_corrected_cycles = l->cycles - *l->timer_overhead_cycles;
  }
}

void fetch(TopologyResult& r, const std::string& cache, const Findings& fs) {
  const auto f = findings::line_size(fs);
  if (!f) return;
  r.cache(cache).fetch_bytes = f->fetch_bytes.value_or(f->line_bytes);
}

void size(CacheResult& c, const Findings& fs) {
  const auto f = findings::cache_size(fs);
  if (!f) return;
  c.size_confidence = f->verdict.confidence;
  if (!f->size_bytes) {
    c.size_note = f->verdict.reason;
    return;
  }
  c.size_bytes = f->size_bytes;
  if (f->hit_latency_cycles) c.hit_level_cycles = f->hit_latency_cycles;
  if (f->miss_latency_cycles) c.miss_level_cycles = f->miss_latency_cycles;
}

namespace {

// Whether far lines are held twice: read again whenever one of its figures arrives (the
// three L2 steps may complete in any order).
void l2_copies(TopologyResult& r) {
  CacheResult& c = r.cache("l2");
  std::optional<std::uint64_t> partitions;
  if (c.partition_map && c.partition_map->contains("groups") && (*c.partition_map)["groups"].is_number_integer() &&
      (*c.partition_map)["groups"].get<std::int64_t>() > 0)
    partitions = static_cast<std::uint64_t>((*c.partition_map)["groups"].get<std::int64_t>());
  c.partition_copies = read_partition_copies({.one_sm_bytes = c.one_sm_bytes,
                                              .whole_gpu_bytes = c.whole_gpu_bytes,
                                              .partitions = partitions,
                                              .driver_bytes = r.driver.l2_bytes,
                                              .one_sm_confidence = c.one_sm_confidence,
                                              .whole_gpu_confidence = c.whole_gpu_bytes ? c.size_confidence
                                                                                        : std::nullopt});
}

}  // namespace

void l2_one_sm(TopologyResult& r, const Findings& fs) {
  CacheResult& c = r.cache("l2");
  size(c, fs);
  c.one_sm_bytes = c.size_bytes;
  c.one_sm_confidence = c.size_bytes ? c.size_confidence : std::nullopt;
  // Until l2_whole_size replaces it (a step that fails or does not run leaves this said).
  if (c.size_bytes) c.size_note = "what one SM fills: the L2 from every SM at once was not measured";
  l2_copies(r);
}

void l2_whole(TopologyResult& r, const Findings& fs, std::uint64_t sms) {
  const auto f = findings::cache_size(fs);
  if (!f) return;
  CacheResult& c = r.cache("l2");
  c.whole_gpu_sms = sms;
  if (!f->size_bytes) {
    c.whole_gpu_bytes.reset();
    c.whole_gpu_note = "every SM at once (" + std::to_string(sms) + "): " + f->verdict.reason;
    c.size_bytes.reset();
    c.size_confidence.reset();
    c.size_note = "the L2 every SM fills at once is undetermined: " + *c.whole_gpu_note +
                  (c.one_sm_bytes ? " (one SM fills " + format_bytes(*c.one_sm_bytes) + ": one_sm_bytes)" : "");
    l2_copies(r);
    return;
  }
  c.whole_gpu_bytes = *f->size_bytes * sms;
  c.size_bytes = c.whole_gpu_bytes;
  c.size_confidence = f->verdict.confidence;
  c.size_note.reset();
  c.whole_gpu_note.reset();
  l2_copies(r);
}

void l2_partition_map(TopologyResult& r, const Findings& fs) {
  for (const Finding& f : fs) {
    if (f.analyzer != "partition_map") continue;
    CacheResult& c = r.cache("l2");
    if (f.value.is_null()) {
      c.partition_map.reset();
      c.partition_map_note = f.summary;
    } else {
      nlohmann::json m = f.details;
      m["groups"] = f.value;
      m["summary"] = f.summary;
      c.partition_map = std::move(m);
      c.partition_map_note.reset();
    }
    l2_copies(r);
    return;
  }
}

void line(TopologyResult& r, const std::string& cache, const Findings& fs) {
  const auto f = findings::line_size(fs);
  if (!f) return;
  CacheResult& c = r.cache(cache);
  if (!table_worthy(f->verdict)) {
    c.line_note = kept_out_note(f->verdict);
    return;
  }
  c.line_bytes = f->line_bytes;
  c.line_confidence = f->verdict.confidence;
  if (f->fetch_bytes && !c.fetch_bytes) c.fetch_bytes = f->fetch_bytes;
}

void line_blocks(TopologyResult& r, const std::string& cache, const Findings& fs) {
  const auto f = findings::line_capacity(fs);
  if (!f) return;
  CacheResult& c = r.cache(cache);
  if (!table_worthy(f->verdict)) {
    c.line_blocks_note = kept_out_note(f->verdict);
    return;
  }
  const std::uint64_t line = *f->line_bytes;
  if (c.line_bytes && *c.line_bytes != line)
    c.line_note = "the miss spacing of a small-stride chase said " + std::to_string(*c.line_bytes) +
                  " B; the occupancy of one access per block says " + std::to_string(line) + " B (taken)";
  else
    c.line_note.reset();
  c.line_bytes = line;
  c.line_confidence = f->verdict.confidence;
  c.line_method = "occupancy: " + f->verdict.summary;
}

void sets(TopologyResult& r, const std::string& cache, const Findings& fs) {
  const auto f = findings::sets(fs);
  if (!f) return;
  CacheResult& c = r.cache(cache);
  if (!table_worthy(f->verdict)) {
    c.sets_note = kept_out_note(f->verdict);
    return;
  }
  c.sets = f->sets;
  c.sets_source = "stage method";
  c.sets_confidence = f->verdict.confidence;
  if (f->ways) c.ways = f->ways;
  if (f->lines_per_block) c.lines_per_block = f->lines_per_block;
  if (f->bit_defined) c.bit_defined = f->bit_defined;
  if (f->set_sizes) c.set_sizes = f->set_sizes;
}

void replacement(TopologyResult& r, const std::string& cache, const Findings& fs) {
  const auto f = findings::replacement(fs);
  if (!f) return;
  CacheResult& c = r.cache(cache);
  c.replacement = f->policy;
  if (f->deterministic) c.replacement_deterministic = f->deterministic;
  if (f->way_probabilities) c.way_probabilities = f->way_probabilities;
}

void stage_profile(TopologyResult& r, const std::string& cache, const Findings& fs) {
  for (const Finding& f : fs) {
    if (f.analyzer != "stage_profile") continue;
    nlohmann::json m = f.value.is_null() ? nlohmann::json::object() : f.details;
    m["determined"] = !f.value.is_null();
    if (!f.value.is_null()) m["clean_bytes"] = f.value;
    m["summary"] = f.summary;
    r.cache(cache).stage_profile = std::move(m);
    return;
  }
}

namespace {
std::string fmt_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}
}  // namespace

void conflict(TopologyResult& r, const std::string& cache, const Findings& fs) {
  struct Fit {
    std::uint64_t stride = 0, lines = 0, first_miss = 0;
    bool exact = false, at_least = false;
  };
  std::vector<Fit> fits;
  std::string other;  // a stride whose finding says neither
  for (const Finding& f : fs) {
    if (f.analyzer != "stage_profile") continue;
    Fit x;
    x.stride = f.details.value("line_bytes", std::uint64_t{0});
    if (!f.value.is_null() && f.details.contains("clean_lines")) {
      x.lines = f.details["clean_lines"].get<std::uint64_t>();
      x.first_miss = f.details.value("first_miss_lines", std::uint64_t{0});
      x.exact = x.first_miss == x.lines + 1;
    } else if (f.details.contains("clean_lines_at_least")) {
      x.lines = f.details["clean_lines_at_least"].get<std::uint64_t>();
      x.at_least = true;
    } else {
      other += (other.empty() ? "" : "; ") + f.summary;
      continue;
    }
    fits.push_back(x);
  }
  if (fits.empty() && other.empty()) return;
  std::sort(fits.begin(), fits.end(), [](const Fit& a, const Fit& b) { return a.stride < b.stride; });
  CacheResult& c = r.cache(cache);
  nlohmann::json j;
  nlohmann::json strides = nlohmann::json::array();
  std::string seen;
  for (const Fit& x : fits) {
    strides.push_back({{"stride_bytes", x.stride},
                       {x.at_least ? "lines_fit_at_least" : "lines_fit", x.lines},
                       {"exact", x.exact}});
    seen += (seen.empty() ? "" : ", ") + std::string(x.at_least ? ">= " : x.exact ? "" : "~") + std::to_string(x.lines) +
            " at " + format_bytes(x.stride);
  }
  j["strides"] = strides;
  const bool all_exact = !fits.empty() && other.empty() &&
                         std::all_of(fits.begin(), fits.end(), [](const Fit& x) { return x.exact; });
  const bool equal = all_exact && std::all_of(fits.begin(), fits.end(), [&](const Fit& x) { return x.lines == fits[0].lines; });
  const std::uint64_t b = c.line_bytes.value_or(0);
  const std::uint64_t size = c.size_bytes.value_or(0);
  // The stage sweep's first overflow, where every point past the capacity was periodic (an
  // LRU-like policy): one set overflowed by one line misses all its ways + 1 lines every
  // pass, whatever the index. (A random policy misses fewer, and proves nothing here.)
  std::optional<double> stage_first_miss;
  if (c.stage_profile && c.stage_profile->value("determined", false) && c.stage_profile->contains("first_miss_per_pass") &&
      c.stage_profile->value("aperiodic_points", 1) == 0)
    stage_first_miss = (*c.stage_profile)["first_miss_per_pass"].get<double>();
  const bool stage_agrees =
      !stage_first_miss || fits.empty() || std::fabs(*stage_first_miss - static_cast<double>(fits[0].lines + 1)) <= 0.5;
  // Without that confirmation (no periodic stage sweep: a random policy, --only), lines of
  // power-of-two strides share one set only where the set count is a power of two (m x 2^k
  // sets put them into m sets at every such stride, and 3 s / 2 catches only m = 3): W is
  // then reported as the ways "if the sets are a power of two", and no sets are claimed.
  const bool confirmed = stage_first_miss.has_value() && stage_agrees;
  if (equal && !stage_agrees) {
    j["summary"] = "lines fit " + seen + " apart, yet one line past the capacity misses " + fmt_number(*stage_first_miss) +
                   " lines per pass, not " + std::to_string(fits[0].lines + 1) +
                   ": the strided lines fill more than one set (a set count that is not a power of two), so no set "
                   "of ways is read from them";
  } else if (equal && fits.size() >= 3 && b > 0 && size > 0 && fits[0].lines * b < size && !confirmed) {
    const std::uint64_t ways = fits[0].lines;
    j["ways_if_power_of_two_sets"] = ways;
    j["summary"] = "lines fit " + seen + " apart: " + std::to_string(ways) + " ways" +
                   (size % (ways * b) == 0 ? " and " + std::to_string(size / (ways * b)) + " sets" : std::string()) +
                   " if the set count is a power of two (no periodic stage sweep confirms that the lines share "
                   "one set: no sets claimed)";
  } else if (equal && fits.size() >= 3 && b > 0 && size > 0 && fits[0].lines * b < size) {
    const std::uint64_t ways = fits[0].lines;
    j["ways"] = ways;
    if (size % (ways * b) == 0) j["sets"] = size / (ways * b);
    j["summary"] = "lines fit " + seen + " apart, and one line past the capacity misses " + std::to_string(ways + 1) +
                   " lines per pass: they share one set of " + std::to_string(ways) + " ways" +
                   (j.contains("sets") ? "; " + j["sets"].dump() + " sets of " + format_bytes(b) + " lines" : "");
    if (!c.sets && j.contains("sets")) {
      c.sets = j["sets"].get<std::uint64_t>();
      c.ways = static_cast<double>(ways);
      c.sets_source = "conflicts";
      c.sets_note.reset();
    } else if (c.sets && j.contains("sets") &&
               (*c.sets != j["sets"].get<std::uint64_t>() || (c.ways && *c.ways != static_cast<double>(ways)))) {
      j["disagrees_with_stage_method"] = true;
    }
  } else if (!fits.empty() && std::all_of(fits.begin(), fits.end(), [](const Fit& x) { return x.at_least; })) {
    std::uint64_t least = fits[0].lines;
    for (const Fit& x : fits) least = std::min(least, x.lines);
    j["summary"] = "no conflict: " + seen + " apart all hit: the set index is not made of address bits below " +
                   format_bytes(fits[0].stride) + " (a hash of higher bits), or a set has at least " +
                   std::to_string(least) + " ways";
  } else if (!fits.empty() && other.empty() && std::all_of(fits.begin(), fits.end(), [&](const Fit& x) {
               return !x.at_least && x.lines == fits[0].lines && x.first_miss == fits[0].first_miss;
             })) {
    j["summary"] = "lines fit " + seen + " apart: one set of " + std::to_string(fits[0].lines) + " to " +
                   std::to_string(fits[0].first_miss - 1) + " ways, if they share one (the sweep steps " +
                   std::to_string(fits[0].first_miss - fits[0].lines) + " lines there)";
  } else {
    j["summary"] = "lines fit " + (seen.empty() ? std::string("-") : seen) + " apart" +
                   (other.empty() ? "" : " (" + other + ")") +
                   ": not one count at every stride, so no set of ways is read from them";
  }
  c.conflict = std::move(j);
}

void sharing(TopologyResult& r, const std::string& a, const std::string& b, const Findings& fs) {
  const auto f = findings::sharing(fs);
  if (!f) return;
  r.sharing[a + "/" + b] = {f->shared, f->confidence};
  if (!f->shared) return;
  auto add = [&](const std::string& cache, const std::string& other) {
    auto& with = r.cache(cache).shared_with;
    if (!with) with.emplace();
    with->push_back(other);
  };
  add(a, b);
  add(b, a);
}

// No knee below the 64 KiB a module may hold: only a lower bound, when the sweep
// reached its end without one.
void constant_l15_size(TopologyResult& r, const Findings& fs) {
  CacheResult& c = r.cache("constant_l15");
  size(c, fs);
  if (c.size_bytes) return;
  c.size_note = "no knee below 63 KiB: larger than a module's constant memory";
  if (const auto f = findings::cache_size(fs); f && !f->size_bytes && f->lower_bound_bytes)
    c.size_lower_bound_bytes = f->lower_bound_bytes;
}

// A cache that is the texture cache's storage (sharing steps) has as many per SM.
void texture_amount(TopologyResult& r, const Findings& fs) {
  const auto n = findings::amount(fs);
  if (!n) return;
  r.cache("texture").per_sm = n;
  for (const char* other : {"l1", "readonly"}) {
    CacheResult& c = r.cache(other);
    if (!c.shared_with) continue;
    for (const auto& w : *c.shared_with)
      if (w == "texture") {
        c.per_sm = n;
        c.per_sm_note = "the texture cache's storage (sharing step): as many per SM";
      }
  }
}

void l2_levels(TopologyResult& r, const Findings& fs) {
  if (auto medians = findings::latency_level_medians(fs)) r.cache("l2").hit_levels_cycles = std::move(medians);
}

void banks(TopologyResult& r, const Findings& fs) {
  const auto f = findings::banks(fs);
  if (!f) return;
  CacheResult& c = r.cache("shared");
  c.banks = f->banks;
  if (f->width_bytes) c.bank_width_bytes = f->width_bytes;
}

// A level is shown only when the analyzer found one (a staircase of pages that
// keep missing); otherwise its reason is kept as a note (a GPU whose TLB reaches
// beyond the sweep shows only the L2's near/far wobble, which is no TLB level).
void tlb_levels(TopologyResult& r, const Findings& fs) {
  const auto f = findings::tlb(fs);
  if (!f) return;
  TlbResult& t = r.tlb_row();
  if (!f->verdict.determined) {
    t.levels_note = f->verdict.reason;
    return;
  }
  t.levels = f->levels;
  t.levels_note.reset();
}

namespace {

// A level record's coverage bracket (coverage_range_bytes; {0, max} where none).
std::pair<std::uint64_t, std::uint64_t> coverage_range(const nlohmann::json& L) {
  if (L.contains("coverage_range_bytes") && L["coverage_range_bytes"].is_array() && L["coverage_range_bytes"].size() == 2 &&
      L["coverage_range_bytes"][0].is_number() && L["coverage_range_bytes"][1].is_number())
    return {L["coverage_range_bytes"][0].get<std::uint64_t>(), L["coverage_range_bytes"][1].get<std::uint64_t>()};
  return {0, std::numeric_limits<std::uint64_t>::max()};
}

// The coverage a level record of 'tlb_entries' or 'tlb_sets' bounds: n slots s
// apart fit, m do not: C in ((n - 1) s, (m - 1) s] (tlb_footprint.hpp), narrowed
// by what the level's record said before.
std::pair<std::uint64_t, std::uint64_t> coverage_of(const nlohmann::json& found, const nlohmann::json& L) {
  const auto n = found["knee_slots"].get<std::uint64_t>();
  const auto m = found.value("first_miss_entries", n + 1);
  const auto s = found["stride_bytes"].get<std::uint64_t>();
  std::uint64_t lo = (n > 0 ? n - 1 : 0) * s + 1, hi = (m > 0 ? m - 1 : 0) * s;
  if (!L.contains("coverage_range_bytes")) return {lo, hi};
  const auto [a, b] = coverage_range(L);
  // A knee outside the bracket the earlier steps measured contradicts them: the
  // bracket stands (a gradual rise's late knee must not move the coverage).
  if (std::max(lo, a) <= std::min(hi, b)) lo = std::max(lo, a), hi = std::min(hi, b);
  else lo = a, hi = b;
  return {lo, hi};
}

void set_coverage(nlohmann::json& L, std::uint64_t lo, std::uint64_t hi) {
  L["coverage_range_bytes"] = {lo, hi};
  L["coverage_bytes"] = lo == hi ? nlohmann::json(lo) : nlohmann::json(nullptr);
}

void per_page(TlbResult& t) {
  if (!t.levels) return;
  for (auto& L : *t.levels) L.erase("pages_per_entry");  // of a page since replaced
  if (!t.page_bytes) return;
  for (auto& L : *t.levels)
    if (L.contains("reach_bytes") && L["reach_bytes"].is_number() && *t.page_bytes > 0) {
      const auto reach = L["reach_bytes"].get<std::uint64_t>();
      if (reach >= *t.page_bytes && reach % *t.page_bytes == 0) L["pages_per_entry"] = reach / *t.page_bytes;
    }
}

}  // namespace

void tlb_entries(TopologyResult& r, const Findings& fs) {
  const auto f = findings::tlb(fs);
  if (!f || !f->verdict.determined || !r.tlb || !r.tlb->levels) return;
  const auto ranges = tlb_sweeps::entry_ranges(r);
  for (const auto& found : f->levels) {
    const auto* g = tlb_sweeps::range_of(ranges, found);
    if (g == nullptr) continue;
    auto& L = (*r.tlb->levels)[g->level];
    const auto [lo, hi] = coverage_of(found, L);
    set_coverage(L, lo, hi);
  }
}

// Entries, reach and sets from the stage method at a stride s = g + pad (g the
// page, or a power of two above it): a level of one set (fully associative)
// takes its reach from the footprint sweep's span (every slot misses at once,
// whatever an entry covers); a level of several sets shows how many slots share
// an entry (the tlb analyzer's slots_per_entry b: reach b x g).
void tlb_sets(TopologyResult& r, const Findings& fs) {
  const auto f = findings::tlb(fs);
  if (!f || !f->verdict.determined || !r.tlb || !r.tlb->levels) return;
  const auto ranges = tlb_sweeps::stage_ranges(r);
  // Per range, the level with the first knee: where a level's misses grow gradually
  // one slot at a time, the analyzer may read further steps out of that rise.
  std::map<const tlb_sweeps::Range*, const nlohmann::json*> first;
  for (const auto& found : f->levels)
    if (const auto* g = tlb_sweeps::range_of(ranges, found))
      if (first[g] == nullptr || found["knee_slots"].get<std::uint64_t>() < (*first[g])["knee_slots"].get<std::uint64_t>())
        first[g] = &found;
  for (const auto& [g, found_ptr] : first) {
    const nlohmann::json& found = *found_ptr;
    bool found_sets_open = false;
    auto& L = (*r.tlb->levels)[g->level];
    const std::uint64_t gran = g->stride - tlb_sweeps::kSlotPad;
    const auto n = found["knee_slots"].get<std::uint64_t>();
    const auto m = found.value("first_miss_entries", n + 2);
    // The stage sweep's penalty against the footprint sweep's: under half of it, the
    // stage saw a share of the accesses missing past its knee. Either the sweep ended a
    // few slots past the knee (results/h200/README.md), or the level's misses grow
    // gradually as slots are added one at a time (no LRU order: an LRU level under a
    // cyclic chase misses every access one slot past its entries): its first visible
    // misses bound its coverage from above, and no single slot is its knee.
    const double footprint =
        L.contains("miss_penalty_cycles") && L["miss_penalty_cycles"].is_number() ? L["miss_penalty_cycles"].get<double>() : 0.0;
    const double stage = found.contains("miss_penalty_cycles") && found["miss_penalty_cycles"].is_number()
                             ? found["miss_penalty_cycles"].get<double>()
                             : footprint;
    // Swept at the level's span, above the finest reach the page step measured (no
    // smaller reach can share the span at that reach): every slot is an entry of its own
    // and falls into one set; one slot past the knee, an LRU level misses every access.
    const std::uint64_t finest = r.tlb->page_granule_bytes ? *r.tlb->page_granule_bytes : r.tlb->page_bytes.value_or(0);
    const bool span_stride = L.contains("span_bytes") && L["span_bytes"].is_number() &&
                             L["span_bytes"].get<std::uint64_t>() == gran && gran > finest;
    const bool partial = stage < footprint / 2 ||
                         (span_stride && found.contains("share_missing_one_past") &&
                          found["share_missing_one_past"].is_number() && found["share_missing_one_past"].get<double>() < 0.9);
    std::uint64_t lo = 0, hi = 0;
    std::optional<bool> repeats;  // the same slots missing in every pass (tlb_overflow), where it could tell
    if (partial) {
      const auto [a, b] = coverage_range(L);
      // A level that misses a few accesses at a time past its entries may have missed
      // unseen at a point read as clean one slot at a time: the lower bound is the
      // footprint sweep's last clean point at this stride, where there is one (its points
      // lie a factor of sqrt 2 apart, clear of such a knee), else the bracket's.
      lo = a;
      if (L.contains("knees_at_coverage") && L["knees_at_coverage"].is_array())
        for (const auto& k : L["knees_at_coverage"])
          if (k.value("stride_bytes", std::uint64_t{0}) == g->stride && k.value("clean_slots", std::uint64_t{0}) > 0)
            lo = std::min(lo, (k["clean_slots"].get<std::uint64_t>() - 1) * g->stride + 1);
      hi = std::min(b, (m > 0 ? m - 1 : 0) * g->stride);
      if (hi < lo) lo = a, hi = b;  // the stage's first misses contradict the bracket: keep the bracket
      // Counted pass by pass (tlb_overflow): n slots without a miss in any pass fit (no
      // policy misses below its capacity), m with a miss in every pass do not.
      for (const Finding& o : fs) {
        if (o.analyzer != "tlb_overflow" || o.details.value("stride_bytes", std::uint64_t{0}) != g->stride ||
            !o.details.contains("holds_slots"))
          continue;
        const auto n_ok = o.details["holds_slots"].get<std::uint64_t>();
        std::uint64_t o_lo = n_ok > 0 ? (n_ok - 1) * g->stride + 1 : 0, o_hi = hi;
        if (o.details.contains("overflow_slots")) o_hi = (o.details["overflow_slots"].get<std::uint64_t>() - 1) * g->stride;
        if (std::max(lo, o_lo) <= std::min(hi, o_hi)) {
          lo = std::max(lo, o_lo);
          hi = std::min(hi, o_hi);
          L["overflow_note"] = o.summary;
          if (o.details.contains("misses_repeat_each_pass")) repeats = o.details["misses_repeat_each_pass"].get<bool>();
        } else {
          L["overflow_note"] = o.summary + ": outside the bracket the other readings give, not used";
        }
      }
    } else {
      const auto [a, b] = coverage_range(L);
      std::tie(lo, hi) = coverage_of(found, L);
      // One slot at a time: C is a whole number of g in ((n - 1) s, n s], unless that lies
      // more than a slot outside the bracket the earlier steps measured (their bounds count
      // the pads, so a slot's worth either way is the same reading): a stage reading thrown
      // off by noise on a level of a few cycles' penalty must not move a coverage the
      // footprint sweep read the same at every stride.
      const std::uint64_t c = n * gran;
      if (m == n + 1 && c + g->stride >= a && (c <= b || c - b <= g->stride)) lo = hi = c;
    }
    set_coverage(L, lo, hi);
    // At the span a staircase is no sets (every slot falls into one). A level the
    // footprint sweep left open, swept there (tlb_sweeps.cpp: its slots could share
    // entries below it): one step is one set of entries of the span, or S sets of a
    // reach of span / S, every slot in one of them; the step cannot tell.
    const std::string before = L.value("associativity", "undetermined");
    const bool open_at_span = before == "undetermined" && span_stride;
    std::string assoc = found.value("associativity", "undetermined");
    if (span_stride && !partial && before == "full") {
      assoc = "full";
      found_sets_open = true;
      L["sets_note"] = "one set, as the footprint sweep read it (swept at its span, " + format_bytes(gran) +
                       ", where every slot falls into one set)";
    } else if (partial) {
      // The stage tells no sets. A level the footprint sweep read as one set of entries of
      // its span keeps that reach, but not the one set: a single set whose replacement is
      // not LRU and sets that an index hashing the address fills evenly both run out a few
      // slots at a time (an LRU level of one set misses every access one slot past it).
      assoc = before == "full" ? "undetermined" : before;
      L["stage_misses_gradual"] = true;
      found_sets_open = true;
      // Gradual misses are a level that is not LRU, or sets that overflow one at a time in an
      // order of their own (an index that hashes the address): other slots missing from pass
      // to pass tell the first (tlb_overflow.cpp); the same ones leave both.
      const std::string seen = "one slot at a time past its entries (" + format_bytes(g->stride) +
                               " apart), the misses grow gradually (+" + fmt_number(stage) + " cycles past the first " +
                               std::to_string(n) + " slots, of the level's +" + fmt_number(footprint) + ")";
      if (repeats == false) {
        L["sets_note"] = seen + " and other slots miss from pass to pass: not LRU order, no sets; its first misses "
                                "bound the coverage from above";
        L["replacement"] = "not LRU";
      } else {
        L["sets_note"] = seen + (repeats ? " and the same slots miss pass after pass" : "") +
                         ": a level that is not LRU, or sets that fill in an order of their own (a hashed index); its "
                         "first misses bound the coverage from above";
        L.erase("replacement");
      }
    } else if (open_at_span) {
      L["entries_if_fully_associative"] = lo == hi ? nlohmann::json(lo / gran) : nlohmann::json(nullptr);
      L["sets_note"] = "swept at its span (" + format_bytes(gran) +
                       "), where one set of entries of the span and S sets of span / S look alike; the footprint "
                       "sweep did not tell them apart (no share of misses at half the span up to twice the coverage)";
      assoc = "undetermined";
      found_sets_open = true;
    }
    for (const char* k : {"sets", "set_sizes", "sets_at_least", "ways", "sets_note", "complete", "staircase_steps"}) {
      if (found_sets_open && (std::string(k) == "sets_note" || std::string(k) == "complete")) continue;
      if (found_sets_open || !found.contains(k)) L.erase(k);
      else L[k] = found[k];
    }
    if (found_sets_open && before == "full" && assoc == "full") L["sets"] = 1;  // one set, as the footprint sweep read it
    if (!partial) L.erase("stage_misses_gradual");
    L["associativity"] = assoc;
    L["stage_stride_bytes"] = g->stride;
    if (!partial) {
      L["miss_penalty_cycles"] = stage;
      L.erase("penalty_note");
    } else {
      const std::string why =
          stage < footprint / 2
              ? "under half the footprint sweep's +" + fmt_number(footprint) + ": a share of its accesses missing"
              : "with " + fmt_number(100.0 * found["share_missing_one_past"].get<double>()) +
                    "% of its accesses missing one slot past it (an LRU level misses every one there)";
      L["penalty_note"] = "the stage sweep at " + format_bytes(g->stride) + " saw +" + fmt_number(stage) +
                          " cycles past its knee, " + why + "; the footprint sweep's +" + fmt_number(footprint) +
                          " is kept";
    }
    // Read as one set by the footprint sweep, gradual misses here: its entries reach the
    // span at most (slots a span apart stop sharing them), and the slots spread over its sets
    // (tlb_spread) tell the rest; until then, bounds.
    if (partial && before == "full" && L.contains("span_bytes") && L["span_bytes"].is_number()) {
      const auto span = L["span_bytes"].get<std::uint64_t>();
      L["entries"] = nullptr;
      L.erase("entries_range");
      L.erase("reach_bytes");
      L["entries_at_least"] = (lo + span - 1) / span;
      L["reach_at_most_bytes"] = span;
      continue;
    }
    std::optional<std::uint64_t> reach;
    if (assoc == "full") {
      if (L.contains("span_bytes") && L["span_bytes"].is_number() && L["span_bytes"].get<std::uint64_t>() >= gran)
        reach = L["span_bytes"].get<std::uint64_t>();
      else
        L["reach_note"] = "fully associative, and the footprint sweep saw no span: the reach is taken as the stride's "
                          "power of two";
      if (!reach) reach = gran;
    } else if (!partial && !found_sets_open && (assoc == "set-associative" || found.contains("slots_per_entry"))) {
      // Steps one slot apart: an entry per slot; every b slots: b slots to an entry.
      reach = gran * found.value("slots_per_entry", std::uint64_t{1});
    }
    if (reach && lo == hi && lo % *reach == 0) {
      L["reach_bytes"] = *reach;
      L["entries"] = lo / *reach;
      L.erase("entries_range");
      if (assoc == "set-associative" && found.contains("set_sizes")) L["set_sizes"] = found["set_sizes"];
    } else {
      L["entries"] = nullptr;
      if (reach) {
        L["reach_bytes"] = *reach;
        // Whole entries within the bracket: one number where only one fits.
        const std::uint64_t e_lo = (lo + *reach - 1) / *reach, e_hi = hi / *reach;
        if (e_lo == e_hi) {
          L["entries"] = e_lo;
          L.erase("entries_range");
        } else if (e_lo < e_hi) {
          L["entries_range"] = {e_lo, e_hi};
        }
      }
    }
  }
  per_page(r.tlb_row());
}

// S sets of W ways hold S x W slots spread over them, one set W (tlb_sweeps.hpp); the
// finding's last clean point c and first missing point m bound S: S W >= c, S W < m,
// with W the whole numbers of span-sized entries in the level's coverage bracket.
void tlb_spread(TopologyResult& r, const Findings& fs) {
  if (!r.tlb || !r.tlb->levels) return;
  const auto ranges = tlb_sweeps::spread_ranges(r);
  for (const Finding& f : fs) {
    if (f.analyzer != "tlb_spread" || !f.details.contains("stride_bytes")) continue;
    const auto* g = tlb_sweeps::spread_range_of(ranges, f.details["stride_bytes"].get<std::uint64_t>());
    if (g == nullptr) continue;
    auto& L = (*r.tlb->levels)[g->level];
    const auto span = L["span_bytes"].get<std::uint64_t>();
    const std::string before = L.value("associativity", "undetermined");
    const std::string apart = format_bytes(g->stride) + " apart (its span x 17/16: every slot an entry of its own, "
                                                        "spread over up to 16 sets)";
    if (!f.details.contains("clean_slots")) {
      L["spread_note"] = "slots " + apart + ": " + f.summary;  // the steps before stand, bounds too
      continue;
    }
    // Bounds only where this step finds no geometry (below); where it finds nothing, those
    // of the steps before stand.
    auto clear_bounds = [&] {
      L.erase("entries_at_least");
      L.erase("reach_at_most_bytes");
    };
    const auto [cov_lo, cov_hi] = coverage_range(L);
    std::uint64_t w_lo = (cov_lo + span - 1) / span, w_hi = cov_hi / span;
    if (w_lo == 0 || w_hi < w_lo) w_lo = g->ways_lo, w_hi = g->ways_hi;
    // The slots that fit: the last clean point's, or more where the pigeonhole principle
    // bounds them so (a point that rises too little for fewer to fit: tlb_spread.cpp).
    const auto clean = f.details["clean_slots"].get<std::uint64_t>();
    const std::uint64_t c = std::max(clean, f.details.value("holds_at_least_slots", std::uint64_t{0}));
    const std::uint64_t k_lo = std::max<std::uint64_t>(1, (c + w_hi - 1) / w_hi);
    std::optional<std::uint64_t> k_hi;
    std::string seen = "no miss up to " + std::to_string(clean) + " slots";
    if (c > clean) seen += ", at least " + std::to_string(c) + " fit (pigeonhole)";
    if (f.details.contains("first_miss_slots")) {
      const auto m = f.details["first_miss_slots"].get<std::uint64_t>();
      seen += ", misses at " + std::to_string(m);
      // A point between the clean ones and the first miss, beyond the noise but under a
      // tenth of the penalty, fits no whole number of sets: k sets of W miss at least
      // (N - k W) / N of the accesses past k W, whatever they replace, at the level's
      // penalty; fewer is a penalty that differs at this stride, or another level's
      // misses. The first miss then bounds nothing.
      // Where the pigeonhole principle accounts for that point (a few misses, too few for
      // fewer slots to fit), it is read, and the first miss bounds again.
      if (f.details.contains("unclear")) seen += " (" + f.details["unclear"].get<std::string>() + ")";
      if ((!f.details.contains("unclear") || c > clean) && !f.details.contains("first_miss_unconfirmed"))
        k_hi = (m + w_lo - 1) / w_lo - 1;
    }
    const std::string ways = w_lo == w_hi ? std::to_string(w_lo) : std::to_string(w_lo) + "-" + std::to_string(w_hi);
    L["spread_note"] = "slots " + apart + ": " + seen + "; " + ways + " fit at the span";
    auto undetermined = [&](const std::string& why) {
      L["associativity"] = "undetermined";
      L["sets"] = nullptr;
      L["entries"] = nullptr;
      for (const char* k : {"reach_bytes", "entries_range", "ways", "ways_range", "set_sizes", "sets_at_least"}) L.erase(k);
      L["sets_note"] = why;
    };
    // What holds without a geometry: each of the c slots that fit has an entry of its own
    // (they lie farther apart than the span, past which no two share one), and an entry
    // reaches at most the span (slots a span apart stop sharing entries).
    auto bounds = [&] {
      L["entries_at_least"] = c;
      L["reach_at_most_bytes"] = span;
    };
    // S sets of W entries each: entries S x W, one number where W is one.
    auto set_entries = [&](std::uint64_t sets) {
      L.erase("entries_if_fully_associative");
      L.erase("sets_at_least");
      if (w_lo == w_hi) {
        // One whole number of span-sized stretches in the bracket: the coverage is it.
        L["entries"] = sets * w_lo;
        L.erase("entries_range");
        set_coverage(L, w_lo * span, w_lo * span);
      } else {
        L["entries"] = nullptr;
        L["entries_range"] = {sets * w_lo, sets * w_hi};
      }
    };
    // The footprint sweep reads one set where a share of the accesses misses at half the
    // span, slots there sharing entries; a level whose every slot has an entry of its own
    // there (sets of a reach below the span) shows that share too when it does not replace
    // in LRU order, or when its sets fill unevenly there (an index that hashes the address
    // overflows some sets before others). Slots spread over the sets fit only in several:
    // one of the two, and the replacement is not claimed.
    const std::string not_lru_note =
        before == "full" ? "; the footprint sweep's one set (a share of misses at half the span) is a replacement that "
                           "is not LRU, or sets that fill unevenly there"
                         : "";
    auto several_sets = [&]() {
      L["associativity"] = "set-associative";
      L["ways"] = w_lo == w_hi ? nlohmann::json(w_lo) : nlohmann::json(nullptr);
      if (w_lo != w_hi) L["ways_range"] = {w_lo, w_hi};
      else L.erase("ways_range");
    };
    if (!k_hi) {
      if (k_lo >= 2) {
        several_sets();
        L["sets"] = nullptr;
        L["entries"] = nullptr;
        L.erase("entries_range");
        L.erase("set_sizes");
        L.erase("reach_bytes");
        L.erase("entries_if_fully_associative");
        L["sets_at_least"] = k_lo;
        L["sets_note"] = "at least " + std::to_string(k_lo) + " sets: spread over them, " + seen + ", where one set holds " +
                         ways + not_lru_note;
        bounds();
      }
      continue;
    }
    if (*k_hi < k_lo) {
      undetermined("spread over the sets, " + seen + ", where one set alone holds " + ways +
                   ": no whole number of sets fits" +
                   (k_lo >= 2 ? " (more slots fit than one set holds: not fully associative)" : ""));
      bounds();
      continue;
    }
    if (*k_hi > k_lo) {
      undetermined("spread over the sets, " + seen + ": " + std::to_string(k_lo) + " to " + std::to_string(*k_hi) +
                   " sets of " + ways + " fit");
      bounds();
      continue;
    }
    const std::uint64_t sets = k_lo;
    if (sets == 1) {
      clear_bounds();
      L["reach_bytes"] = span;
      set_entries(1);
      if (L.value("stage_misses_gradual", false)) {
        // The stage sweep's misses came a few at a time past the entries: one set whose
        // replacement is not LRU, or sets that an index hashing the address fills evenly here
        // as at the span; their entries and reach are the same either way.
        L["associativity"] = "undetermined";
        L["sets"] = nullptr;
        L["sets_note"] = "spread over every set, the slots run out past the " + ways +
                         " that fit at the span, and one slot at a time past them the misses grow gradually: one set "
                         "whose replacement is not LRU, or sets that an index hashing the address fills evenly at both "
                         "strides";
        continue;
      }
      L["associativity"] = "full";
      L["sets"] = 1;
      L["sets_note"] = std::string(before == "full" ? "one set, as the footprint sweep read it; " : "one set: ") +
                       "spread over every set, the slots run out past the " + ways + " that fit at the span";
      continue;
    }
    if (span % sets != 0) {
      undetermined(std::to_string(sets) + " sets of " + ways + " ways, but the span " + format_bytes(span) +
                   " is no whole number of entries of each set");
      bounds();
      continue;
    }
    clear_bounds();
    several_sets();
    L["sets"] = sets;
    L["reach_bytes"] = span / sets;
    set_entries(sets);
    if (w_lo == w_hi) L["set_sizes"] = std::vector<std::uint64_t>(sets, w_lo);
    else L.erase("set_sizes");
    L["sets_note"] = std::to_string(sets) + " sets of " + ways + " ways: spread over every set, " + seen +
                     "; each set's entries reach span / sets" + not_lru_note;
  }
  per_page(r.tlb_row());
}

// The reading of tlb_sweeps.hpp (reach_ranges), stride by stride, half the span first: a
// confirmed first miss at n slots, where entries of twice the stride would need at most
// (n - 1) x stride / (twice the stride) + 2 contiguous ones and the level holds at least E,
// shows a reach of the stride at most when those are no more than E; every slot is then an entry of its own, so
// the slots that fit there (clean, or n - misses per pass) bound the entries, and the next
// stride is read against them. A stride whose slots all fit, or whose first miss needs more
// entries than the bound, ends the reading (its note says which).
void tlb_reach(TopologyResult& r, const Findings& fs) {
  if (!r.tlb || !r.tlb->levels) return;
  const auto ranges = tlb_sweeps::reach_ranges(r);
  for (const auto& g : ranges) {
    auto& L = (*r.tlb->levels)[g.level];
    L.erase("reach_strides_note");
    std::uint64_t entries = g.entries_at_least;
    std::string note;
    for (const auto& s : g.series) {
      const Finding* f = nullptr;
      for (const Finding& x : fs)
        if (x.analyzer == "tlb_spread" && x.details.value("stride_bytes", std::uint64_t{0}) == s.stride) f = &x;
      const std::string at = format_bytes(s.unit) + " + " + format_bytes(s.stride - s.unit) + " apart";
      if (f == nullptr || !f->details.contains("clean_slots")) {
        note += (note.empty() ? "" : "; ") + ("slots " + at + ": " + (f ? f->summary : "no finding"));
        break;
      }
      const auto clean = f->details["clean_slots"].get<std::uint64_t>();
      if (!f->details.contains("first_miss_slots") || f->details.contains("first_miss_unconfirmed")) {
        // The slots that fit, where each access was counted (a rise of another level's
        // leaves points unclear that miss nothing of this one).
        const std::uint64_t fit = std::max(clean, f->details.value("holds_at_least_slots", std::uint64_t{0}));
        note += (note.empty() ? "" : "; ") +
                ("slots " + at + ": " + std::to_string(fit) + " fit, as entries of twice the stride would hold them (" +
                 std::to_string(fit / 2 + 1) + " of them): no tighter reach; entries of the stride would be " +
                 std::to_string(fit) + " at least");
        break;
      }
      const auto m = f->details["first_miss_slots"].get<std::uint64_t>();
      // Entries of twice the stride (the unit's span) that m slots lie in, the pads counted,
      // and one more for an array that starts inside one.
      const std::uint64_t needed = (m - 1) * s.stride / (2 * s.unit) + 2;
      // Where each access was counted, the first miss must show misses of its own: a last
      // point has no later one to confirm it.
      bool counted_miss = true;
      if (f->details.contains("misses_per_pass"))
        for (const auto& p : f->details["misses_per_pass"])
          if (p[0].get<std::uint64_t>() == m) counted_miss = p[1].get<double>() > 0;
      if (!counted_miss) {
        note += (note.empty() ? "" : "; ") + ("slots " + at + ": the first miss at " + std::to_string(m) +
                                              " slots shows no access counted as a miss: no tighter reach");
        break;
      }
      if (needed > entries) {
        note += (note.empty() ? "" : "; ") + ("slots " + at + ": the first miss at " + std::to_string(m) +
                                              " slots needs " + std::to_string(needed) +
                                              " entries of twice the stride, more than the " + std::to_string(entries) +
                                              " it holds at least: no tighter reach");
        break;
      }
      // Each slot an entry of its own: the slots that fit are entries.
      std::uint64_t held = std::max(clean, f->details.value("holds_at_least_slots", std::uint64_t{0}));
      if (f->details.contains("misses_per_pass"))
        for (const auto& p : f->details["misses_per_pass"]) {
          const double n = p[0].get<double>() - p[1].get<double>();
          if (n > 0) held = std::max(held, static_cast<std::uint64_t>(std::floor(n)));
        }
      note += (note.empty() ? "" : "; ") +
              ("slots " + at + " miss from " + std::to_string(m) + ", where entries of twice the stride would need " +
               std::to_string(needed) + " and the level holds at least " + std::to_string(entries) +
               ": an entry reaches " + format_bytes(s.unit) + " at most, and " + std::to_string(held) +
               " slots fit, an entry each");
      entries = std::max(entries, held);
      L["reach_at_most_bytes"] = s.unit;
      L["entries_at_least"] = entries;
    }
    L["reach_strides_note"] = note + " (assumed: contiguous stretches of entries load the sets evenly)";
  }
}

// Each finding names the stride its series ran at: the level swept at that stride. A level
// no finding names keeps why in scope_summary (not swept, or the step's own reason).
void tlb_scope(TopologyResult& r, const Findings& fs) {
  if (!r.tlb || !r.tlb->levels) return;
  const auto ranges = tlb_sweeps::scope_ranges(r);
  std::string general;  // a finding that names no stride: why no series was read
  for (const Finding& f : fs)
    if (f.analyzer == "tlb_scope" && !f.details.contains("stride_bytes")) general = f.summary;
  for (std::size_t i = 0; i < r.tlb->levels->size(); ++i) {
    auto& L = (*r.tlb->levels)[i];
    L.erase("scope");
    L.erase("scope_sms_tested");
    const tlb_sweeps::ScopeRange* g = nullptr;
    for (const auto& x : ranges)
      if (x.level == i) g = &x;
    if (g == nullptr) {
      L["scope_summary"] = "not measured: two SMs' chases of 3/4 of the level's entries do not fit the slot cap, "
                           "the aliased footprint, or a tenth short of the next level's coverage";
      continue;
    }
    L["scope_summary"] = general.empty() ? "not measured: no finding at this level's stride" : general;
    for (const Finding& f : fs) {
      if (f.analyzer != "tlb_scope" || !f.details.contains("stride_bytes") ||
          f.details["stride_bytes"].get<std::uint64_t>() != g->stride)
        continue;
      L["scope_summary"] = f.summary;
      // Private to each of B SMs is private to every SM only where B is every SM: a level
      // shared by a group (a TPC, a GPC) needs two of the group's SMs among the B.
      const std::uint64_t sms = r.device.sm_count.value_or(0);
      const std::uint64_t tested = f.details.value("private_up_to_sms", std::uint64_t{0});
      if (f.value == "sm" && sms > 0 && tested < sms) {
        L["scope_summary"] = "not shared by the " + std::to_string(tested) + " SMs that chased at once, of " +
                             std::to_string(sms) + ": a level shared by groups of SMs is not ruled out (" + f.summary +
                             ")";
      } else if (f.value.is_string()) {
        L["scope"] = f.value;
      }
      if (f.details.contains("private_up_to_sms")) L["scope_sms_tested"] = f.details["private_up_to_sms"];
      if (f.details.contains("shared_by_sms")) L["scope_shared_by_sms"] = f.details["shared_by_sms"];
      break;
    }
  }
}

void page_size(TopologyResult& r, const Findings& fs) {
  const auto p = findings::page_size(fs);
  if (!p) return;
  TlbResult& t = r.tlb_row();
  if (p->granule_bytes) t.page_granule_bytes = p->granule_bytes;
  if (p->page_bytes) {
    t.page_bytes = p->page_bytes;
    t.page_method = "one allocation";
    t.page_note.reset();
    per_page(t);
    return;
  }
  t.page_note = p->verdict.reason;
}

// Over scattered frames no entry coalesces pages: a page seen there is the page,
// whatever the allocation showed.
void page_size_scattered(TopologyResult& r, const Findings& fs) {
  const auto p = findings::page_size(fs);
  if (!p) return;
  TlbResult& t = r.tlb_row();
  if (p->page_bytes) {
    t.page_bytes = p->page_bytes;
    t.page_method = "scattered frames";
    t.page_note.reset();
    per_page(t);
    return;
  }
  if (p->at_most_bytes && t.page_bytes && *p->at_most_bytes < *t.page_bytes) {
    // One allocation named a page larger than what scattered frames allow.
    t.page_note = "one allocation gave " + std::to_string(*t.page_bytes) + " B, but " + p->verdict.reason;
    t.page_bytes.reset();
    t.page_method.reset();
    t.page_at_most_bytes = p->at_most_bytes;
    per_page(t);
    return;
  }
  if (t.page_bytes) return;
  if (p->at_most_bytes) {
    // The reach seen over one allocation is no coalescing: the reason says so.
    t.page_at_most_bytes = p->at_most_bytes;
    t.page_note = p->verdict.reason;
    return;
  }
  t.page_note = (t.page_note ? *t.page_note + "; " : "") + "over scattered frames: " + p->verdict.reason;
}

// The result keeps how many SMs the figure covers beside the device's count, so
// that one SM's rate is never read as the device's.
namespace {

// The carveout step's L1 is smaller than the topology's by more than a search's noise (a
// tenth): the L1 and shared memory are one storage, split by the carveout.
bool l1_shares_shared_storage(const TopologyResult& r) {
  const auto l1 = r.size_of("l1");
  const auto other = r.size_of("l1_carveout");
  return l1 && other && static_cast<double>(*other) < 0.9 * static_cast<double>(*l1);
}

// The L1's stores beside the same stores through the path without the L1 (same array,
// layout and sweep): alike (within a tenth), the L1 passes stores on (write-through) and
// the control's rate is their ceiling; a quarter or more ahead, the L1 keeps them
// (write-back). Between the two, no reading.
void read_l1_write_control(BandwidthResult& w) {
  w.note.reset(), w.bound_bytes_per_cycle_per_sm.reset(), w.bound_source.reset(), w.share_of_bound.reset();
  if (!w.bytes_per_cycle_per_sm || !w.control_bytes_per_cycle_per_sm || !(*w.control_bytes_per_cycle_per_sm > 0)) return;
  const double control = *w.control_bytes_per_cycle_per_sm;
  const double ratio = *w.bytes_per_cycle_per_sm / control;
  char buf[320];
  if (std::abs(ratio - 1) <= 0.1) {
    w.bound_bytes_per_cycle_per_sm = control;
    w.bound_source = "the same stores without the L1 (st.global.cg, bandwidth_l1_write_control): the L1 writes "
                     "stores through";
    w.share_of_bound = ratio;
    std::snprintf(buf, sizeof buf,
                  "%.2f x the same stores without the L1 (st.global.cg, same array: %.1f B/clk per SM): the L1 "
                  "passes stores on to the L2 (write-through); this is the L2's rate for lines every SM writes",
                  ratio, control);
  } else if (ratio >= 1.25) {
    std::snprintf(buf, sizeof buf,
                  "%.2f x the same stores without the L1 (st.global.cg, same array: %.1f B/clk per SM): the L1 keeps "
                  "stores (write-back)",
                  ratio, control);
  } else {
    std::snprintf(buf, sizeof buf,
                  "%.2f x the same stores without the L1 (st.global.cg, same array: %.1f B/clk per SM): neither "
                  "alike (write-through) nor well ahead (write-back); how the L1 treats stores is not determined",
                  ratio, control);
  }
  w.note = buf;
}

}  // namespace

void bandwidth(TopologyResult& r, const std::string& memory, const Findings& fs) {
  const auto f = findings::bandwidth(fs);
  if (!f) return;
  BandwidthResult b;
  if (const BandwidthMeasure* m = bandwidth_measure(memory)) b.level = m->level, b.access = m->access;
  b.value = f->value;
  b.unit = f->unit;
  b.details = f->details;
  b.sms = f->sms;
  b.bytes_per_cycle_per_sm = f->bytes_per_cycle_per_sm;
  b.gbps = f->gbps;
  b.method = f->method;
  b.device_sms = r.device.sm_count;
  // Shared memory: the bound the measured banks give (banks x width per cycle and SM;
  // reads and writes alike: one bank word per bank and cycle). L1 reads: the same bound
  // where the L1 is shared memory's storage, i.e. its size moved with the carveout.
  const CacheResult* c = r.find("shared");
  const bool banked = c != nullptr && c->banks && c->bank_width_bytes && b.bytes_per_cycle_per_sm;
  if (banked && (b.level == "shared" || (memory == "l1" && l1_shares_shared_storage(r)))) {
    const double bound = static_cast<double>(*c->banks) * static_cast<double>(*c->bank_width_bytes);
    b.bound_bytes_per_cycle_per_sm = bound;
    b.bound_source = b.level == "shared" ? "measured banks x bank width (shared_banks step)"
                                         : "measured shared-memory banks x bank width: the L1 is shared memory's storage "
                                           "(its size moved with the carveout: l1_carveout_size step)";
    if (bound > 0) b.share_of_bound = *b.bytes_per_cycle_per_sm / bound;
  }
  // DRAM: the peak of the driver's memory clock and bus width (not measured: the
  // interface's transfer rate, which no read or write stream quite reaches).
  if (b.level == "dram" && b.gbps) {
    if (const auto peak = r.driver.dram_peak_gbps(); peak && *peak > 0) {
      b.bound_gbps = *peak;
      b.bound_source = "driver: 2 x memory clock x bus width (CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, "
                       "GLOBAL_MEMORY_BUS_WIDTH)";
      b.share_of_bound = *b.gbps / *peak;
      // Bytes over the kernel time count every byte the kernel read: past the interface's
      // peak, the L2 served part of the stream, and the figure only bounds DRAM's from above.
      if (*b.share_of_bound > 1)
        b.note = "above the driver's peak: the L2 served part of the stream (the array is a few times the L2), so "
                 "this bounds the DRAM rate from above";
    }
  }
  r.bandwidth[memory] = std::move(b);
}

void l1_write_control(TopologyResult& r, const Findings& fs) {
  const auto f = findings::bandwidth(fs);
  const auto it = r.bandwidth.find("l1_write");
  if (!f || it == r.bandwidth.end()) return;  // no L1 write figure: the control alone says nothing
  BandwidthResult& w = it->second;
  w.control_bytes_per_cycle_per_sm = f->bytes_per_cycle_per_sm;
  w.control_gbps = f->gbps;
  read_l1_write_control(w);
}

}  // namespace dissect::absorb
