#pragma once
// A device runs the points of one spec and hands back one PointTrace per point.
// Two kinds exist: `cuda` (a real GPU through the driver API) and `sim` (a
// simulated GPU built from a device profile). The runner does not know which.
#include <atomic>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "engine/device/run_conditions.hpp"
#include "engine/spec/spec.hpp"
#include "engine/trace/trace.hpp"

namespace dissect {

// Proof of what ran: generated source and compiled code of a kernel.
struct KernelArtifact {
  std::string name;       // file stem, unique within a bundle
  std::string source;     // generated CUDA C++
  std::string ptx;        // may be empty
  std::string sass;       // may be empty
  std::string log;        // compiler log
  nlohmann::json meta;    // template, parameters, arch, cache key, compile time
};

// Where a device reports results while it runs. Called from the thread that
// called Device::run, in any point order; kernel_built alone may come from other
// threads (the CUDA device writes kernel artifacts on threads of their own while a
// kernel runs), at the same time as the other calls and as each other, and always
// before run returns.
class RunSink {
 public:
  virtual ~RunSink() = default;
  virtual void point_done(const Point& point, PointTrace trace) = 0;
  // The points of one launch at once (a per-SM launch finishes up to one point
  // per SM together): a sink may store them in one go. Same as point_done for each.
  using PointBatch = std::vector<std::pair<const Point*, PointTrace>>;
  virtual void points_done(PointBatch batch) {
    for (auto& [p, t] : batch) point_done(*p, std::move(t));
  }
  virtual void kernel_built(const KernelArtifact& artifact) = 0;
  // The points of a launch whose kernel is running now; their results follow
  // (points_done) unless the launch fails. A sink may prepare meanwhile what does
  // not depend on the results, so that storing them costs less wall time after.
  // `traces`: empty, or per point the trace whose params (the device's notes on how
  // the point runs) are final already; it stays valid until points_done.
  virtual void points_started(std::span<const Point* const> points, std::span<const PointTrace* const> traces) {
    (void)points, (void)traces;
  }
  // Progress for humans: `done` of `total` points.
  virtual void progress(std::size_t done, std::size_t total) { (void)done, (void)total; }
};

struct RunRequest {
  const Spec* spec = nullptr;
  std::span<const Point> points;
  const std::atomic<bool>* stop = nullptr;  // set on Ctrl-C: finish the point in hand, then return
};

// Wall-clock accounting of one Device::run, reported by every run.
struct RunTimings {
  double kernel_ms = 0;   // time inside kernels (device-measured where possible)
  double compile_ms = 0;  // NVRTC or cache lookups
  std::size_t launches = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  // Name, kind, properties read at run time (bundle.json "device").
  [[nodiscard]] virtual nlohmann::json describe() const = 0;
  [[nodiscard]] virtual std::string selector() const = 0;  // "0", "sim:fermi-gtx560ti"
  // The device's memory in bytes (a simulated one: its profile's), 0 when unknown.
  // A point whose arrays do not fit is refused before anything runs.
  [[nodiscard]] virtual std::uint64_t memory_bytes() const { return 0; }
  // Runs the points; reports each finished point to the sink. Throws RunError
  // naming the spec, the point and the failing call. Points already reported
  // stay reported.
  virtual RunTimings run(const RunRequest& request, RunSink& sink) = 0;
  // A hint that `points` run next (dissect run gives it before it opens the run's
  // bundle): a device may start preparing them meanwhile (the CUDA device loads the
  // first point's kernel on a worker thread). Never throws; the run reports errors.
  virtual void prepare(std::span<const Point> points) noexcept { (void)points; }
  // A hint that experiments like these run later in this process (a topology's steps): a
  // device may compile their kernels meanwhile, side by side (the CUDA device: NVRTC or the
  // compile cache on the worker pool, nothing loaded into the context). Never throws.
  virtual void compile_ahead(std::span<const Experiment> experiments) noexcept { (void)experiments; }
  // The GPU's SM clock and processes now (engine/device/run_conditions.hpp): the runner
  // takes one before and one after each run. Never throws: what cannot be read is
  // unknown. A device without either (a simulated one) says they are not applicable.
  [[nodiscard]] virtual GpuSnapshot snapshot() const {
    GpuSnapshot s;
    s.applicable = false;
    s.not_applicable_why = "device " + selector() + " has no SM clock or processes to read";
    return s;
  }
};

// One family of devices, selected by the prefix of --device.
struct DeviceFactory {
  std::string name;     // "cuda", "sim"
  std::string help;     // one line for `dissect list devices` and --help
  // Whether this factory handles a selector ("0", "sim:h100").
  std::function<bool(const std::string&)> accepts;
  // Opens a device. `upcoming`: the points that run first, a hint (as Device::prepare)
  // that lets a device start on their kernels while it opens; may be empty.
  std::function<std::unique_ptr<Device>(const std::string&, std::span<const Point>)> open;
  // Lines for `dissect list devices` (each device or profile available here).
  std::function<std::vector<std::string>()> list;
  // Optional: checks a device profile file (a YAML file with a
  // `dissect_profile` key); returns a one-line description or throws SpecError.
  std::function<std::string(const std::string&)> validate_profile;
  // Optional: what `dissect run --dry-run` prints of the kernels that `points` would
  // compile on the device of `selector` (generated sources, for the architecture
  // `arch_text`, e.g. "sm_80", or when empty the device's own), without running or
  // compiling anything; a line saying why there is none instead of throwing. Empty for
  // devices without generated kernels (sim).
  std::function<std::string(const std::string& selector, std::span<const Point> points, const std::string& arch_text)>
      preview;
};

const std::vector<DeviceFactory>& device_factories();
// The factory that handles a selector ("0", "sim:h100"), or null.
const DeviceFactory* find_device_factory(const std::string& selector);
// Opens the device for a selector, or throws RunError with a helpful message.
// `upcoming`: see DeviceFactory::open.
std::unique_ptr<Device> open_device(const std::string& selector, std::span<const Point> upcoming = {});

}  // namespace dissect
