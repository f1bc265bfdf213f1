#include <doctest/doctest.h>

#include "engine/bundle/bundle.hpp"
#include "engine/run/runner.hpp"
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
analyzers: [summary]
expect: ["summary == 30", "summary.details.overall.samples == 384"]
sweep:
  array.size: [4 KiB, 8 KiB, 16 KiB, 32 KiB, 64 KiB, 128 KiB]
)";
}

TEST_CASE("a run writes a complete bundle, analyses it and checks expectations") {
  TempDir dir;
  const Spec spec = load_spec_text(kSpec, "sweep.yaml");
  FakeDevice dev;
  dev.capacity = 32 * 1024;  // 4 of the 6 points fit
  std::atomic<bool> stop{false};
  RunOptions o;
  o.out_parent = dir.path();
  const RunOutcome r = run_spec(spec, dev, o, stop);
  CHECK(r.status == "complete");
  CHECK(r.points_done == 6);
  const Bundle b = read_bundle(r.bundle_dir);
  CHECK(b.header["status"] == "complete");
  CHECK(b.header["spec"]["text"] == kSpec);
  CHECK(b.header["device"]["kind"] == "fake");
  CHECK(b.traces.points.size() == 6);
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].analyzer == "summary");
  REQUIRE(r.expectations.size() == 2);
  // 4 of 6 points hit (30 cycles), so the median of all samples is 30.
  CHECK(r.expectations[0].outcome == ExpectationResult::Outcome::pass);
  CHECK(r.expectations[1].outcome == ExpectationResult::Outcome::pass);
  CHECK(std::filesystem::exists(r.bundle_dir + "/findings.json"));
}

TEST_CASE("an interrupted run keeps every completed point") {
  TempDir dir;
  const Spec spec = load_spec_text(kSpec, "sweep.yaml");
  FakeDevice dev;
  std::atomic<bool> stop{false};
  dev.stop_flag = &stop;
  dev.stop_after = 2;
  RunOptions o;
  o.out_parent = dir.path();
  const RunOutcome r = run_spec(spec, dev, o, stop);
  CHECK(r.status == "interrupted");
  CHECK(r.points_done == 2);
  const Bundle b = read_bundle(r.bundle_dir);
  CHECK(b.header["status"] == "interrupted");
  CHECK(b.traces.points.size() == 2);
}

TEST_CASE("a failing device call leaves a failed bundle with the completed points and the error") {
  TempDir dir;
  const Spec spec = load_spec_text(kSpec, "sweep.yaml");
  FakeDevice dev;
  dev.fail_after = 3;
  std::atomic<bool> stop{false};
  RunOptions o;
  o.out_parent = dir.path();
  const RunOutcome r = run_spec(spec, dev, o, stop);
  CHECK(r.status == "failed");
  CHECK(r.error.find("point 3: cuLaunchKernel failed") != std::string::npos);
  const Bundle b = read_bundle(r.bundle_dir);
  CHECK(b.header["status"] == "failed");
  CHECK(b.header["error"].get<std::string>().find("cuLaunchKernel") != std::string::npos);
  CHECK(b.traces.points.size() == 3);
}

TEST_CASE("a device fault fails the run, keeps the completed points and records the fault; the next run goes on") {
  TempDir dir;
  const Spec spec = load_spec_text(kSpec, "sweep.yaml");
  FakeDevice dev;
  dev.fault_after = 2;
  std::atomic<bool> stop{false};
  RunOptions o;
  o.out_parent = dir.path();
  const RunOutcome r = run_spec(spec, dev, o, stop);
  CHECK(r.status == "failed");
  CHECK(r.points_done == 2);
  CHECK(r.error.find("sweep.yaml, point #2: cuEventSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS") != std::string::npos);
  REQUIRE(r.fault.is_object());
  CHECK(r.fault["recovered"] == true);
  const Bundle b = read_bundle(r.bundle_dir);
  CHECK(b.header["status"] == "failed");
  CHECK(b.header["error"] == r.error);
  CHECK(b.header["fault"]["cuda_call"] == "cuEventSynchronize");
  CHECK(b.header["fault"]["sticky"] == "context");
  CHECK(b.traces.points.size() == 2);
  // The same device object runs the next spec of the batch.
  dev.fault_after = SIZE_MAX;
  const RunOutcome next = run_spec(spec, dev, o, stop);
  CHECK(next.status == "complete");
  CHECK(next.points_done == 6);
  CHECK(next.fault.is_null());
  CHECK_FALSE(read_bundle(next.bundle_dir).header.contains("fault"));
}

TEST_CASE("expectations that fail or cannot be checked say so") {
  Finding f;
  f.analyzer = "line_size";
  f.value = 128;
  f.unit = "B";
  f.details = {{"fetch_bytes", 32}};
  Finding undetermined;
  undetermined.analyzer = "sets";
  undetermined.value = nullptr;
  undetermined.details = {{"reason", "the sweep never reaches the knee"}};
  auto mk = [](std::string finding, std::string op, std::string value) {
    Expectation x;
    x.finding = std::move(finding);
    x.op = std::move(op);
    x.value = std::move(value);
    x.text = x.finding + " " + x.op + " " + x.value;
    return x;
  };
  const auto r = check_expectations({mk("line_size", "==", "128 B"), mk("line_size", "==", "32 B"),
                                     mk("line_size.details.fetch_bytes", "<", "64"), mk("sets", "==", "4"),
                                     mk("tlb", "==", "2")},
                                    {f, undetermined});
  CHECK(r[0].outcome == ExpectationResult::Outcome::pass);
  CHECK(r[1].outcome == ExpectationResult::Outcome::fail);
  CHECK(r[2].outcome == ExpectationResult::Outcome::pass);
  CHECK(r[3].outcome == ExpectationResult::Outcome::unknown);
  CHECK(r[3].message.find("never reaches the knee") != std::string::npos);
  CHECK(r[4].outcome == ExpectationResult::Outcome::unknown);
}

TEST_CASE("a run takes the points load_spec decoded, or decodes them when a Spec has none") {
  TempDir dir;
  std::atomic<bool> stop{false};
  RunOptions o;
  o.out_parent = dir.path();
  o.analyze = false;
  FakeDevice dev;
  // The kept points are what runs (here: two of the six, to tell them apart).
  Spec kept = load_spec_text(kSpec, "sweep.yaml");
  REQUIRE(kept.expanded.size() == 6);
  kept.expanded.erase(kept.expanded.begin() + 2, kept.expanded.end());
  const RunOutcome a = run_spec(kept, dev, o, stop);
  CHECK(a.points_total == 2);
  CHECK(read_bundle(a.bundle_dir).traces.points.size() == 2);
  // A Spec without them (put together by hand) is expanded by the run, as before.
  Spec bare = load_spec_text(kSpec, "sweep.yaml");
  bare.expanded.clear();
  const RunOutcome b = run_spec(bare, dev, o, stop);
  CHECK(b.points_total == 6);
  CHECK(read_bundle(b.bundle_dir).traces.points.size() == 6);
}

namespace {

// Hands over all points as one batch (a per-SM launch), announcing them first
// (RunSink::points_started) when asked to, as the CUDA device does while its kernel runs.
class BatchDevice final : public Device {
 public:
  explicit BatchDevice(bool announce) : announce_(announce) {}
  nlohmann::json describe() const override { return {{"kind", "fake"}, {"name", "batch device"}}; }
  std::string selector() const override { return "batch"; }
  RunTimings run(const RunRequest& req, RunSink& sink) override {
    std::vector<const Point*> started;
    for (const Point& p : req.points) started.push_back(&p);
    if (announce_) sink.points_started(started, {});
    RunSink::PointBatch batch;
    for (const Point& p : req.points) {
      PointTrace t;
      t.point_id = p.id;
      t.params["launch"] = "per_sm";
      for (std::uint64_t i = 0; i < 4; ++i) t.samples.push_back({0, i, i * 4, 30.5 + static_cast<double>(p.id), 1, 0});
      batch.emplace_back(&p, std::move(t));
    }
    sink.points_done(std::move(batch));
    RunTimings timings;
    timings.launches = 1;
    return timings;
  }

 private:
  bool announce_;
};

}  // namespace

TEST_CASE("points announced while their kernel runs are stored as points that were not") {
  TempDir dir;
  const Spec spec = load_spec_text(kSpec, "sweep.yaml");
  std::atomic<bool> stop{false};
  RunOptions o;
  o.out_parent = dir.path();
  BatchDevice plain(false), announcing(true);
  const RunOutcome a = run_spec(spec, plain, o, stop), b = run_spec(spec, announcing, o, stop);
  REQUIRE(a.status == "complete");
  REQUIRE(b.status == "complete");
  CHECK(b.points_done == 6);
  for (const char* f : {"/points.csv", "/trace.csv"})
    CHECK_MESSAGE(test::read_file(a.bundle_dir + f) == test::read_file(b.bundle_dir + f), f);
  // The analysis read the same points from memory (retained traces) both ways.
  REQUIRE(a.findings.size() == b.findings.size());
  for (std::size_t i = 0; i < a.findings.size(); ++i) CHECK(a.findings[i].to_json() == b.findings[i].to_json());
}
