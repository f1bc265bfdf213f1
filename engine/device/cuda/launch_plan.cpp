#include "engine/device/cuda/launch_plan.hpp"

#include <algorithm>

#include "engine/device/kernel_family.hpp"

namespace dissect {

namespace {
std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return a == 0 ? v : (v + a - 1) / a * a; }
}  // namespace

std::string why_alone(const Experiment& e) {
  if (!is_sm_private(e.target))
    return std::string("target ") + to_string(e.target) + " is shared by all SMs: one point at a time";
  if (!e.parallel) return "parallel: false in the spec";
  if (e.layout.blocks != 1) return "the point uses " + std::to_string(e.layout.blocks) + " blocks";
  if (e.carveout < 0) return "carveout default: the driver's shared configuration cannot keep blocks apart";
  return "";
}

bool packable(const Experiment& e) { return why_alone(e).empty(); }

std::uint64_t sample_slots(const Experiment& e) {
  return e.samples_per_point() / std::max<std::uint64_t>(1, e.repeats);
}

std::uint64_t const_bytes(const Experiment& e, std::uint64_t align) {
  std::uint64_t n = 0;
  for (const auto& [path, array] : kernel_family(e).arrays(e))
    if (path == LoadPath::constant) n += round_up(array->size_bytes, align);
  return n;
}

std::vector<LaunchGroup> plan_launches(std::span<const Point> points, const PackingLimits& limits,
                                       const std::function<std::string(const Point&)>& compat) {
  std::vector<LaunchGroup> out;
  std::string open_key;
  std::uint64_t open_const = 0, open_samples = 0;
  bool open = false;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Experiment& e = points[i].experiment;
    if (!packable(e) || limits.sm_count <= 1) {
      out.push_back({{i}, false});
      open = false;
      continue;
    }
    const std::string key = compat(points[i]);
    const std::uint64_t cb = const_bytes(e, limits.const_align);
    const std::uint64_t ns = sample_slots(e);
    if (open && key == open_key && out.back().points.size() < limits.sm_count &&
        open_const + cb <= limits.const_bank_bytes && open_samples + ns <= limits.max_samples) {
      out.back().points.push_back(i);
      out.back().per_sm = true;
      open_const += cb;
      open_samples += ns;
      continue;
    }
    out.push_back({{i}, false});
    open = true;
    open_key = key;
    open_const = cb;
    open_samples = ns;
  }
  return out;
}

}  // namespace dissect
