#pragma once
// The missed-line staircase of the stage method (seed 003 §3.2 (3), Fig. 3):
// with stride s = one line (or one page) and N = C + k*s, each increment of k
// that overflows a new set turns that set's lines into misses, and they keep
// missing at every larger N. Each line of the array at N = C is given the
// onset of its misses (a step fit over the points: robust to a stray miss or
// a missing one, as non-LRU policies and noise produce); lines sharing an
// onset form one set. The groups give the number of sets, their sizes (ways),
// how many consecutive lines share a set, and whether set = (line / block) mod
// sets predicts them (bit-defined) or not (hashed).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dissect::stats {

struct StairPoint {
  std::uint64_t size_bytes = 0;
  std::size_t units = 0;                // positions (lines, pages) in one pass
  std::vector<std::uint64_t> missing;   // unit indices (offset / stride) that miss at this point
};

struct Staircase {
  bool ok = false;
  std::string reason;                   // why not, when !ok
  std::uint64_t capacity_bytes = 0;     // C: largest N without misses
  std::uint64_t stride = 0;
  std::size_t sets = 0;                 // steps counted
  bool complete = false;                // every line present at N = C came to miss
  std::size_t never_missing = 0;        // lines at N = C that never missed
  std::vector<std::size_t> set_sizes;   // lines at N = C of each set (its ways), in onset order
  std::vector<std::uint64_t> step_k;    // increments k at which a new set overflowed
  double fit_errors = 0;                // share of (line, point) cells the onsets do not explain
  double miss_rate_after_onset = 1;     // how often a line of an overflowed set misses at a point
  std::size_t lines_per_block = 1;      // consecutive units that share a set
  bool bit_defined = false;             // the missed units match set = (unit / block) mod sets
  double bit_match = 0;                 // worst Jaccard similarity of prediction and observation
  bool unit_steps = true;               // every sweep step added exactly one unit
  nlohmann::json table = nlohmann::json::array();  // per point: N, k, missed units, step
};

Staircase stage_staircase(std::vector<StairPoint> points, std::uint64_t stride);

}  // namespace dissect::stats
