#pragma once
// The adaptive knee search behind `sweep: {field: {search: knee, from, to,
// resolution}}` (Größler 2022, Sec. 3.2: doubling, then bisection).
//
// For each combination of the other axes: run `from`, 2 from, 4 from, ... until a
// point shows capacity misses, then narrow the bracket (last clean, first
// missing) until it is at most `resolution` wide. Each round is one
// Device::run of up to `width` points, so a device that runs one point per SM
// in one launch narrows the bracket `width + 1`-fold per launch instead of
// twofold. Every measured point goes to the sink (the bundle); the cache_size
// analyzer then finds the knee among them.
#include <atomic>

#include <nlohmann/json.hpp>

#include "engine/device/device.hpp"
#include "engine/spec/spec.hpp"

namespace dissect {

struct AdaptiveSearchOutcome {
  RunTimings timings;
  std::size_t points = 0;
  nlohmann::json log = nlohmann::json::array();  // per combination: rounds, brackets (bundle.json)
};

// A point "has capacity misses" when it has clearly more slow samples than the
// clean reference (the search's first point) would produce by noise alone:
// more than expected + 4 standard deviations + 2 (a Poisson bound). A fixed
// share would not do: a random-replacement cache just above its capacity
// misses only a few tenths of a percent of its accesses (Fermi's L1), not far
// above the rate of timer outliers. With chain timing (each sample the average of
// a whole chain) a point has misses when its median average exceeds the
// reference's by 4 robust sigmas (each at least 0.05%), as the cache_size analyzer
// reads the same points.

// `width` 0: adaptive_search_width(spec, device).
AdaptiveSearchOutcome run_adaptive_search(const Spec& spec, Device& device, RunSink& sink,
                                          const std::atomic<bool>& stop, std::size_t width = 0);

// Points per round a device can run at once for this spec (one per SM for
// SM-private targets, else a few).
std::size_t adaptive_search_width(const Spec& spec, const Device& device);

}  // namespace dissect
