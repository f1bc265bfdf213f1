// A topology goes on after a step's device fault (the device recovered), marking the
// step failed with the fault; steps that ran while the SM clock moved are named.
#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "engine/bundle/bundle.hpp"
#include "engine/device/device.hpp"
#include "engine/device/device_fault.hpp"
#include "engine/topology/topology_runner.hpp"
#include "engine/topology/topology_table.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;
using dissect::test::TempDir;
using json = nlohmann::json;

namespace {

// A simulated GPU whose run of the spec `fault_in` faults after its first point (as the
// CUDA device does after a kernel fault: it recovers, then throws DeviceFault), and whose
// SM clock (as snapshots read it) halves during the run of `clock_moves_in`.
class TroubledDevice final : public Device {
 public:
  TroubledDevice(std::string fault_in, std::string clock_moves_in)
      : inner_(open_device("sim:fermi-gtx560ti")), fault_in_(std::move(fault_in)), moves_in_(std::move(clock_moves_in)) {}
  json describe() const override { return inner_->describe(); }
  std::string selector() const override { return inner_->selector(); }
  std::uint64_t memory_bytes() const override { return inner_->memory_bytes(); }
  RunTimings run(const RunRequest& req, RunSink& sink) override {
    last_spec_ = req.spec->path;
    if (last_spec_.find(fault_in_) == std::string::npos) return inner_->run(req, sink);
    RunRequest first = req;
    first.points = req.points.subspan(0, 1);
    (void)inner_->run(first, sink);
    throw DeviceFault("spec " + req.spec->path + ", point #1: cuEventSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS (fake)",
                      {{"kind", "kernel fault"}, {"cuda_call", "cuEventSynchronize"}, {"recovered", true}}, true);
  }
  GpuSnapshot snapshot() const override {
    GpuSnapshot s;
    const bool after = ++snapshots_ % 2 == 0;  // the runner takes one before and one after each run
    // The profile's clock, which the simulated launches report too (points.csv sm_clock_khz).
    const double clock = inner_->describe()["sm_clock_khz"].get<double>();
    s.sm_clock_khz = after && last_spec_.find(moves_in_) != std::string::npos ? 0.5 * clock : clock;
    s.process_pids = std::vector<std::uint32_t>{static_cast<std::uint32_t>(::getpid())};
    return s;
  }

 private:
  std::unique_ptr<Device> inner_;
  std::string fault_in_, moves_in_, last_spec_;
  mutable std::size_t snapshots_ = 0;
};

const json* step(const json& r, const std::string& id) {
  for (const auto& e : r["experiments"])
    if (e["id"] == id) return &e;
  return nullptr;
}

}  // namespace

TEST_CASE("a step's device fault fails that step with the fault; the topology goes on; clock moves are named") {
  TempDir out;
  TroubledDevice dev("l2_latency.yaml", "dram_latency.yaml");
  TopologyOptions o;
  o.out_dir = out.path();
  o.fast = true;
  o.only = {"l1_latency", "l2_latency", "dram_latency"};
  std::atomic<bool> stop{false};
  const json r = run_topology(dev, o, stop);
  CHECK(r["status"] == "complete");
  const json* l1 = step(r, "l1_latency");
  const json* l2 = step(r, "l2_latency");
  const json* dram = step(r, "dram_latency");
  REQUIRE(l1 != nullptr);
  REQUIRE(l2 != nullptr);
  REQUIRE(dram != nullptr);
  CHECK((*l1)["status"] == "complete");
  CHECK_FALSE(l1->contains("conditions_warnings"));
  // The faulted step: failed, with the error and the fault; its bundle keeps its first point.
  CHECK((*l2)["status"] == "failed");
  CHECK((*l2)["error"].get<std::string>().find("point #1: cuEventSynchronize") != std::string::npos);
  CHECK((*l2)["fault"]["recovered"] == true);
  const Bundle b = read_bundle(out.path() + "/" + (*l2)["bundle"].get<std::string>());
  CHECK(b.header["status"] == "failed");
  CHECK(b.header["fault"]["cuda_call"] == "cuEventSynchronize");
  CHECK(b.traces.points.size() == 1);
  // The next step ran; its clock moved, which it, topology.json and the table say.
  CHECK((*dram)["status"] == "complete");
  REQUIRE(dram->contains("conditions_warnings"));
  CHECK((*dram)["conditions_warnings"][0].get<std::string>().find("SM clock moved") != std::string::npos);
  CHECK(r["conditions"]["affected_steps"] == json::array({"dram_latency"}));
  const Bundle db = read_bundle(out.path() + "/" + (*dram)["bundle"].get<std::string>());
  CHECK(db.header["conditions"]["sm_clock_moved"] == "yes");
  CHECK(db.header["conditions"]["other_processes"] == 0);
  const std::string table = topology_table(r);
  CHECK(table.find("conditions: dram_latency ran while the SM clock moved") != std::string::npos);
  CHECK(table.find("l2_latency: failed") != std::string::npos);
}

TEST_CASE("a simulated GPU's conditions are not applicable, and no step is named") {
  TempDir out;
  auto dev = open_device("sim:fermi-gtx560ti");
  TopologyOptions o;
  o.out_dir = out.path();
  o.fast = true;
  o.only = {"l1_latency"};
  std::atomic<bool> stop{false};
  const json r = run_topology(*dev, o, stop);
  CHECK(r["conditions"]["affected_steps"] == json::array());
  const json* l1 = step(r, "l1_latency");
  REQUIRE(l1 != nullptr);
  const Bundle b = read_bundle(out.path() + "/" + (*l1)["bundle"].get<std::string>());
  CHECK(b.header["conditions"]["applicable"] == false);
  CHECK(b.header["conditions"]["sm_clock_moved"] == "not applicable");
  CHECK(topology_conditions_line(r).empty());
}
