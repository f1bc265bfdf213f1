#pragma once
// TLB levels from where they run out at several strides (a footprint sweep).
//
// A level of E entries, each translating R bytes, runs out at a footprint of
// its coverage C = E x R while the stride is below its span, and at a fixed
// number of slots above it: consecutive slots share entries or fill every set
// evenly below, every slot takes a set of its own above. The span is the reach
// for a fully associative level and S x R for S sets indexed by entry number
// (the slots above it are its ways), so the span alone does not tell entries
// from reach; the stage method at the page does (tlb_sets).
//
// A level is a chain of knees at consecutive strides (each twice the last)
// with one penalty: at its coverage the slots halve from stride to stride,
// past its span they stay. A knee no neighbouring stride repeats is not
// claimed (a data cache that overflows at one stride; at strides far below the
// reach a random order lets most slots find their entry still held, and a
// level shows weakly if at all), nor is a chain whose penalty is the sum of
// levels found already (levels running out together past both spans).
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dissect::stats {

struct StrideKnee {
  std::uint64_t stride = 0;
  std::uint64_t clean_slots = 0;    // the largest slot count without misses of the level
  std::uint64_t missing_slots = 0;  // the next slot count measured, with misses
  double penalty = 0;
  bool from_means = false;          // read from point means (stats/mean_step)
  // Read from point means: the mean share of accesses that miss over the
  // points past the knee up to twice the clean footprint (NaN: not read). A
  // random order over slots that share entries misses about half there; slots
  // with entries of their own all miss.
  double share_at_double = std::nan("");
  std::size_t tag = 0;              // caller's index, carried along
};

struct FootprintLevel {
  std::uint64_t coverage_lo = 0, coverage_hi = 0;  // bytes: C in [lo, hi]
  double penalty = 0;                              // median over the knees at the coverage
  bool from_means = false;  // some knee was read from point means (its penalty known to about half)
  // share_at_double of the knee at half the span (NaN: unknown)
  double share_below_span = std::nan("");
  std::vector<StrideKnee> at_coverage;             // knees at the coverage, ascending stride
  std::vector<StrideKnee> past_span;               // knees past the span
  // The span: at least the largest stride with a knee at the coverage, below
  // the smallest with a knee past it (0: not seen past the span).
  std::uint64_t span_lo = 0, span_hi = 0;
  std::uint64_t span_slots_lo = 0, span_slots_hi = 0;  // past the span: slots at the knee (entries, or ways)
  [[nodiscard]] nlohmann::json to_json() const;
};

// The levels the `knees` of every stride show, ascending by coverage; why
// knees were left out goes to `notes`.
std::vector<FootprintLevel> footprint_levels(std::vector<StrideKnee> knees, std::vector<std::string>& notes);

}  // namespace dissect::stats
