#include "engine/spec/point_decoder.hpp"

#include <algorithm>
#include <string_view>
#include <vector>

#include "engine/spec/experiment_decoder.hpp"

namespace dissect {
namespace {

// The tree a point starts from: the spec's, less its sweep (copied once).
SpecNode without_sweep(const SpecNode& root) {
  SpecNode t;
  t.kind = root.kind;
  t.scalar = root.scalar;
  t.quoted = root.quoted;
  t.items = root.items;
  t.loc = root.loc;
  t.entries.reserve(root.entries.size());
  for (const auto& e : root.entries)
    if (e.key != "sweep") t.entries.push_back(e);
  return t;
}

}  // namespace

PointDecoder::PointDecoder(const SpecNode& root, std::string default_name)
    : tree_(without_sweep(root)), default_name_(std::move(default_name)) {}

Point PointDecoder::decode(std::size_t id, std::span<const AxisValueRef> values) {
  // Not a mapping: no spec that loads is like this; decode a copy, as there is
  // nothing to put back entry by entry.
  if (!tree_.is_map()) {
    SpecNode tree = tree_;
    return decode_into(tree, id, values);
  }
  // Setting a dotted field changes only the top-level entry it starts with (and
  // appends one when there is none): save those, before any value is set.
  struct Saved {
    std::size_t index;
    SpecNode::Entry entry;
  };
  std::vector<Saved> saved;
  const std::size_t size = tree_.entries.size();
  for (const AxisValueRef& v : values) {
    const std::string_view field = *v.field;
    const std::string_view top = field.substr(0, field.find('.'));
    for (std::size_t i = 0; i < size; ++i) {
      if (tree_.entries[i].key != top) continue;
      if (std::none_of(saved.begin(), saved.end(), [&](const Saved& s) { return s.index == i; }))
        saved.push_back({i, tree_.entries[i]});
      break;
    }
  }
  struct Restore {
    SpecNode& tree;
    std::vector<Saved>& saved;
    std::size_t size;
    ~Restore() {
      tree.entries.erase(tree.entries.begin() + static_cast<std::ptrdiff_t>(size), tree.entries.end());
      for (Saved& s : saved) tree.entries[s.index] = std::move(s.entry);
    }
  } restore{tree_, saved, size};
  return decode_into(tree_, id, values);
}

Point PointDecoder::decode_into(SpecNode& tree, std::size_t id, std::span<const AxisValueRef> values) const {
  Point p;
  p.id = id;
  p.axis_values.reserve(values.size());
  for (const AxisValueRef& v : values) {
    if (!tree.set_path(*v.field, *v.value, v.value->loc))
      throw SpecError(v.value->loc, "sweep: '" + *v.field +
                                        "' does not name a field of this spec (a list index out of "
                                        "range, or a part of it is not a mapping)");
    p.axis_values.emplace_back(*v.field, v.value->scalar);
  }
  Diagnostics d;
  p.experiment = decode_experiment(tree, d);
  if (p.experiment.name.empty()) p.experiment.name = default_name_;
  if (!d.empty()) throw SpecError(d);
  return p;
}

}  // namespace dissect
