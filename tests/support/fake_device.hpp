#pragma once
// A test double for Device: produces a known latency per sample (size-dependent),
// can fail, fault (as a CUDA device does after a kernel fault) or request a stop
// after k points. Lets runner and bundle tests run
// without a GPU or the simulator.
#include <atomic>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "engine/device/device.hpp"
#include "engine/device/device_fault.hpp"

namespace dissect::test {

class FakeDevice final : public Device {
 public:
  std::size_t fail_after = SIZE_MAX;        // throw RunError after this many points
  std::size_t fault_after = SIZE_MAX;       // throw DeviceFault (recovered) after this many points
  std::size_t faults = 0;                   // DeviceFaults thrown so far
  std::size_t stop_after = SIZE_MAX;        // set *stop_flag after this many points
  std::atomic<bool>* stop_flag = nullptr;
  double hit = 30, miss = 300;              // latency below / above `capacity`
  std::uint64_t capacity = 16 * 1024;
  // When set, decides per point whether it misses (instead of N > capacity).
  std::function<bool(const Point&)> misses;
  // When set, the share of a point's samples that miss, spread evenly (a soft knee).
  std::function<double(const Point&)> miss_share;

  nlohmann::json describe() const override { return {{"kind", "fake"}, {"name", "fake device"}}; }
  std::string selector() const override { return "fake"; }

  RunTimings run(const RunRequest& req, RunSink& sink) override {
    RunTimings t;
    std::size_t done = 0;
    for (const Point& p : req.points) {
      if (req.stop != nullptr && req.stop->load()) break;
      if (done == fail_after) throw RunError("spec " + req.spec->path + ", point " + std::to_string(p.id) + ": cuLaunchKernel failed (fake)");
      if (done == fault_after) {
        ++faults;
        throw DeviceFault("spec " + req.spec->path + ", point #" + std::to_string(p.id) +
                              ": cuEventSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS (fake); a kernel fault poisons the GPU "
                              "context: it was recreated, and the next spec runs in the fresh one",
                          {{"kind", "kernel fault"},
                           {"cuda_call", "cuEventSynchronize"},
                           {"cuda_error", "CUDA_ERROR_ILLEGAL_ADDRESS (fake)"},
                           {"sticky", "context"},
                           {"recovery", "context recreated (fake)"},
                           {"recovered", true}},
                          true);
      }
      PointTrace tr;
      tr.point_id = p.id;
      tr.accesses_per_pass = p.experiment.accesses_per_pass();
      tr.discard_passes = p.experiment.discard;
      tr.timer_overhead_cycles = 10;
      const bool slow = misses ? misses(p) : p.experiment.array.size_bytes > capacity;
      const double share = miss_share ? miss_share(p) : slow ? 1.0 : 0.0;
      for (std::uint64_t i = 0; i < p.experiment.iterations; ++i) {
        const bool m = std::floor(static_cast<double>(i + 1) * share) > std::floor(static_cast<double>(i) * share);
        tr.samples.push_back(
            {0, i, (i * p.experiment.array.stride_bytes) % p.experiment.array.size_bytes, m ? miss : hit, 3, 0});
      }
      sink.point_done(p, std::move(tr));
      ++done;
      ++t.launches;
      sink.progress(done, req.points.size());
      if (done == stop_after && stop_flag != nullptr) stop_flag->store(true);
    }
    return t;
  }
};

}  // namespace dissect::test
