#include "engine/device/sim/sim_device.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "engine/bundle/bundle.hpp"
#include "engine/run/runner.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;
using dissect::test::TempDir;

namespace {
const char* kSweep = R"(dissect: 1
name: tex_stage
kernel: pchase
path: tex
element: u32
array: {size: 3072 elements, stride: 8 elements}
iterations: 1024
sweep:
  array.size: [3072 elements, 3080 elements, 3112 elements]
)";

class Collect final : public RunSink {
 public:
  std::vector<PointTrace> traces;
  std::size_t progress_calls = 0;
  void point_done(const Point&, PointTrace t) override { traces.push_back(std::move(t)); }
  void kernel_built(const KernelArtifact&) override {}
  void progress(std::size_t, std::size_t) override { ++progress_calls; }
};
}  // namespace

TEST_CASE("the sim factory is registered: sim:<profile> opens a simulated GPU") {
  auto dev = open_device("sim:fermi-gtx560ti");
  REQUIRE(dev);
  CHECK(dev->selector() == "sim:fermi-gtx560ti");
  const auto j = dev->describe();
  CHECK(j["kind"] == "sim");
  CHECK(j["name"] == "fermi-gtx560ti");
  CHECK(j["sm_count"] == 8);
  CHECK(j["ground_truth"]["caches"]["tex_l1"]["sets"] == 4);
  CHECK(j["ground_truth"]["tlb"][1]["entries"] == 65);
  CHECK(j["profile_text"].get<std::string>().find("dissect_profile: 1") != std::string::npos);
}

TEST_CASE("an unknown profile is an error that lists the available ones") {
  CHECK_THROWS_WITH_AS(open_device("sim:nope"), doctest::Contains("sim:fermi-gtx560ti"), RunError);
  CHECK_THROWS_WITH_AS(open_device("sim:"), doctest::Contains("needs a profile name"), RunError);
}

TEST_CASE("a profile can be given as a file path; an invalid one is a SpecError with file:line:col") {
  TempDir dir;
  const std::string good = (std::filesystem::path(dir.path()) / "mine.yaml").string();
  std::filesystem::copy_file(std::string(DISSECT_SOURCE_DIR) + "/specs/devices/tesla-c2070.yaml", good);
  CHECK(open_device("sim:" + good)->describe()["name"] == "tesla-c2070");
  const std::string bad = (std::filesystem::path(dir.path()) / "bad.yaml").string();
  std::ofstream(bad) << "dissect_profile: 1\nname: bad\nsm: {count: 0, clock_mhz: 1}\n";
  try {
    open_device("sim:" + bad);
    FAIL("no error");
  } catch (const SpecError& e) {
    CHECK(e.diagnostics().errors().front().str().find("bad.yaml:3:13: sm.count must be between 1") != std::string::npos);
  }
}

TEST_CASE("the factory lists every profile and validates profile files") {
  const DeviceFactory* sim = nullptr;
  for (const auto& f : device_factories())
    if (f.name == "sim") sim = &f;
  REQUIRE(sim != nullptr);
  const auto lines = sim->list();
  CHECK(lines.size() >= 5);
  bool found = false;
  for (const auto& l : lines) found = found || l.rfind("sim:tesla-c2070  Tesla C2070", 0) == 0;
  CHECK(found);
  REQUIRE(sim->validate_profile);
  CHECK(sim->validate_profile(std::string(DISSECT_SOURCE_DIR) + "/specs/devices/h100-sxm.yaml") ==
        "device profile h100-sxm: 4 caches, 3 TLB levels, 132 SMs @ 1980 MHz");
}

TEST_CASE("Device::run reports every point with the trace context filled in") {
  auto dev = open_device("sim:fermi-gtx560ti");
  const Spec spec = load_spec_text(kSweep, "sweep.yaml");
  const auto points = spec.expand();
  Collect sink;
  RunRequest req;
  req.spec = &spec;
  req.points = points;
  const RunTimings t = dev->run(req, sink);
  REQUIRE(sink.traces.size() == 3);
  CHECK(sink.progress_calls == 3);
  CHECK(t.launches == 3);
  CHECK(t.kernel_ms > 0);
  for (std::size_t i = 0; i < 3; ++i) {
    const PointTrace& tr = sink.traces[i];
    CHECK(tr.point_id == i);
    CHECK(tr.samples.size() == 1024);
    CHECK(tr.sm_clock_khz == 1645000);
    CHECK(tr.timer_overhead_cycles == 20);
    CHECK(tr.accesses_per_pass == points[i].experiment.accesses_per_pass());
    CHECK(tr.sm_id == static_cast<std::int32_t>(i % 8));  // texture points spread over the SMs
    CHECK(tr.params.at("size_bytes") == std::to_string(points[i].experiment.array.size_bytes));
    CHECK(tr.kernel_ms > 0);
  }
  // The stop flag ends the run after the point in hand.
  std::atomic<bool> stop{true};
  req.stop = &stop;
  Collect none;
  dev->run(req, none);
  CHECK(none.traces.empty());
}

TEST_CASE("run_spec on sim writes a bundle that reads back") {
  TempDir dir;
  auto dev = open_device("sim:fermi-gtx560ti");
  const Spec spec = load_spec_text(kSweep, "sweep.yaml");
  std::atomic<bool> stop{false};
  RunOptions o;
  o.out_parent = dir.path();
  o.analyze = false;
  const RunOutcome r = run_spec(spec, *dev, o, stop);
  CHECK(r.status == "complete");
  CHECK(r.points_done == 3);
  const Bundle b = read_bundle(r.bundle_dir);
  CHECK(b.header["device"]["kind"] == "sim");
  REQUIRE(b.traces.points.size() == 3);
  // N = C + 32 B misses; the miss latency survives the round trip.
  double worst = 0;
  for (const auto& s : b.traces.points[1].samples) worst = std::max(worst, s.latency);
  CHECK(worst > 400);
  double worst_fit = 0;
  for (const auto& s : b.traces.points[0].samples) worst_fit = std::max(worst_fit, s.latency);
  CHECK(worst_fit < 300);
}

TEST_CASE("the CLI runs, lists and validates on sim") {
  TempDir dir;
  const std::string spec = (std::filesystem::path(dir.path()) / "s.yaml").string();
  std::ofstream(spec) << kSweep;
  auto run = test::run_dissect("run '" + spec + "' --device sim:fermi-gtx560ti --out '" + dir.path() + "'");
  CAPTURE(run.output);
  CHECK(run.status == 0);
  CHECK(std::filesystem::exists(std::filesystem::path(dir.path()) / "tex_stage" / "trace.csv"));
  auto list = test::run_dissect("list devices");
  CHECK(list.output.find("sim:kepler-gtx780") != std::string::npos);
  auto val = test::run_dissect("validate '" + std::string(DISSECT_SOURCE_DIR) + "/specs/devices'");
  CAPTURE(val.output);
  CHECK(val.status == 0);
  CHECK(val.output.find("device profile maxwell-gtx980:") != std::string::npos);
}
