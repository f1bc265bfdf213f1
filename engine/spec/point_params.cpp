#include "engine/spec/point_params.hpp"

namespace dissect {

std::vector<std::pair<std::string, std::string>> point_params(const Point& point) {
  const Experiment& e = point.experiment;
  std::string chasers;
  for (auto t : e.layout.chasers) chasers += (chasers.empty() ? "" : " ") + std::to_string(t);
  std::string arrays;
  for (const auto& a : e.arrays)
    arrays += (arrays.empty() ? "" : " ") + a.name + ":" + to_string(a.path) + ":" +
              std::to_string(a.array.size_bytes) + ":" + std::to_string(a.array.stride_bytes);
  return {
      {"kernel", to_string(e.kernel)},
      {"target", to_string(e.target)},
      {"path", to_string(e.path)},
      {"access", to_string(e.access)},
      {"element", to_string(e.element)},
      {"pattern", to_string(e.array.pattern)},
      {"size_bytes", std::to_string(e.array.size_bytes)},
      {"stride_bytes", std::to_string(e.array.stride_bytes)},
      {"offset_bytes", std::to_string(e.array.offset_bytes)},
      {"page_bytes", std::to_string(e.array.page_bytes)},
      {"iterations", std::to_string(e.iterations)},
      {"warmup", std::to_string(e.warmup)},
      {"discard", std::to_string(e.discard)},
      {"timing_mode", to_string(e.timing.mode)},
      {"clock", to_string(e.timing.clock)},
      {"blocks", std::to_string(e.layout.blocks)},
      {"threads", std::to_string(e.layout.threads)},
      {"chasers", chasers},
      {"thread_offset_bytes", std::to_string(e.layout.thread_offset_bytes)},
      {"ilp", std::to_string(e.ilp)},
      {"carveout", std::to_string(e.carveout)},
      {"repeats", std::to_string(e.repeats)},
      {"arrays", arrays},
  };
}

}  // namespace dissect
