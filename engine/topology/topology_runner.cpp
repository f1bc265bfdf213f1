#include "engine/topology/topology_runner.hpp"

#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <future>
#include <mutex>
#include <optional>
#include <set>
#include <system_error>
#include <utility>
#include <variant>

#include "dissect_git_revision.hpp"
#include "engine/core/files.hpp"
#include "engine/core/paths.hpp"
#include "engine/core/stopwatch.hpp"
#include "engine/core/timeline.hpp"
#include "engine/core/worker_pool.hpp"
#include "engine/device/kernel_family.hpp"
#include "engine/run/analysis_queue.hpp"
#include "engine/run/device_identity.hpp"
#include "engine/run/resume.hpp"
#include "engine/run/runner.hpp"
#include "engine/topology/topology_plan.hpp"
#include "engine/topology/topology_progress.hpp"
#include "engine/topology/topology_resume.hpp"

namespace dissect {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// A record of topology.json as the device's thread hands it over: the result without its
// experiments, then each experiment, shared where it changes no more (a committed step's:
// copying every entry with its findings for every record would cost that thread milliseconds
// a step), else a copy. The writer's thread puts them together.
struct RecordSnapshot {
  json head;
  std::vector<std::shared_ptr<const json>> experiments;
  [[nodiscard]] json experiments_array() const {
    json exps = json::array();
    for (const auto& e : experiments) exps.push_back(*e);
    return exps;
  }
  [[nodiscard]] json whole() const {
    json r = head;
    r["experiments"] = experiments_array();
    return r;
  }
};

// topology.json written on a thread of its own: the thread that drives the device hands over a
// snapshot and goes on (a durable write can wait for the disk behind the bundles' writes).
// Snapshots reach the disk in order, a moment after they are handed over; one not yet written
// when a newer comes gives way to it. A killed topology's record can so lag by a snapshot or
// two: resuming, a step whose bundle is not on record runs again, its directory set aside.
class RecordWriter {
 public:
  explicit RecordWriter(std::string path) : path_(std::move(path)) {}
  ~RecordWriter() {
    try {
      flush();
    } catch (const std::exception&) {
      // Reported by the flush the topology makes at its end; here it is already failing.
    }
  }
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  void write(RecordSnapshot snapshot) {
    {
      const std::lock_guard lock(mutex_);
      pending_ = std::move(snapshot);
      if (draining_) return;  // the running drain takes it
      draining_ = true;
    }
    try {
      job_ = std::async(std::launch::async, [this] { drain(); });
    } catch (const std::system_error&) {
      drain();  // no thread to be had: written here
    }
  }
  // Every snapshot handed over is on disk; throws what writing the last one threw.
  void flush() {
    if (job_.valid()) job_.get();
    const std::lock_guard lock(mutex_);
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void drain() {
    for (;;) {
      RecordSnapshot snapshot;
      {
        const std::lock_guard lock(mutex_);
        if (!pending_) {
          draining_ = false;
          return;
        }
        snapshot = std::move(*pending_);
        pending_.reset();
      }
      std::exception_ptr error;
      try {
        write_file_atomic(path_, snapshot.whole().dump(2) + "\n");
      } catch (...) {
        error = std::current_exception();
      }
      const std::lock_guard lock(mutex_);
      error_ = error;  // a later snapshot written is what counts
    }
  }

  std::string path_;
  std::mutex mutex_;
  std::optional<RecordSnapshot> pending_;
  bool draining_ = false;
  std::exception_ptr error_;
  std::future<void> job_;
};

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

namespace {

// One step of the plan on its way through the pipeline (topology_runner.hpp).
struct Slot {
  enum class State {
    waiting,    // not reached yet
    measuring,  // its run is under way (exp: status running, its bundle)
    analysing,  // measured; its analysis runs on the workers (exp lacks the findings)
    ready,      // exp final and findings in hand, not yet folded into the result
    committed,  // folded in (in plan order)
  };
  State state = State::waiting;
  json exp;                           // its topology.json entry (empty once committed: `committed`)
  std::shared_ptr<const json> committed;  // the entry, final, once the step is committed
  std::vector<Finding> findings;
  bool absorb = false;                // fold the findings in at the commit (a complete step)
  std::optional<StepSizing> sizing;   // what it was sized with here (checked at the commit)
};

bool same_sizing(const StepSizing& a, const StepSizing& b) {
  if (a.index() != b.index()) return false;
  if (const auto* sa = std::get_if<SkipStep>(&a)) return sa->reason == std::get<SkipStep>(b).reason;
  const auto& oa = std::get<std::vector<SpecOverride>>(a);
  const auto& ob = std::get<std::vector<SpecOverride>>(b);
  if (oa.size() != ob.size()) return false;
  for (std::size_t i = 0; i < oa.size(); ++i)
    if (oa[i].key != ob[i].key || oa[i].value != ob[i].value) return false;
  return true;
}

json sizing_json(const StepSizing& s) {
  if (const auto* skip = std::get_if<SkipStep>(&s)) return {{"skip", skip->reason}};
  json set = json::object();
  for (const auto& o : std::get<std::vector<SpecOverride>>(s)) set[o.key] = o.value;
  return set;
}

// One experiment per kernel that the spec's points run (adaptive searches: the base one).
void add_kernel_experiments(const Spec& spec, std::vector<Experiment>& out, std::set<std::string>& seen) {
  if (spec.adaptive() || spec.expanded.empty()) {
    if (seen.insert(kernel_identity(spec.base)).second) out.push_back(spec.base);
    return;
  }
  for (const Point& p : spec.expanded)
    if (seen.insert(kernel_identity(p.experiment)).second) out.push_back(p.experiment);
}

// What kind of step it is, for the progress estimate: the id without its cache.
std::string step_kind(const TopologyStep& s) {
  if (!s.cache.empty() && s.id.rfind(s.cache + "_", 0) == 0) return s.id.substr(s.cache.size() + 1);
  return s.id;
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
  std::vector<std::string> labels, kinds, spec_files;
  for (const auto& step : plan) {
    labels.push_back(step.label);
    kinds.push_back(step_kind(step));
    spec_files.push_back((fs::path(spec_dir) / step.spec_file()).string());
  }
  // The kernels of every step, compiled ahead on the workers (Device::compile_ahead): the
  // specs as written (sizing changes no kernel: sizes, strides and counts are arguments),
  // read on a worker too; handed to the device at the next step's start.
  std::future<std::vector<Experiment>> kernels_ahead = workers::submit([spec_files] {
    std::vector<Experiment> out;
    std::set<std::string> seen;
    for (const auto& file : spec_files) try {
        add_kernel_experiments(load_spec(file, LoadOptions{}), out, seen);
      } catch (const std::exception&) {
        // The step reports it when it runs.
      }
    return out;
  });
  const auto hand_over_kernels = [&] {
    if (!kernels_ahead.valid() || kernels_ahead.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
    const std::vector<Experiment> experiments = kernels_ahead.get();
    device.compile_ahead(experiments);
  };
  TopologyProgress progress(stderr, options.progress, options.progress && options.status_line, labels, kinds);
  std::vector<Slot> slots(plan.size());
  AnalysisQueue analyses;

  fs::create_directories(options.out_dir);
  // topology.json says "running" from the start and after every step: a topology
  // that is killed (SIGKILL, power loss) leaves the steps it finished on record (all but the
  // last moment's: RecordWriter). A step measured but still being analysed is on record as
  // running, with its bundle.
  const std::string json_path = (fs::path(options.out_dir) / "topology.json").string();
  RecordWriter records(json_path);
  // keep: the experiments also into `result` (what the topology returns), at the end.
  const auto record = [&](const char* status, bool keep = false) {
    RecordSnapshot snapshot;
    for (const auto& slot : slots) {
      if (slot.state == Slot::State::waiting) continue;
      if (slot.committed) {
        snapshot.experiments.push_back(slot.committed);
      } else if (slot.state == Slot::State::analysing) {
        json running = slot.exp;
        for (const char* k : {"status", "error", "findings"}) running.erase(k);
        running["status"] = "running";
        snapshot.experiments.push_back(std::make_shared<const json>(std::move(running)));
      } else {
        snapshot.experiments.push_back(std::make_shared<const json>(slot.exp));
      }
    }
    // `result` gets the experiments only at the end.
    result["status"] = status;
    snapshot.head = result;
    snapshot.head.erase("experiments");
    if (keep) result["experiments"] = snapshot.experiments_array();  // one copy of each entry
    records.write(std::move(snapshot));
    timeline::mark("topology: recorded");
  };
  record("running");

  double kernel_ms = 0, compile_ms = 0, analysis_ms = 0, wait_ms = 0;
  std::size_t sizing_mismatches = 0;

  // A step whose analysis is in: its findings into its entry; it is ready to be folded in.
  const auto take = [&](std::size_t i) {
    Slot& slot = slots[i];
    try {
      RunOutcome out = analyses.take(i);
      slot.exp["analysis_ms"] = out.analysis_ms;
      analysis_ms += out.analysis_ms;
      json findings = json::array();
      for (const auto& f : out.findings) findings.push_back({{"analyzer", f.analyzer}, {"value", f.value},
                                                             {"unit", f.unit}, {"confidence", f.confidence},
                                                             {"summary", f.summary}});
      slot.exp["findings"] = std::move(findings);
      slot.absorb = slot.exp.value("status", std::string()) == "complete";
      slot.findings = std::move(out.findings);
      if (options.bundle_complete && slot.exp.contains("bundle") && slot.exp["bundle"].is_string())
        options.bundle_complete(slot.exp["bundle"].get<std::string>(), std::move(out.analysed));
    } catch (const std::exception& e) {  // findings.json could not be written: the step failed
      slot.exp["status"] = "failed";
      slot.exp["error"] = e.what();
      slot.absorb = false;
    }
    slot.state = Slot::State::ready;
  };
  // Folds in the ready steps in plan order, up to the first that is not ready, checking
  // that each was sized as the result in plan order sizes it.
  const auto commit_ready = [&] {
    bool any = false;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      Slot& slot = slots[i];
      if (slot.state == Slot::State::committed) continue;
      if (slot.state == Slot::State::analysing && analyses.done(i)) take(i);
      if (slot.state != Slot::State::ready) break;
      timeline::mark("topology: analysis taken");
      if (slot.sizing) {
        const StepSizing in_order = plan[i].sizes_from(measured);
        if (!same_sizing(in_order, *slot.sizing)) {
          // A declaration of needs that misses a step: say so, never in silence.
          ++sizing_mismatches;
          slot.exp["sizing_mismatch"] = {{"used", sizing_json(*slot.sizing)}, {"in_order", sizing_json(in_order)}};
          std::fprintf(stderr,
                       "dissect topology: internal error: step %s was sized before a step it reads was analysed "
                       "(TopologyStep::needs misses it): it ran with %s, the result in plan order gives %s\n",
                       plan[i].id.c_str(), sizing_json(*slot.sizing).dump().c_str(), sizing_json(in_order).dump().c_str());
        }
      }
      timeline::mark("topology: analysis in hand");
      if (slot.absorb && plan[i].absorb) plan[i].absorb(measured, slot.findings);
      timeline::mark("topology: folded in");
      slot.findings.clear();
      slot.state = Slot::State::committed;
      progress.committed(i, slot.exp, seconds_since(t0));
      slot.committed = std::make_shared<const json>(std::move(slot.exp));
      slot.exp = json();
      any = true;
    }
    return any;
  };
  // Waits for the analyses step k is sized from; the result it is sized with: the one in
  // plan order with the steps whose analyses are in folded in (a copy while an earlier
  // step's analysis still runs).
  const auto sizing_view = [&](std::size_t k, TopologyResult& scratch) -> const TopologyResult& {
    const auto t_wait = std::chrono::steady_clock::now();
    bool waited = false;
    for (std::size_t j = 0; j < k; ++j) {
      const auto& needs = plan[k].needs;
      const bool needed = std::find(needs.begin(), needs.end(), kEveryEarlierStep) != needs.end() ||
                          std::find(needs.begin(), needs.end(), plan[j].id) != needs.end();
      if (needed && slots[j].state == Slot::State::analysing) take(j), waited = true;
    }
    if (waited) {
      const double ms = ms_since(t_wait);
      slots[k].exp["wait_ms"] = ms;
      wait_ms += ms;
    }
    if (commit_ready()) record("running");
    bool all_in = true;
    for (std::size_t j = 0; j < k; ++j) all_in = all_in && slots[j].state == Slot::State::committed;
    if (all_in) return measured;
    scratch = measured;
    for (std::size_t j = 0; j < k; ++j) {
      if (slots[j].state == Slot::State::analysing && analyses.done(j)) take(j);
      if (slots[j].state == Slot::State::ready && slots[j].absorb && plan[j].absorb)
        plan[j].absorb(scratch, slots[j].findings);
    }
    return scratch;
  };

  // A kernel fault left the device unable to run anything more in this process (CUDA asks
  // for a new one): the later steps are left to `dissect topology --resume` in a fresh process.
  bool lost = false, left_over = false;
  // One step: measured here, with its analysis left running (analysing), or settled at
  // once (ready: kept from the record, skipped, not run, failed).
  const auto run_step = [&](std::size_t index) {
    const TopologyStep& step = plan[index];
    Slot& slot = slots[index];
    json& exp = slot.exp;
    exp = {{"id", step.id}, {"label", step.label}, {"spec", "topology/" + step.spec_file()}};
    if (stop.load()) {
      exp["status"] = "not run (interrupted)";
      return;
    }
    if (lost) {
      exp["status"] = "not run (device lost)";
      left_over = true;
      return;
    }
    progress.starting(index, seconds_since(t0));
    if (!step.cache.empty() && measured.unsupported(step.cache)) {
      exp["status"] = "skipped";
      exp["reason"] = "the device does not support this cache's load path";
      return;
    }
    // Resuming: a step that completed is kept, its findings folded in again (later
    // steps are sized as before); one the device does not support stays so; one that
    // failed (a full disk, say) continues its bundle like one that was interrupted.
    const json* before = resumed ? resumed->step(step.id) : nullptr;
    const std::string before_status = before != nullptr ? before->value("status", std::string()) : std::string();
    if (before_status == "complete") {
      if (auto findings = recorded_findings(options.out_dir, *before)) {
        exp = *before;
        slot.findings = std::move(*findings);
        slot.absorb = true;
        return;
      }
    }
    // One that a kernel fault failed stays failed: it would fault again (and a fault can cost
    // the process its GPU), unless --retry-failed asks for it.
    if (before_status == "failed" && before->contains("fault") && !opts.retry_failed) {
      exp = *before;
      return;
    }
    if (before_status == "unsupported") {
      if (!step.cache.empty()) measured.cache(step.cache).unsupported = before->value("error", std::string("unsupported"));
      exp = *before;
      return;
    }
    // A step that was running, interrupted or failed (or completed without its findings) continues its bundle.
    std::string resume_bundle;
    if (before != nullptr && before_status != "skipped") resume_bundle = recorded_bundle_dir(options.out_dir, *before);
    TopologyResult scratch;
    const StepSizing sizing = step.sizes_from(sizing_view(index, scratch));
    timeline::mark("topology: step sized");
    slot.sizing = sizing;
    if (const auto* skip = std::get_if<SkipStep>(&sizing)) {
      exp["status"] = "skipped";
      exp["reason"] = skip->reason;
      return;
    }
    std::vector<SpecOverride> overrides = std::get<std::vector<SpecOverride>>(sizing);
    if (opts.fast) overrides.insert(overrides.end(), step.fast_overrides.begin(), step.fast_overrides.end());
    json set = json::object();
    for (const auto& o : overrides) set[o.key] = o.value;
    exp["overrides"] = set;
    try {
      LoadOptions lo;
      lo.overrides = overrides;
      const Spec spec = load_spec((fs::path(spec_dir) / step.spec_file()).string(), lo);
      timeline::mark("topology: spec loaded");
      {  // every kernel of the step compiles side by side, those after the first while it runs
        std::vector<Experiment> kernels;
        std::set<std::string> seen;
        add_kernel_experiments(spec, kernels, seen);
        device.compile_ahead(kernels);
      }
      timeline::mark("topology: kernels handed over");
      RunOptions ro;
      ro.out_parent = options.out_dir;
      ro.argv = options.argv;
      ro.progress = false;
      ro.defer_analysis = true;
      ro.keep_analysed = static_cast<bool>(options.bundle_complete);
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
      // The step's bundle goes on record as its first point is measured: a topology killed
      // once it is there resumes it instead of starting the step again.
      ro.bundle_opened = [&](const std::string& dir) {
        exp["status"] = "running";
        exp["bundle"] = fs::path(dir).filename().string();
        slot.state = Slot::State::measuring;
        record("running");
      };
      RunOutcome out = run_spec(spec, device, ro, stop);
      exp["status"] = out.status;
      exp["bundle"] = fs::path(out.bundle_dir).filename().string();
      exp["points"] = out.points_done;
      exp["wall_ms"] = out.wall_ms;
      exp["analysis_ms"] = 0.0;
      exp["kernel_ms"] = out.timings.kernel_ms;
      exp["compile_ms"] = out.timings.compile_ms;
      exp["findings"] = json::array();
      kernel_ms += out.timings.kernel_ms;
      compile_ms += out.timings.compile_ms;
      progress.measured(index, out.wall_ms);
      if (!out.error.empty()) exp["error"] = out.error;
      // A kernel fault fails its step. When the device recreated its context (said here), the
      // next steps run, sized from what the earlier ones measured; when it could not, they are
      // left to a fresh process (dissect topology --resume).
      if (!out.fault.is_null()) exp["fault"] = out.fault;
      if (out.fault.is_object() && out.fault.contains("recovered") && out.fault["recovered"] == false) lost = true;
      // The step's bundle holds its conditions; a step they may have spoilt says so here too.
      if (!out.condition_warnings.empty()) exp["conditions_warnings"] = out.condition_warnings;
      if (out.status == "unsupported" && !step.cache.empty()) measured.cache(step.cache).unsupported = out.error;
      // The analysis runs on the workers while the next steps measure; before the others
      // where the next step is sized from it (it waits for it at once).
      const bool needed_next =
          index + 1 < plan.size() &&
          std::any_of(plan[index + 1].needs.begin(), plan[index + 1].needs.end(),
                      [&](const std::string& n) { return n == kEveryEarlierStep || n == step.id; });
      analyses.start(index, std::move(out), needed_next ? workers::Priority::soon : workers::Priority::normal);
      timeline::mark("topology: analysis started");
      slot.state = Slot::State::analysing;
    } catch (const SpecError& e) {
      exp["status"] = "failed";
      exp["error"] = e.diagnostics().str();
    } catch (const std::exception& e) {
      exp["status"] = "failed";
      exp["error"] = e.what();
    }
  };
  for (std::size_t index = 0; index < plan.size(); ++index) {
    hand_over_kernels();
    if (commit_ready()) record("running");
    run_step(index);
    if (slots[index].state != Slot::State::analysing) slots[index].state = Slot::State::ready;
  }
  // The analyses still running, then every step folded in.
  {
    const auto t_wait = std::chrono::steady_clock::now();
    analyses.wait_all();
    wait_ms += ms_since(t_wait);
  }
  commit_ready();
  progress.finished(seconds_since(t0), kernel_ms, analysis_ms, wait_ms);

  measured.add_nanoseconds();
  result.update(topology_result_json(measured));
  // The steps that ran while the SM clock moved or other processes used the GPU (kept ones
  // of a resumed topology included): topology_table and the report name them.
  json affected = json::array();
  for (const auto& slot : slots) {
    if (slot.state == Slot::State::waiting) continue;
    const json& e = slot.committed ? *slot.committed : slot.exp;
    if (e.contains("conditions_warnings")) affected.push_back(e.value("id", std::string("?")));
  }
  result["conditions"] = {{"affected_steps", affected}};
  result["finished"] = utc_timestamp();
  result["timings"] = {{"wall_s", seconds_since(t0)},
                       {"kernel_ms", kernel_ms},
                       {"compile_ms", compile_ms},
                       {"analysis_ms", analysis_ms},
                       {"analysis_wait_ms", wait_ms},
                       {"workers", workers::size()},
                       {"experiments", plan.size()}};
  if (sizing_mismatches != 0) result["timings"]["sizing_mismatches"] = sizing_mismatches;
  record(stop.load() ? "interrupted" : left_over ? "device lost" : "complete", true);
  records.flush();
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
