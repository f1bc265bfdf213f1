#include "engine/topology/topology_runner.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <variant>

#include "dissect_git_revision.hpp"
#include "engine/core/files.hpp"
#include "engine/core/paths.hpp"
#include "engine/run/device_identity.hpp"
#include "engine/run/resume.hpp"
#include "engine/run/runner.hpp"
#include "engine/topology/topology_resume.hpp"
#include "engine/topology/topology_plan.hpp"

namespace dissect {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

bool is_complete_bundle(const std::string& dir) {
  try {
    return nlohmann::json::parse(read_text_file((fs::path(dir) / "bundle.json").string())).value("status", "") ==
           "complete";
  } catch (const std::exception&) {
    return false;
  }
}

// Renames `dir` to dir.interrupted (-2, ...): nothing measured is deleted.
void set_aside(const std::string& dir) {
  std::string aside = dir + ".interrupted";
  for (int i = 2; fs::exists(aside); ++i) aside = dir + ".interrupted-" + std::to_string(i);
  fs::rename(dir, aside);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

json run_topology(Device& device, const TopologyOptions& options, const std::atomic<bool>& stop) {
  const auto t0 = std::chrono::steady_clock::now();
  json result;
  result["schema_version"] = 1;
  result["tool"] = {{"name", "dissect"}, {"version", DISSECT_VERSION}, {"git_revision", DISSECT_GIT_REVISION}};
  result["device"] = device.describe();
  result["selector"] = device.selector();
  result["host"] = {{"name", host_name()}};  // a resumption continues on the same machine
  // A resumption takes the recorded mode and steps (engine/topology/topology_resume.hpp).
  std::optional<TopologyResumeState> resumed;
  TopologyOptions opts = options;
  if (options.resume) {
    resumed = read_resumable_topology(options.out_dir, device);
    opts.fast = resumed->fast;
    opts.only = resumed->only;
  }
  result["mode"] = opts.fast ? "fast" : "full";
  result["only"] = opts.only;
  result["started"] = resumed ? resumed->previous.value("started", utc_timestamp()) : utc_timestamp();
  if (resumed) {
    result["resumed"] = resumed->previous.value("resumed", json::array());
    result["resumed"].push_back({{"at", utc_timestamp()},
                                 {"argv", options.argv},
                                 {"device", device_identity(result["device"], host_name())}});
  }
  result["experiments"] = json::array();
  TopologyResult measured;
  measured.device = DeviceFacts::from_description(result["device"]);
  measured.driver = DriverFigures::from_description(result["device"]);

  const std::string spec_dir = (fs::path(specs_dir()) / "topology").string();
  std::vector<TopologyStep> plan;
  for (auto& step : topology_plan()) {
    if (opts.fast && !step.in_fast_mode) continue;
    if (!opts.only.empty() && std::find(opts.only.begin(), opts.only.end(), step.id) == opts.only.end())
      continue;
    plan.push_back(std::move(step));
  }
  fs::create_directories(options.out_dir);
  // topology.json says "running" from the start and after every step: a topology
  // that is killed (SIGKILL, power loss) leaves the steps it finished on record.
  const std::string json_path = (fs::path(options.out_dir) / "topology.json").string();
  const auto record = [&](const char* status) {
    result["status"] = status;
    write_file_atomic(json_path, result.dump(2) + "\n");
  };
  record("running");

  double kernel_ms = 0, compile_ms = 0, analysis_ms = 0;
  std::size_t index = 0;
  // A kernel fault left the device unable to run anything more in this process (CUDA asks
  // for a new one): the later steps are left to `dissect topology --resume` in a fresh process.
  bool lost = false, left_over = false;
  for (const auto& step : plan) {
    ++index;
    json exp{{"id", step.id}, {"label", step.label}, {"spec", "topology/" + step.spec_file()}};
    if (stop.load()) {
      exp["status"] = "not run (interrupted)";
      result["experiments"].push_back(exp);
      continue;
    }
    if (lost) {
      exp["status"] = "not run (device lost)";
      result["experiments"].push_back(exp);
      left_over = true;
      continue;
    }
    if (options.progress) {
      std::fprintf(stderr, "\r\033[K[%zu/%zu] %s (%.1f s)", index, plan.size(), step.label.c_str(), seconds_since(t0));
      std::fflush(stderr);
    }
    if (!step.cache.empty() && measured.unsupported(step.cache)) {
      exp["status"] = "skipped";
      exp["reason"] = "the device does not support this cache's load path";
      result["experiments"].push_back(exp);
      continue;
    }
    // Resuming: a step that completed is kept, its findings folded in again (later
    // steps are sized as before); one the device does not support stays so; one that
    // failed (a full disk, say) continues its bundle like one that was interrupted.
    const json* before = resumed ? resumed->step(step.id) : nullptr;
    const std::string before_status = before != nullptr ? before->value("status", std::string()) : std::string();
    if (before_status == "complete") {
      if (const auto findings = recorded_findings(options.out_dir, *before)) {
        if (step.absorb) step.absorb(measured, *findings);
        result["experiments"].push_back(*before);
        continue;
      }
    }
    // One that a kernel fault failed stays failed: it would fault again (and a fault can cost
    // the process its GPU), unless --retry-failed asks for it.
    if (before_status == "failed" && before->contains("fault") && !opts.retry_failed) {
      result["experiments"].push_back(*before);
      continue;
    }
    if (before_status == "unsupported") {
      if (!step.cache.empty()) measured.cache(step.cache).unsupported = before->value("error", std::string("unsupported"));
      result["experiments"].push_back(*before);
      continue;
    }
    // A step that was running, interrupted or failed (or completed without its findings) continues its bundle.
    std::string resume_bundle;
    if (before != nullptr && before_status != "skipped") resume_bundle = recorded_bundle_dir(options.out_dir, *before);
    const StepSizing sizing = step.sizes_from(measured);
    if (const auto* skip = std::get_if<SkipStep>(&sizing)) {
      exp["status"] = "skipped";
      exp["reason"] = skip->reason;
      result["experiments"].push_back(exp);
      continue;
    }
    const auto& overrides = std::get<std::vector<SpecOverride>>(sizing);
    json set = json::object();
    for (const auto& o : overrides) set[o.key] = o.value;
    exp["overrides"] = set;
    try {
      LoadOptions lo;
      lo.overrides = overrides;
      const Spec spec = load_spec((fs::path(spec_dir) / step.spec_file()).string(), lo);
      RunOptions ro;
      ro.out_parent = options.out_dir;
      ro.argv = options.argv;
      ro.progress = false;
      if (resumed) {
        if (!resume_bundle.empty() && fs::exists(fs::path(resume_bundle) / "bundle.json") && !spec.adaptive()) {
          // The same spec, sized the same way, as the bundle recorded.
          const ResumePlan rp = plan_resume(resume_bundle);
          check_resume_spec(rp, spec);
          ro.resume_dir = resume_bundle;
        } else {
          // The step runs anew, under its own name: what a killed step left there (an
          // adaptive search's partial bundle, which cannot continue since each point
          // depends on all before; a directory claimed but not yet recorded or written)
          // is kept beside it.
          // The step's recorded bundle is this topology's own even when complete (killed
          // before its analysis was recorded); a directory under its name only when unfinished.
          if (!resume_bundle.empty() && fs::exists(resume_bundle)) set_aside(resume_bundle);
          const std::string own = (fs::path(options.out_dir) / spec.base.name).string();
          if (fs::exists(own) && !is_complete_bundle(own)) set_aside(own);
        }
      }
      // The step's bundle is on record before its first point: a topology killed
      // now resumes it instead of starting the step again.
      ro.bundle_opened = [&](const std::string& dir) {
        json running = exp;
        running["status"] = "running";
        running["bundle"] = fs::path(dir).filename().string();
        result["experiments"].push_back(running);
        record("running");
        result["experiments"].erase(result["experiments"].size() - 1);
      };
      const RunOutcome out = run_spec(spec, device, ro, stop);
      exp["status"] = out.status;
      exp["bundle"] = fs::path(out.bundle_dir).filename().string();
      exp["points"] = out.points_done;
      exp["wall_ms"] = out.wall_ms;
      exp["analysis_ms"] = out.analysis_ms;
      exp["kernel_ms"] = out.timings.kernel_ms;
      exp["compile_ms"] = out.timings.compile_ms;
      kernel_ms += out.timings.kernel_ms;
      compile_ms += out.timings.compile_ms;
      analysis_ms += out.analysis_ms;
      if (!out.error.empty()) exp["error"] = out.error;
      // A kernel fault fails its step. When the device recreated its context (said here), the
      // next steps run, sized from what the earlier ones measured; when it could not, they are
      // left to a fresh process (dissect topology --resume).
      if (!out.fault.is_null()) exp["fault"] = out.fault;
      if (out.fault.is_object() && out.fault.contains("recovered") && out.fault["recovered"] == false) lost = true;
      // The step's bundle holds its conditions; a step they may have spoilt says so here too.
      if (!out.condition_warnings.empty()) exp["conditions_warnings"] = out.condition_warnings;
      json findings = json::array();
      for (const auto& f : out.findings) findings.push_back({{"analyzer", f.analyzer}, {"value", f.value},
                                                             {"unit", f.unit}, {"confidence", f.confidence},
                                                             {"summary", f.summary}});
      exp["findings"] = findings;
      if (out.status == "complete") step.absorb(measured, out.findings);
      if (out.status == "unsupported" && !step.cache.empty()) measured.cache(step.cache).unsupported = out.error;
    } catch (const SpecError& e) {
      exp["status"] = "failed";
      exp["error"] = e.diagnostics().str();
    } catch (const std::exception& e) {
      exp["status"] = "failed";
      exp["error"] = e.what();
    }
    result["experiments"].push_back(exp);
    if (exp.contains("bundle")) record("running");
  }
  if (options.progress) std::fprintf(stderr, "\r\033[K");

  measured.add_nanoseconds();
  result.update(topology_result_json(measured));
  // The steps that ran while the SM clock moved or other processes used the GPU (kept ones
  // of a resumed topology included): topology_table and the report name them.
  json affected = json::array();
  for (const auto& e : result["experiments"])
    if (e.contains("conditions_warnings")) affected.push_back(e.value("id", std::string("?")));
  result["conditions"] = {{"affected_steps", affected}};
  result["finished"] = utc_timestamp();
  result["timings"] = {{"wall_s", seconds_since(t0)}, {"kernel_ms", kernel_ms}, {"compile_ms", compile_ms},
                       {"analysis_ms", analysis_ms},
                       {"experiments", plan.size()}};
  record(stop.load() ? "interrupted" : left_over ? "device lost" : "complete");
  return result;
}

DirectoryLock lock_topology_dir(const std::string& out_dir) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw RunError(out_dir + ": cannot create the output directory: " + ec.message());
  std::string holder;
  std::optional<DirectoryLock> lock;
  try {
    lock = DirectoryLock::try_acquire(out_dir, &holder);
  } catch (const std::runtime_error& e) {
    throw RunError(e.what());
  }
  if (!lock)
    throw RunError(out_dir + ": another dissect topology is writing this directory" +
                   (holder.empty() ? std::string() : " (process " + holder + ")") +
                   "; wait for it to end or choose another --out");
  return std::move(*lock);
}

}  // namespace dissect
