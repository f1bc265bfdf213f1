// Deferred analyses: a run that leaves its analysis to the caller, analysed on the worker
// pool, ends with what an analysis inside run_spec gives, and keeps its bundle locked until then.
#include "engine/run/analysis_queue.hpp"

#include <doctest/doctest.h>

#include <filesystem>

#include "engine/bundle/bundle.hpp"
#include "engine/core/directory_lock.hpp"
#include "engine/core/files.hpp"
#include "support/fake_device.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;
using dissect::test::FakeDevice;
using dissect::test::TempDir;

namespace {
const char* kSpec = R"(dissect: 1
name: sweep
array: {size: 4 KiB, stride: 4 B}
iterations: 64
analyzers: [summary, latency_levels, cache_size]
expect: ["summary == 30"]
sweep:
  array.size: [4 KiB, 8 KiB, 16 KiB, 32 KiB, 64 KiB, 128 KiB]
)";

const char* kNoAnalyzers = R"(dissect: 1
name: plain
array: {size: 4 KiB, stride: 4 B}
iterations: 64
)";

std::string findings_text(const RunOutcome& r) {
  std::string s;
  for (const auto& f : r.findings) s += f.to_json().dump() + "\n";
  return s;
}
}  // namespace

TEST_CASE("a deferred analysis on the workers gives the findings of an analysis inside the run") {
  TempDir dir;
  const Spec spec = load_spec_text(kSpec, "sweep.yaml");
  FakeDevice dev;
  dev.capacity = 32 * 1024;
  std::atomic<bool> stop{false};
  RunOptions o;
  o.out_parent = dir.path();
  const RunOutcome inline_run = run_spec(spec, dev, o, stop);
  REQUIRE(inline_run.findings.size() == 3);
  CHECK(inline_run.analysis == nullptr);

  o.defer_analysis = true;
  RunOutcome deferred = run_spec(spec, dev, o, stop);
  CHECK(deferred.status == "complete");
  REQUIRE(deferred.analysis != nullptr);
  CHECK(analysis_jobs(*deferred.analysis) == 3);
  CHECK(deferred.findings.empty());
  const std::string dir2 = deferred.bundle_dir;
  // Measured; its points may still be on their way to the disk, and its last writes (fsyncs,
  // bundle.json) wait for the analysis, which stores them first. It stays locked until then.
  CHECK(nlohmann::json::parse(read_text_file(dir2 + "/bundle.json"))["status"] == "running");
  CHECK(directory_locked(dir2));
  CHECK_FALSE(std::filesystem::exists(dir2 + "/findings.json"));

  AnalysisQueue queue;
  queue.start(7, std::move(deferred));
  const RunOutcome analysed = queue.take(7);
  CHECK_FALSE(queue.done(7));  // taken: forgotten
  CHECK(findings_text(analysed) == findings_text(inline_run));
  REQUIRE(analysed.expectations.size() == 1);
  CHECK(analysed.expectations[0].outcome == inline_run.expectations[0].outcome);
  CHECK(analysed.analysis_ms > 0);
  CHECK(std::filesystem::exists(dir2 + "/findings.json"));
  CHECK(read_text_file(dir2 + "/findings.json") == read_text_file(inline_run.bundle_dir + "/findings.json"));
  CHECK(read_bundle(dir2).header["status"] == "complete");
  CHECK(read_bundle(dir2).header["points_completed"] == 6);
  CHECK_FALSE(directory_locked(dir2));
}

TEST_CASE("an analysis queue waits for every run; a run without analyzers is done at once") {
  TempDir dir;
  const Spec spec = load_spec_text(kNoAnalyzers, "none.yaml");
  FakeDevice dev;
  std::atomic<bool> stop{false};
  RunOptions o;
  o.out_parent = dir.path();
  o.defer_analysis = true;
  AnalysisQueue queue;
  for (std::size_t i = 0; i < 4; ++i) queue.start(i, run_spec(spec, dev, o, stop));
  queue.wait_all();
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(queue.done(i));
    const RunOutcome r = queue.take(i);
    CHECK(r.status == "complete");
  }
}

TEST_CASE("a deferred analysis kept for the caller hands over the bundle as its files hold it") {
  TempDir dir;
  const Spec spec = load_spec_text(kSpec, "sweep.yaml");
  FakeDevice dev;
  dev.capacity = 32 * 1024;
  std::atomic<bool> stop{false};
  RunOptions o;
  o.out_parent = dir.path();
  o.defer_analysis = true;
  AnalysisQueue queue;
  queue.start(0, run_spec(spec, dev, o, stop));
  CHECK(queue.take(0).analysed == nullptr);  // not asked for

  o.keep_analysed = true;
  queue.start(1, run_spec(spec, dev, o, stop));
  const RunOutcome kept = queue.take(1);
  REQUIRE(kept.analysed != nullptr);
  const Bundle files = read_bundle(kept.bundle_dir);
  const Bundle& memory = kept.analysed->bundle;
  CHECK(memory.dir == kept.bundle_dir);
  CHECK(memory.header == files.header);
  CHECK(kept.analysed->findings_file == nlohmann::json::parse(read_text_file(kept.bundle_dir + "/findings.json")));
  REQUIRE(memory.traces.points.size() == files.traces.points.size());
  for (std::size_t i = 0; i < files.traces.points.size(); ++i) {
    const PointTrace &m = memory.traces.points[i], &f = files.traces.points[i];
    CHECK(m.point_id == f.point_id);
    CHECK(m.params == f.params);
    REQUIRE(m.samples.size() == f.samples.size());
    for (std::size_t k = 0; k < f.samples.size(); ++k) CHECK(m.samples[k].latency == f.samples[k].latency);
  }
}
