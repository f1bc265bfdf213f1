#pragma once
// Sweep axes and their expansion into points.
//
//   sweep:
//     array.size:   {from: 12 KiB, to: 13 KiB, step: 128 B}      # linear range
//     array.stride: [4 B, 128 B]                                 # list
//     iterations:   {from: 1024, to: 65536, factor: 2}           # geometric range
//     zip:                                                        # advanced together
//       - {array.size: [3073, 3080], array.stride: [1, 8], unit: elements}
//
// Several axes form a cartesian product, the first one outermost. A zip group
// is one axis whose members take their i-th values together.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/spec/spec_node.hpp"

namespace dissect {

struct SweepAxis {
  enum class Kind { list, linear, geometric, search };
  Kind kind = Kind::list;
  std::string field;            // dotted path, e.g. "array.size"
  Location loc;                 // where the axis is written
  std::vector<SpecNode> values; // list/linear/geometric: the values, as scalar nodes
  // search: the bounds of an adaptive knee search (doubling, then bisection)
  std::string search_goal;      // e.g. "knee"
  SpecNode search_from, search_to, search_resolution;
  double search_resolution_share = 0;  // resolution given as a share ("2%": 0.02), else 0
};

// A group of axes that advance together (a zip), or a single axis.
struct SweepDimension {
  std::vector<SweepAxis> axes;  // one axis, or the members of a zip (equal lengths)
  Location loc;
  [[nodiscard]] std::size_t size() const;  // number of steps (1 for a search axis)
  [[nodiscard]] bool adaptive() const;
};

struct SweepOptions {
  // Leave out (and count) points whose combination is invalid, e.g. stride > N
  // in a Saavedra N x s grid, instead of reporting them as errors.
  bool skip_invalid = false;
};

// Parses the `sweep:` section. `limit` bounds every single axis before it is
// materialised, so a runaway range cannot exhaust memory.
std::vector<SweepDimension> parse_sweep(const SpecNode& sweep, std::uint64_t limit, Diagnostics& diags,
                                        SweepOptions* options = nullptr);

// Product of the dimension sizes, saturating at UINT64_MAX.
std::uint64_t sweep_point_count(const std::vector<SweepDimension>& dims);

}  // namespace dissect
