#pragma once
// Decodes sweep points without copying the spec's tree for each of them.
//
// A point is the spec's merged tree, less its sweep, with the point's axis values
// set into it, decoded as a whole (so an axis can change anything a spec can say,
// and an error names the value at fault). Copying the tree per point cost more than
// decoding it. The decoder keeps one working copy: for each point it sets the
// values, decodes, and puts back just the top-level entries the values went
// through (`array:` for an `array.size` axis), saved before they were changed.
#include <span>
#include <string>

#include "engine/spec/spec.hpp"

namespace dissect {

// One axis value of a point, by reference: the dotted field and its value node
// (both owned by the sweep or the caller).
struct AxisValueRef {
  const std::string* field = nullptr;
  const SpecNode* value = nullptr;
};

class PointDecoder {
 public:
  // `root`: the spec's merged tree (its sweep is left out); `default_name`: the
  // experiment's name when the tree gives none.
  PointDecoder(const SpecNode& root, std::string default_name);

  // Point `id` with `values` applied: the same Point, or the same SpecError, as
  // decoding a fresh copy of the tree with the values set. The working tree is as
  // before afterwards, whether the point decoded or threw.
  [[nodiscard]] Point decode(std::size_t id, std::span<const AxisValueRef> values);

 private:
  Point decode_into(SpecNode& tree, std::size_t id, std::span<const AxisValueRef> values) const;

  SpecNode tree_;
  std::string default_name_;
};

}  // namespace dissect
