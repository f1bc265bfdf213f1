#include "engine/run/device_memory_check.hpp"

#include <limits>

#include "engine/device/chase_order.hpp"
#include "engine/spec/units.hpp"

namespace dissect {

namespace {

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  return b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b ? std::numeric_limits<std::uint64_t>::max()
                                                                     : a * b;
}

// Where the size of a point's arrays is written: the sweep value that made the
// point, else the spec's size field, else the top of the spec.
Location size_location(const Spec& spec, const Point& point) {
  for (const auto& [field, text] : point.axis_values) {
    if (field != "array.size" && !(field.rfind("arrays.", 0) == 0 && field.ends_with(".size"))) continue;
    for (const auto& dim : spec.sweep)
      for (const auto& axis : dim.axes)
        if (axis.field == field)
          for (const auto& v : axis.values)
            if (v.scalar == text) return v.loc;
  }
  if (const SpecNode* n = spec.root.find_path("array.size")) return n->loc;
  if (const SpecNode* n = spec.root.find("arrays")) return n->loc;
  return spec.root.loc;
}

}  // namespace

std::uint64_t point_array_bytes(const Experiment& e) {
  std::uint64_t total = e.array.size_bytes;
  if (e.layout.array == BlockArrays::per_block && e.layout.blocks > 1)  // a copy per block, placed apart
    total = saturating_add(saturating_mul(per_block_array_stride(e), e.layout.blocks - 1),
                           e.array.size_bytes);
  // An aliased array's copies share its one physical block (the arena maps it over them all).
  total = physical_bytes(total, e.array.frames);
  for (const auto& a : e.arrays) total = saturating_add(total, a.array.size_bytes);
  return total;
}

void check_points_fit_device(const Spec& spec, std::span<const Point> points, const Device& device) {
  const std::uint64_t memory = device.memory_bytes();
  if (memory == 0) return;
  const auto check = [&](const Point* point, const Experiment& e) {
    const std::uint64_t need = point_array_bytes(e);
    if (need <= memory) return;
    const Location where = point != nullptr ? size_location(spec, *point) : size_location(spec, Point{});
    throw SpecError(where, "arrays of " + format_bytes(need) + (point != nullptr ? " (sweep point " +
                                                                                      std::to_string(point->id) + ")"
                                                                                : std::string()) +
                               " exceed the memory of the device " + device.selector() + " (" +
                               format_bytes(memory) + ")");
  };
  if (points.empty()) check(nullptr, spec.base);
  for (const Point& p : points) check(&p, p.experiment);
}

}  // namespace dissect
