#include "analyzers/stats/tlb_footprint.hpp"

#include <algorithm>
#include <cmath>

#include "engine/spec/units.hpp"

namespace dissect::stats {
namespace {

// Below its span, n slots s apart fit a level of coverage C while (n - 1) s < C
// (the last slot still inside the entries it holds): a knee (n clean, m
// missing) puts C in ((n - 1) s, (m - 1) s].
std::uint64_t cov_lo(const StrideKnee& k) { return (k.clean_slots - 1) * k.stride + 1; }
std::uint64_t cov_hi(const StrideKnee& k) { return (k.missing_slots - 1) * k.stride; }

// Penalties read from point means (a top and a base over few pages at large
// strides) are known to about half; page by page, to about a third.
bool same_penalty(double a, double b, bool from_means = false) {
  return std::fabs(a - b) <= std::max(2.0, (from_means ? 0.5 : 0.35) * std::max(std::fabs(a), std::fabs(b)));
}
bool same_penalty(const StrideKnee& a, const StrideKnee& b) {
  return same_penalty(a.penalty, b.penalty, a.from_means || b.from_means);
}

// Two knees' brackets meet: of the coverage (below the span), of the slots (past it).
// Within one step of the sweep's grid (a factor of sqrt 2, and a margin): a knee
// read from means may be read a grid step late.
bool coverages_meet(const StrideKnee& a, const StrideKnee& b) {
  return 2 * std::max(cov_lo(a), cov_lo(b)) <= 3 * std::min(cov_hi(a), cov_hi(b));
}
bool slots_meet(const StrideKnee& a, const StrideKnee& b) {
  return std::max(a.clean_slots, b.clean_slots) <= std::min(a.missing_slots, b.missing_slots) - 1;
}

// Slot counts equal to within a tenth (a sweep's grid rounds them).
bool about(double a, double b) { return std::fabs(a - b) <= 0.1 * std::max(a, b) + 0.5; }

nlohmann::json knee_json(const StrideKnee& k) {
  return {{"stride_bytes", k.stride}, {"clean_slots", k.clean_slots}, {"missing_slots", k.missing_slots},
          {"penalty_cycles", k.penalty}};
}

// One level's knees at consecutive strides (each twice the last): at its
// coverage the slots halve from stride to stride, past its span they stay.
struct Chain {
  std::vector<StrideKnee> knees;
  std::size_t past_from = 0;  // knees[past_from..] are past the span (knees.size(): none)
};

// The coverage: the bracket that the most knees at it share. Soft knees (far
// below the reach, or a gradual rise that a random order makes) may read the
// knee a grid step late or early; one such knee must not narrow the others'
// bracket to where none of them lies.
void narrow_coverage(FootprintLevel& L, std::vector<std::string>& notes) {
  std::size_t best = 0;
  std::uint64_t best_at = 0;
  for (const auto& x : L.at_coverage) {
    for (const std::uint64_t at : {cov_lo(x), cov_hi(x)}) {
      std::size_t n = 0;
      for (const auto& k : L.at_coverage) n += cov_lo(k) <= at && at <= cov_hi(k) ? 1 : 0;
      if (n > best || (n == best && at < best_at)) best = n, best_at = at;
    }
  }
  L.coverage_lo = 0;
  L.coverage_hi = UINT64_MAX;
  std::uint64_t hull_lo = UINT64_MAX, hull_hi = 0, widest_stride = 0;
  std::size_t shared = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> brackets;
  for (const auto& k : L.at_coverage) {
    if (cov_lo(k) <= best_at && best_at <= cov_hi(k)) {
      L.coverage_lo = std::max(L.coverage_lo, cov_lo(k));
      L.coverage_hi = std::min(L.coverage_hi, cov_hi(k));
      hull_lo = std::min(hull_lo, cov_lo(k)), hull_hi = std::max(hull_hi, cov_hi(k));
      widest_stride = std::max(widest_stride, k.stride);
      brackets.emplace_back(cov_lo(k), cov_hi(k));
      ++shared;
    } else {
      notes.push_back("stride " + format_bytes(k.stride) + ": its knee (" + std::to_string(k.clean_slots) +
                      " slots clean, " + std::to_string(k.missing_slots) +
                      " missing) lies outside the coverage the other strides share: left out of it");
    }
  }
  // Brackets that agree share a good part of their width: each spans at least one of
  // its slots, and the sqrt-2 grid puts the others' edges a fraction of the coverage
  // apart; or one lies inside another (then the inner one is what they share). Brackets
  // that only touch (they cross, and share less than one slot of the widest stride)
  // agree on nothing: a knee a grid step away from both readings of a chain (halves or
  // stays) meets its neighbour's bracket at an edge, and the coverage could lie anywhere
  // in either. Keep both, not their contact.
  const bool nested = std::any_of(brackets.begin(), brackets.end(), [&](const auto& b) {
    return b.first == L.coverage_lo && b.second == L.coverage_hi;
  });
  if (shared >= 2 && !nested && L.coverage_hi - L.coverage_lo + 1 < widest_stride) {
    notes.push_back("the knees' coverage brackets only touch (at " + format_bytes(L.coverage_lo) + " .. " +
                    format_bytes(L.coverage_hi) + ", under one slot of " + format_bytes(widest_stride) +
                    "): the coverage is left as wide as both, " + format_bytes(hull_lo) + " .. " +
                    format_bytes(hull_hi));
    L.coverage_lo = hull_lo;
    L.coverage_hi = hull_hi;
  }
}

}  // namespace

nlohmann::json FootprintLevel::to_json() const {
  nlohmann::json at = nlohmann::json::array(), past = nlohmann::json::array();
  for (const auto& k : at_coverage) at.push_back(knee_json(k));
  for (const auto& k : past_span) past.push_back(knee_json(k));
  nlohmann::json j{{"coverage_range_bytes", {coverage_lo, coverage_hi}},
                   {"penalty_cycles", penalty},
                   {"knees_at_coverage", at},
                   {"knees_past_span", past}};
  if (span_hi > 0) j["span_range_bytes"] = {span_lo, span_hi};
  else j["span_at_least_bytes"] = span_lo;
  if (span_slots_hi > 0) j["span_slots_range"] = {span_slots_lo, span_slots_hi};
  if (!std::isnan(share_below_span)) j["share_missing_to_twice_coverage_at_half_span"] = share_below_span;
  return j;
}

std::vector<FootprintLevel> footprint_levels(std::vector<StrideKnee> knees, std::vector<std::string>& notes) {
  std::sort(knees.begin(), knees.end(), [](const StrideKnee& a, const StrideKnee& b) {
    return a.stride != b.stride ? a.stride < b.stride : a.clean_slots < b.clean_slots;
  });
  // Knees into chains: each joins the chain whose last knee lies at half its
  // stride with the same penalty and half its slots (still at the coverage) or
  // as many (past the span; and every later knee of the chain too).
  std::vector<Chain> chains;
  for (const auto& k : knees) {
    if (k.clean_slots < 1 || k.missing_slots <= k.clean_slots) continue;
    Chain* best = nullptr;
    bool best_past = false;
    for (auto& c : chains) {
      const StrideKnee& last = c.knees.back();
      if (2 * (last.stride - last.stride % 4096) != k.stride - k.stride % 4096) continue;  // strides a pad apart
      if (!same_penalty(k, last)) continue;
      const bool past = c.past_from < c.knees.size();
      // Halving slots; as many slots. Knees read from point means rise
      // gradually and may be read a grid step late: for them, brackets of the
      // coverage (or of the slots) that meet will do.
      // The strict tests first: a loose bracket test must not call "halves" a
      // pair whose slots are equal.
      const bool soft = k.from_means || last.from_means;
      const bool strict_halves =
          !past && about(static_cast<double>(k.clean_slots), static_cast<double>(last.clean_slots) / 2.0);
      const bool strict_stays = about(static_cast<double>(k.clean_slots), static_cast<double>(last.clean_slots));
      const bool loose = soft && !strict_halves && !strict_stays;
      const bool halves = strict_halves || (loose && !past && coverages_meet(k, last));
      const bool stays = strict_stays || (loose && !halves && slots_meet(k, last));
      if (!halves && !stays) continue;
      if (best == nullptr || c.knees.size() > best->knees.size()) best = &c, best_past = !halves;
    }
    if (best != nullptr) {
      best->knees.push_back(k);
      if (!best_past) best->past_from = best->knees.size();
      continue;
    }
    Chain c;
    c.knees.push_back(k);
    c.past_from = 1;
    chains.push_back(std::move(c));
  }
  std::vector<FootprintLevel> levels;
  for (const auto& c : chains) {
    const StrideKnee& first = c.knees.front();
    if (c.knees.size() < 2) {
      notes.push_back("stride " + format_bytes(first.stride) + ": a step of +" +
                      std::to_string(std::lround(first.penalty)) + " cycles at " +
                      std::to_string(first.clean_slots) +
                      " slots is seen at neither neighbouring stride: not claimed as a TLB level");
      continue;
    }
    FootprintLevel L;
    for (std::size_t i = 0; i < c.knees.size(); ++i) {
      const auto& k = c.knees[i];
      L.from_means = L.from_means || k.from_means;
      if (i < c.past_from) L.at_coverage.push_back(k);
      else L.past_span.push_back(k);
    }
    narrow_coverage(L, notes);
    // The penalty where slots come closest to entries of their own (the
    // largest stride at the coverage): below it a random order lets some
    // slots find their entry still held by a neighbour.
    L.penalty = L.at_coverage.back().penalty;
    L.span_lo = L.at_coverage.back().stride;
    if (!L.past_span.empty()) {
      // The span is the largest stride at the coverage; the knee at half it
      // (strides a pad apart) tells whether slots there share entries.
      if (L.at_coverage.size() >= 2) {
        const StrideKnee& span = L.at_coverage.back();
        const StrideKnee& half = L.at_coverage[L.at_coverage.size() - 2];
        if (2 * (half.stride - half.stride % 4096) == span.stride - span.stride % 4096)
          L.share_below_span = half.share_at_double;
      }
      L.span_hi = L.past_span.front().stride;
      L.span_slots_lo = L.past_span.front().clean_slots;
      L.span_slots_hi = L.past_span.front().missing_slots - 1;
    }
    levels.push_back(std::move(L));
  }
  // A level runs out once per series: of two chains with one penalty (to a
  // tenth) whose knees share strides, within a factor of 4 of coverage, the
  // longer is the level, the other an echo of it (pages whose first latency
  // already carried a miss).
  std::stable_sort(levels.begin(), levels.end(), [](const FootprintLevel& a, const FootprintLevel& b) {
    return a.at_coverage.size() + a.past_span.size() > b.at_coverage.size() + b.past_span.size();
  });
  std::vector<FootprintLevel> distinct;
  for (auto& L : levels) {
    bool echo = false;
    for (const auto& K : distinct) {
      if (std::fabs(L.penalty - K.penalty) > std::max(1.0, 0.1 * std::max(L.penalty, K.penalty))) continue;
      if (L.coverage_lo > 4 * K.coverage_hi || K.coverage_lo > 4 * L.coverage_hi) continue;
      for (const auto& a : L.at_coverage) {
        for (const auto& b : K.at_coverage) echo = echo || a.stride == b.stride;
        for (const auto& b : K.past_span) echo = echo || a.stride == b.stride;
      }
    }
    if (echo) {
      notes.push_back("a step of +" + std::to_string(std::lround(L.penalty)) + " cycles from " +
                      format_bytes(L.coverage_lo) + " on repeats a level found at the same strides: left out");
      continue;
    }
    distinct.push_back(std::move(L));
  }
  levels = std::move(distinct);
  std::sort(levels.begin(), levels.end(),
            [](const FootprintLevel& a, const FootprintLevel& b) { return a.coverage_lo < b.coverage_lo; });
  // Two levels running out together (at strides past both spans their slots
  // coincide): a chain whose penalty is the sum of smaller levels', at a
  // footprint past theirs, is no level of its own.
  std::vector<FootprintLevel> kept;
  for (const auto& L : levels) {
    bool merged = false;
    for (std::size_t a = 0; a < kept.size() && !merged; ++a) {
      double sum = kept[a].penalty;
      for (std::size_t b = a + 1; b < kept.size() && !merged; ++b) {
        sum += kept[b].penalty;
        merged = same_penalty(L.penalty, sum, L.from_means) && L.coverage_lo > kept[b].coverage_hi;
      }
    }
    if (merged) {
      notes.push_back("a step of +" + std::to_string(std::lround(L.penalty)) + " cycles from " +
                      format_bytes(L.coverage_lo) + " on is levels found already running out together: left out");
      continue;
    }
    // The same level twice (two chains of it, broken where a stride lost it):
    // at the same coverage, or going on past a level's span with its slots.
    bool dup = false;
    for (auto& K : kept) {
      if (!same_penalty(L.penalty, K.penalty, L.from_means || K.from_means)) continue;
      const auto& first = L.at_coverage.front();
      const std::uint64_t k_slots = K.past_span.empty() ? K.at_coverage.back().clean_slots : K.span_slots_lo;
      const bool goes_on = first.stride > K.span_lo && about(static_cast<double>(first.clean_slots),
                                                             static_cast<double>(k_slots));
      if (goes_on) {
        dup = true;
        for (const auto& k : L.at_coverage) K.past_span.push_back(k);
        for (const auto& k : L.past_span) K.past_span.push_back(k);
        if (K.span_hi == 0 || first.stride < K.span_hi) {
          K.span_hi = first.stride;
          K.span_slots_lo = first.clean_slots;
          K.span_slots_hi = first.missing_slots - 1;
        }
      } else if (L.coverage_lo <= K.coverage_hi && K.coverage_lo <= L.coverage_hi) {
        dup = true;
        if (L.at_coverage.size() + L.past_span.size() > K.at_coverage.size() + K.past_span.size()) K = L;
      }
    }
    if (!dup) kept.push_back(L);
  }
  return kept;
}

}  // namespace dissect::stats
