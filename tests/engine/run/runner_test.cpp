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
