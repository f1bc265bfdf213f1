#include "engine/run/runner.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>

#include "dissect_git_revision.hpp"
#include "engine/bundle/bundle.hpp"
#include "engine/core/files.hpp"
#include "engine/core/stopwatch.hpp"
#include "engine/core/timeline.hpp"
#include "engine/device/device_fault.hpp"
#include "engine/run/adaptive_search.hpp"
#include "engine/run/device_identity.hpp"
#include "engine/run/device_memory_check.hpp"

namespace dissect {
namespace {

class BundleSink final : public RunSink {
 public:
  BundleSink(BundleWriter& writer, bool progress, std::string name)
      : writer_(writer), progress_(progress), name_(std::move(name)), start_(std::chrono::steady_clock::now()) {}
  void point_done(const Point& point, PointTrace trace) override {
    const auto t0 = std::chrono::steady_clock::now();
    note_clock(trace.sm_clock_khz);
    writer_.append_point(point, std::move(trace));
    ++handed_;
    store_ms_ += ms_since(t0);
  }
  void points_done(PointBatch batch) override {
    const auto t0 = std::chrono::steady_clock::now();
    for (const auto& [p, t] : batch) note_clock(t.sm_clock_khz);
    handed_ += batch.size();
    writer_.append_points(std::move(batch));
    store_ms_ += ms_since(t0);
  }
  // The lowest and highest SM clock read while the run's launches ran (NaN: none).
  [[nodiscard]] std::array<double, 2> clock_range() const { return {clock_min_, clock_max_}; }
  void kernel_built(const KernelArtifact& artifact) override { writer_.add_kernel(artifact); }
  void points_started(std::span<const Point* const> points, std::span<const PointTrace* const> traces) override {
    writer_.prepare_points(points, traces);
  }
  // Time spent handing points to the writer (copying and queueing them: it writes them on
  // the background worker), for the timing report.
  [[nodiscard]] double store_ms() const { return store_ms_; }
  // Points handed to the writer (stored, or on their way).
  [[nodiscard]] std::size_t points_handed() const { return handed_; }
  void progress(std::size_t done, std::size_t total) override {
    if (!progress_) return;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "\r%s: %zu/%zu points, %.1f s", name_.c_str(), done, total, s);
    if (done == total) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  }

 private:
  void note_clock(double khz) {
    if (!(khz > 0)) return;  // unknown (NaN) or not read
    clock_min_ = std::isnan(clock_min_) ? khz : std::min(clock_min_, khz);
    clock_max_ = std::isnan(clock_max_) ? khz : std::max(clock_max_, khz);
  }
  BundleWriter& writer_;
  bool progress_;
  double clock_min_ = kUnknown, clock_max_ = kUnknown;
  std::string name_;
  std::chrono::steady_clock::time_point start_;
  double store_ms_ = 0;
  std::size_t handed_ = 0;
};

nlohmann::json experiment_json(const Experiment& e) {
  nlohmann::json j;
  j["name"] = e.name;
  j["kernel"] = to_string(e.kernel);
  j["target"] = to_string(e.target);
  j["path"] = to_string(e.path);
  j["element"] = to_string(e.element);
  j["timing"] = {{"mode", to_string(e.timing.mode)}, {"clock", to_string(e.timing.clock)}};
  if (e.timing.mode == TimingMode::on_chip) j["timing"]["unit"] = e.timing.unit;
  j["carveout"] = e.carveout;
  j["parallel"] = e.parallel;
  return j;
}

}  // namespace

class RunAnalysis {
 public:
  std::unique_ptr<BundleWriter> writer;  // held until findings.json is written: the bundle stays locked
  bool sealed = false;                   // its files are written by finish_analysis (BundleWriter::seal)
  TraceSet traces;                       // the run's committed points (retained, or read back)
  std::vector<AnalysisRequest> requests;
  std::vector<Expectation> expectations;
  std::vector<std::vector<Finding>> findings;  // per request
  std::vector<double> ms;                      // per request
  bool keep_analysed = false;                  // RunOptions::keep_analysed

  // A complete run whose last points were still being stored when run_spec returned: the
  // first job seals the bundle (waiting for the stores, which fill `traces`), once.
  bool seal_pending = false;
  std::string seal_status;
  nlohmann::json seal_extra;
  std::string store_error;  // what a failed store threw (the bundle is then sealed "failed")
  // Never throws (a job that threw would leave its queue waiting): what failed is store_error.
  void await_points() noexcept {
    std::call_once(sealed_once_, [this]() noexcept {
      if (!seal_pending) return;
      try {
        writer->seal(seal_status, seal_extra);
        return;
      } catch (const std::exception& e) {
        store_error = e.what();
      } catch (...) {
        store_error = "an unknown error";
      }
      if (store_error.empty()) store_error = "an unknown error";
      // Every store has ended (await_stored waits for all): the bundle says what failed.
      try {
        seal_extra["error"] = store_error;
        writer->seal("failed", seal_extra);
      } catch (...) {
        // Nothing more to record: finish_analysis reports store_error.
      }
    });
  }

 private:
  std::once_flag sealed_once_;
};

std::size_t analysis_jobs(const RunAnalysis& a) { return a.requests.size(); }

void run_analysis_job(RunAnalysis& a, std::size_t i) {
  a.await_points();  // the wait for the last stores is not the analyzer's time
  const auto t0 = std::chrono::steady_clock::now();
  if (a.store_error.empty()) a.findings[i] = run_analyzers(a.traces, {a.requests[i]});
  a.ms[i] = ms_since(t0);
}

void finish_analysis(RunOutcome& out) {
  if (!out.analysis) return;
  const std::shared_ptr<RunAnalysis> a = std::move(out.analysis);
  a->await_points();
  if (!a->store_error.empty()) {
    if (a->sealed) a->writer->write_sealed();
    a->writer.reset();
    out.status = "failed";
    throw RunError("storing the points failed: " + a->store_error);
  }
  const auto t0 = std::chrono::steady_clock::now();
  out.findings.clear();
  for (auto& f : a->findings) std::move(f.begin(), f.end(), std::back_inserter(out.findings));
  out.expectations = check_expectations(a->expectations, out.findings);
  nlohmann::json fj = nlohmann::json::array();
  for (const auto& f : out.findings) fj.push_back(f.to_json());
  nlohmann::json ej = nlohmann::json::array();
  for (const auto& r : out.expectations)
    ej.push_back({{"expect", r.expectation.text},
                  {"outcome", r.outcome == ExpectationResult::Outcome::pass   ? "pass"
                              : r.outcome == ExpectationResult::Outcome::fail ? "fail"
                                                                              : "unknown"},
                  {"actual", r.actual},
                  {"message", r.message}});
  if (a->sealed) a->writer->write_sealed();  // bundle.json complete before findings.json
  nlohmann::json findings_file = {{"findings", std::move(fj)}, {"expectations", std::move(ej)}};
  a->writer->write_findings(findings_file);
  if (a->keep_analysed) {
    // Every job has run: the points are the caller's now.
    auto kept = std::make_shared<AnalysedBundle>();
    kept->bundle.dir = a->writer->dir();
    kept->bundle.header = a->writer->header();
    kept->bundle.traces = std::move(a->traces);
    kept->findings_file = std::move(findings_file);
    out.analysed = std::move(kept);
  }
  a->writer.reset();  // the bundle is done: its lock goes
  out.analysis_ms = ms_since(t0);
  for (const double ms : a->ms) out.analysis_ms += ms;
}

nlohmann::json bundle_header(const Spec& spec, const Device& device, const RunOptions& options) {
  nlohmann::json h;
  h["tool"] = {{"name", "dissect"}, {"version", DISSECT_VERSION}, {"git_revision", DISSECT_GIT_REVISION}};
  h["argv"] = options.argv;
  struct utsname u {};
  ::uname(&u);
  h["host"] = {{"name", host_name()}, {"os", std::string(u.sysname) + " " + u.release}, {"machine", u.machine}};
  h["spec"] = {{"path", spec.path},
               {"name", spec.base.name},
               {"description", spec.base.description},
               {"source", spec.base.source},
               {"text", spec.text},
               {"included", spec.included},
               {"expanded", to_yaml(spec.root)},
               {"experiment", experiment_json(spec.base)},
               {"points", spec.point_count()}};
  h["device"] = device.describe();
  h["started"] = utc_timestamp();
  return h;
}

RunOutcome run_spec(const Spec& spec, Device& device, const RunOptions& options, const std::atomic<bool>& stop) {
  const auto t0 = std::chrono::steady_clock::now();
  timeline::mark("run_spec: start");
  RunOutcome out;
  if (spec.base.abstract)
    throw RunError(spec.path + ": an abstract base spec (abstract: true) is for include:, not for running");
  // load_spec decoded every point already (to validate the spec): a run uses those.
  std::vector<Point> decoded;
  if (!spec.adaptive() && spec.expanded.empty()) decoded = spec.expand();
  const std::vector<Point>& points = spec.expanded.empty() ? decoded : spec.expanded;
  out.points_total = points.size();
  check_points_fit_device(spec, points, device);  // before a bundle exists
  const double expand_ms = ms_since(t0);

  // The header is made and written while the device sets up (BundleWriter).
  const bool resuming = !options.resume_dir.empty();
  if (resuming && spec.adaptive())
    throw RunError(spec.path + ": an adaptive search cannot be resumed (its points depend on every earlier one)");
  std::unique_ptr<BundleWriter> writer_ptr;
  try {
    if (resuming)
      writer_ptr = std::make_unique<BundleWriter>(
          options.resume_dir, BundleWriter::Resume{},
          nlohmann::json{{"at", utc_timestamp()},
                         {"argv", options.argv},
                         {"device", device_identity(device.describe(), host_name())}});
    else
      writer_ptr = std::make_unique<BundleWriter>(
          claim_bundle_dir(options.out_parent, spec.base.name),
          BundleWriter::DeferredHeader{[&spec, &device, &options] { return bundle_header(spec, device, options); }});
  } catch (const RunError&) {
    throw;
  } catch (const std::exception& e) {
    throw RunError(e.what());
  }
  BundleWriter& writer = *writer_ptr;
  // The analyzers get the committed points from memory, as read_bundle would
  // return them: no reading back of a trace that can be hundreds of MB. A resumed
  // run's earlier points are read back from the bundle after it.
  const bool analyze = options.analyze && !spec.base.analyzers.empty();
  const bool analyze_later = options.defer_analysis && analyze && !resuming;
  // Rows are formatted and written while the next launches run, not between them; where an
  // analysis on another thread follows (it keeps every point anyway), without the run ever
  // waiting for them.
  writer.store_in_background(analyze_later);
  out.bundle_dir = writer.dir();
  if (options.bundle_opened) options.bundle_opened(out.bundle_dir);
  // A resumed run measures what the bundle lacks, in the spec's order.
  std::vector<Point> remaining;
  if (resuming)
    for (const Point& p : points)
      if (writer.committed_before().count(p.id) == 0) remaining.push_back(p);
  auto analysis = std::make_shared<RunAnalysis>();
  if (analyze && !resuming) writer.retain_traces(&analysis->traces);
  const double open_ms = ms_since(t0) - expand_ms;
  BundleSink sink(writer, options.progress, spec.base.name);
  timeline::mark("run_spec: bundle opened");

  RunRequest req;
  req.spec = &spec;
  req.points = resuming ? std::span<const Point>(remaining) : std::span<const Point>(points);
  req.stop = &stop;
  nlohmann::json search_log;
  // The GPU before the first point and after the last (engine/device/run_conditions.hpp).
  const GpuSnapshot before = device.snapshot();
  try {
    if (spec.adaptive()) {  // points chosen while running (engine/run/adaptive_search.hpp)
      const AdaptiveSearchOutcome a = run_adaptive_search(spec, device, sink, stop);
      out.timings = a.timings;
      out.points_total = a.points;
      search_log = a.log;
      out.status = stop.load() ? "interrupted" : "complete";
    } else {
      out.timings = device.run(req, sink);
      out.status = "complete";  // or interrupted: told once its points are stored (below)
    }
  } catch (const UnsupportedError& e) {
    out.status = "unsupported";
    out.error = e.what();
  } catch (const DeviceFault& e) {
    // Failed like any other error; the bundle also says what the fault was and whether the
    // device recovered, so that a batch's next spec is known to run in a fresh context.
    out.status = "failed";
    out.error = e.what();
    out.fault = e.details();
  } catch (const std::exception& e) {
    out.status = "failed";
    out.error = e.what();
  }
  // A complete run whose analysis follows on another thread (a topology's step) leaves its
  // last stores to that analysis, which seals the bundle before it reads the points
  // (RunAnalysis::await_points): the next step measures meanwhile.
  const bool stopped = stop.load();  // read once: a Ctrl-C now must not split the two uses
  const bool store_later = analyze_later && out.status == "complete" && !stopped && sink.points_handed() > 0;
  // Otherwise, whatever ended the run, the points measured before are stored here (a store
  // that failed fails the run).
  if (!store_later) try {
      writer.await_stored();
    } catch (const std::exception& e) {
      if (out.error.empty()) {
        out.status = "failed";
        out.error = e.what();
      }
    }
  if (out.status == "complete" && !spec.adaptive() && stopped && writer.points_written() < points.size())
    out.status = "interrupted";
  out.points_done = store_later ? sink.points_handed() : writer.points_written();
  out.wall_ms = ms_since(t0);
  timeline::mark("run_spec: wall ends");
  const GpuSnapshot after = device.snapshot();
  const std::array<double, 2> launch_clocks = sink.clock_range();
  RunConditions conditions = assess_conditions(before, after, launch_clocks, static_cast<std::uint32_t>(::getpid()));
  out.condition_warnings = std::move(conditions.warnings);
  out.conditions = std::move(conditions.json);
  // A resumed bundle keeps the conditions of the parts before this one.
  if (resuming && writer.header().contains("conditions")) {
    nlohmann::json earlier_part = writer.header()["conditions"];
    nlohmann::json earlier = earlier_part.value("earlier", nlohmann::json::array());
    earlier_part.erase("earlier");
    earlier.push_back(std::move(earlier_part));
    out.conditions["earlier"] = std::move(earlier);
  }
  nlohmann::json extra;
  extra["timings"] = {{"wall_ms", out.wall_ms},
                      {"kernel_ms", out.timings.kernel_ms},
                      {"compile_ms", out.timings.compile_ms},
                      {"launches", out.timings.launches},
                      {"points", out.points_done}};
  if (!out.error.empty()) extra["error"] = out.error;
  if (!out.fault.is_null()) extra["fault"] = out.fault;
  extra["conditions"] = out.conditions;
  if (!search_log.is_null()) extra["adaptive_search"] = search_log;
  const auto t_finish = std::chrono::steady_clock::now();
  // A deferred analysis also takes the bundle's last writes (its fsyncs: a trace of
  // hundreds of MB takes a while) off the caller's path; they come before findings.json.
  const bool analysis_follows = analyze && out.points_done > 0;
  const bool seal_only = options.defer_analysis && analysis_follows && !resuming;
  if (!store_later) {
    if (seal_only) writer.seal(out.status, extra);
    else writer.finish(out.status, extra);
  } else {
    writer.await_header();  // it is made from `spec` and `options`, which the caller may free now
  }
  if (timing_report_wanted())
    std::fprintf(stderr,
                 "dissect timing: %s: wall %.2f ms = expand %.2f, bundle open %.2f, device run %.2f (kernels %.2f, "
                 "compile %.2f, handing points to the writer %.2f); then finish %.2f ms (not in wall)\n",
                 spec.base.name.c_str(), out.wall_ms, expand_ms, open_ms, out.wall_ms - expand_ms - open_ms,
                 out.timings.kernel_ms, out.timings.compile_ms, sink.store_ms(), ms_since(t_finish));
  timeline::mark("run_spec: bundle finished");
  timeline::print(stderr);

  if (analysis_follows) {
    analysis->sealed = seal_only;
    if (store_later) {
      analysis->seal_pending = true;
      analysis->seal_status = out.status;
      analysis->seal_extra = std::move(extra);
    }
    if (resuming) analysis->traces = read_bundle(writer.dir()).traces;
    analysis->requests = requests_from(spec.base.analyzers);
    analysis->expectations = spec.base.expectations;
    analysis->findings.resize(analysis->requests.size());
    analysis->ms.resize(analysis->requests.size());
    // A resumed run's points are read back from its files (with whatever damage they hold,
    // which only the files' reader reports): its report reads them too.
    analysis->keep_analysed = options.keep_analysed && options.defer_analysis && !resuming;
    analysis->writer = std::move(writer_ptr);
    out.analysis = std::move(analysis);
    if (!options.defer_analysis) {
      for (std::size_t i = 0; i < analysis_jobs(*out.analysis); ++i) run_analysis_job(*out.analysis, i);
      finish_analysis(out);
    }
  }
  return out;
}

}  // namespace dissect
