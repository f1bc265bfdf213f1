#include "engine/device/sim/sim_device.hpp"

#include <chrono>
#include <stdexcept>

#include "engine/device/device_fault.hpp"
#include "engine/device/fault_injection.hpp"
#include "engine/device/sim/sim_kernels.hpp"

namespace dissect::sim {

namespace {
constexpr const char* kPrefix = "sim:";

std::string point_label(const RunRequest& req, const Point& p) {
  std::string s = (req.spec != nullptr ? req.spec->path : std::string("<spec>")) + ", point " + std::to_string(p.id);
  if (!p.axis_values.empty()) {
    s += " (";
    for (std::size_t i = 0; i < p.axis_values.size(); ++i)
      s += (i ? ", " : "") + p.axis_values[i].first + "=" + p.axis_values[i].second;
    s += ")";
  }
  return s;
}
}  // namespace

SimDevice::SimDevice(Profile profile, std::string selector)
    : profile_(std::make_unique<Profile>(std::move(profile))), selector_(std::move(selector)) {}

nlohmann::json SimDevice::describe() const {
  const Profile& p = *profile_;
  nlohmann::json j;
  j["kind"] = "sim";
  j["selector"] = selector_;
  j["name"] = p.name;
  j["description"] = p.description;
  j["source"] = p.source;
  j["arch"] = p.arch;
  j["profile_file"] = p.file;
  j["profile_text"] = p.text;
  j["sm_count"] = p.sm_count;
  j["sm_clock_khz"] = p.clock_khz;
  j["memory_bytes"] = p.memory_bytes;
  j["timer_overhead_cycles"] = p.timer_overhead;
  j["ground_truth"] = p.ground_truth();
  return j;
}

MemorySystem& SimDevice::memory(int carveout) {
  auto& slot = memory_[carveout];
  if (!slot) slot = std::make_unique<MemorySystem>(*profile_, carveout);
  return *slot;
}

PointTrace SimDevice::run_point(const Point& point, double* cycles) {
  try {
    KernelRun r = simulate_point(memory(point.experiment.carveout), point);
    if (cycles != nullptr) *cycles = r.cycles;
    return std::move(r.trace);
  } catch (const UnsupportedError& e) {
    throw UnsupportedError("sim:" + profile_->name + ": point " + std::to_string(point.id) + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    throw RunError("sim:" + profile_->name + ": point " + std::to_string(point.id) + ": " + e.what());
  }
}

RunTimings SimDevice::run(const RunRequest& request, RunSink& sink) {
  RunTimings t;
  const std::size_t total = request.points.size();
  std::size_t done = 0;
  if (!lost_.empty())
    throw RunError("spec " + (request.spec != nullptr ? request.spec->path : std::string("?")) +
                   ": simulated GPU (" + selector_ + ") cannot run anything in this process since an earlier fault (" +
                   lost_ + "); run the remaining specs in a new process");
  for (const Point& point : request.points) {
    if (request.stop != nullptr && request.stop->load()) break;
    if (fault_injected_at(request, point)) {
      // The test hook (engine/device/fault_injection.hpp): what a CUDA device throws when a
      // kernel fault poisoned its context and no fresh one could be made.
      const std::string call = "cuEventSynchronize";
      const std::string error = "CUDA_ERROR_LAUNCH_FAILED (injected by DISSECT_TEST_INJECT_FAULT)";
      lost_ = "the simulated context is lost for the test";
      throw DeviceFault(fault_location(request, point) + ": " + call + ": " + error +
                            "; a kernel fault poisons the GPU context: it could not be recreated (" + lost_ +
                            "), so nothing more runs in this process",
                        {{"kind", "kernel fault"},
                         {"cuda_call", call},
                         {"cuda_error", error},
                         {"sticky", "context"},
                         {"injected", true},
                         {"recovery", "failed: " + lost_},
                         {"recovered", false}},
                        false);
    }
    KernelRun r;
    MemorySystem& mem = memory(point.experiment.carveout);
    mem.watch(request.stop);  // a stop ends the point in hand too, which is then not stored
    try {
      r = simulate_point(mem, point);
      mem.watch(nullptr);
    } catch (const PointInterrupted&) {
      mem.watch(nullptr);
      break;
    } catch (const UnsupportedError& e) {
      mem.watch(nullptr);
      throw UnsupportedError(point_label(request, point) + ": simulated GPU (" + selector_ + "): " + e.what());
    } catch (const std::invalid_argument& e) {
      mem.watch(nullptr);
      throw RunError(point_label(request, point) + ": simulated GPU (" + selector_ + "): " + e.what());
    }
    t.kernel_ms += r.trace.kernel_ms;
    t.launches += r.launches;
    sink.point_done(point, std::move(r.trace));
    sink.progress(++done, total);
  }
  return t;
}

std::unique_ptr<SimDevice> open_sim_device(const std::string& selector) {
  const std::string name = selector.rfind(kPrefix, 0) == 0 ? selector.substr(4) : selector;
  if (name.empty()) {
    std::string msg = "--device sim: needs a profile name, e.g. sim:fermi-gtx560ti; available:";
    for (const auto& n : profile_names()) msg += " sim:" + n;
    throw RunError(msg);
  }
  const std::string path = resolve_profile_path(name);
  Profile p = load_profile_file(path);
  return std::make_unique<SimDevice>(std::move(p), selector);
}

}  // namespace dissect::sim

namespace dissect {

DeviceFactory sim_device_factory() {
  DeviceFactory f;
  f.name = "sim";
  f.help = "sim:<profile>  a simulated GPU from a device profile (specs/devices/<profile>.yaml or a file path)";
  f.accepts = [](const std::string& s) { return s.rfind("sim:", 0) == 0 || s == "sim"; };
  f.open = [](const std::string& s, std::span<const Point>) -> std::unique_ptr<Device> {
    return sim::open_sim_device(s);
  };
  f.list = [] {
    std::vector<std::string> lines;
    for (const auto& n : sim::profile_names()) {
      std::string line = "sim:" + n;
      try {
        const sim::Profile p = sim::load_profile_file(sim::resolve_profile_path(n));
        line += "  " + (p.description.empty() ? p.summary() : p.description);
      } catch (const SpecError& e) {
        line += "  INVALID: " + e.diagnostics().errors().front().str();
      } catch (const std::exception& e) {
        line += "  INVALID: " + std::string(e.what());
      }
      lines.push_back(line);
    }
    if (lines.empty()) lines.push_back("(no profiles found under the spec library's devices/)");
    return lines;
  };
  f.validate_profile = [](const std::string& path) { return sim::load_profile_file(path).summary(); };
  return f;
}

}  // namespace dissect
