#pragma once
// Each unit's (page's) latency over the points of a series, relative to the
// unit itself. A chase that takes one access per page meets two kinds of
// latency differences: those that change with N (TLB levels running out of
// entries) and those that differ from page to page at every N (the L2's near
// and far partitions, a DRAM channel): where the arrays of a series lie alike
// from point to point, a page's data-path latency is the same at every point,
// and its latency minus its own first value keeps only what N changed. Near and
// far pages then no longer interleave with the TLB levels' latencies (a 40-cycle
// TLB level read as 10 cycles over a 30-cycle far partition).
//
// A unit's reference is its median at the first point that has it; a unit that
// first appears at a larger N is taken to be in the state most older units are
// in there (its reference is lowered by their median excess), so that every
// unit's excess counts from the same all-hit baseline.
#include <cstdint>
#include <vector>

namespace dissect::stats {

struct UnitPoint {
  std::uint64_t size_bytes = 0;
  std::vector<std::uint64_t> unit;  // per position of the pass: unit index (offset / stride)
  std::vector<double> median;       // per position: median latency over the rounds (NaN: not measured)
  std::vector<double> excess;       // per position: filled by unit_excess (NaN where median is)
};

// Fills `excess` of every point; points ascending by size_bytes.
void unit_excess(std::vector<UnitPoint>& points);

// The positions of `units` in ascending order of their unit, equal units in position order
// (a stable sort). Units 0 .. n-1, each once (a chase's slots from offset 0, the usual case),
// are placed directly.
std::vector<std::uint32_t> unit_order(const std::vector<std::uint64_t>& units);

}  // namespace dissect::stats
