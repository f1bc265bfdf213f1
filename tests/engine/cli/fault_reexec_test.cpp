// A kernel fault that costs the process its GPU (CUDA asks for a new process): `run` and
// `topology` go on in a fresh process. The simulator's test hook (DISSECT_TEST_INJECT_FAULT,
// engine/device/fault_injection.hpp) faults as such a GPU does, so the whole path runs here;
// the gpu suite does the same on a real GPU (tests/engine/device/cuda/cuda_device_test.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "engine/bundle/bundle.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using dissect::test::read_file;
using dissect::test::run_command;
using dissect::test::TempDir;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string spec_text(const std::string& name) {
  return "dissect: 1\nname: " + name + "\narray: {size: 1 KiB}\niterations: 64\nsweep:\n  array.size: [1 KiB, 2 KiB, 4 KiB]\n";
}

dissect::test::CommandResult dissect_with_fault(const std::string& fault, const std::string& args) {
  return run_command("env DISSECT_TEST_INJECT_FAULT=" + fault + " '" + std::string(DISSECT_BINARY) + "' " + args);
}

json header_of(const std::string& bundle) { return json::parse(read_file(bundle + "/bundle.json")); }

int run_dissect_status(const std::string& args) { return dissect::test::run_dissect(args).status; }

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("run: a fault that loses the GPU fails its spec; the batch goes on in a fresh process") {
  TempDir dir;
  const std::string a = dir.write("a.yaml", spec_text("first"));
  const std::string b = dir.write("b.yaml", spec_text("second"));
  const std::string c = dir.write("c.yaml", spec_text("third"));
  const std::string out = dir.file("runs");
  const auto r = dissect_with_fault("second:1", "run --device sim:fermi-gtx560ti --quiet --no-analyze --out " + out +
                                                    " " + a + " " + b + " " + c);
  CAPTURE(r.output);
  CHECK(r.status == 1);  // the faulted spec failed, though the process that ended ran only the third
  CHECK(r.output.find("dissect run: " + b + " faulted the GPU, which runs nothing more in this process; 1 spec "
                      "remains: continuing in a fresh process") != std::string::npos);
  CHECK(count(r.output, "continuing in a fresh process") == 1);
  // The first and third bundles are complete, under the same --out, named as in one process.
  for (const char* name : {"first", "third"}) {
    CAPTURE(name);
    const auto bundle = dissect::read_bundle(out + "/" + name);
    CHECK(bundle.header["status"] == "complete");
    CHECK(bundle.traces.points.size() == 3);
  }
  CHECK(r.output.find(c + ": complete, 3/3 points") != std::string::npos);
  CHECK(r.output.find(c + ": complete") > r.output.find("continuing in a fresh process"));
  // The faulted one: failed, its point #0 kept, the fault named (spec, point, call).
  const auto faulted = dissect::read_bundle(out + "/second");
  CHECK(faulted.header["status"] == "failed");
  REQUIRE(faulted.traces.points.size() == 1);
  CHECK(faulted.traces.points[0].point_id == 0);
  const std::string error = faulted.header.value("error", std::string());
  CHECK(error.find("spec " + b + ", point #1 (array.size=2 KiB): cuEventSynchronize: CUDA_ERROR_LAUNCH_FAILED") !=
        std::string::npos);
  REQUIRE(faulted.header.contains("fault"));
  CHECK(faulted.header["fault"]["cuda_call"] == "cuEventSynchronize");
  CHECK(faulted.header["fault"]["recovered"] == false);
  CHECK(r.output.find("dissect run: " + b + ": " + error) != std::string::npos);
  // Nothing else was written: one bundle per spec.
  std::size_t bundles = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(out)) ++bundles;
  CHECK(bundles == 3);

  // The last spec faulting: nothing remains, no fresh process; the status says it failed.
  const auto last = dissect_with_fault("second:1", "run --device sim:fermi-gtx560ti --quiet --no-analyze --out " +
                                                       dir.file("last") + " " + a + " " + b);
  CAPTURE(last.output);
  CHECK(last.status == 1);
  CHECK(last.output.find("fresh process") == std::string::npos);
  CHECK(header_of(dir.file("last/first"))["status"] == "complete");
  CHECK(header_of(dir.file("last/second"))["status"] == "failed");

  // A faulting first spec: the two after it run in the fresh process, which carries the options (--set).
  const auto first = dissect_with_fault("first:0", "run --device sim:fermi-gtx560ti --quiet --no-analyze --set "
                                                   "iterations=32 --out " + dir.file("early") + " " + a + " " + b +
                                                   " " + c);
  CAPTURE(first.output);
  CHECK(first.status == 1);
  CHECK(first.output.find("2 specs remain: continuing in a fresh process") != std::string::npos);
  CHECK(dissect::read_bundle(dir.file("early/first")).traces.points.empty());
  for (const char* name : {"second", "third"}) {
    CAPTURE(name);
    const auto bundle = dissect::read_bundle(dir.file("early/") + name);
    CHECK(bundle.header["status"] == "complete");
    REQUIRE(bundle.traces.points.size() == 3);
    CHECK(bundle.traces.points[0].samples.size() == 32);
  }
}

TEST_CASE("topology: a fault that loses the GPU fails its step; the next steps run in a fresh process, it is kept") {
  TempDir dir;
  const std::string out = dir.file("topo");
  const std::string steps = " --only l1_latency --only l2_latency --only dram_latency --only shared_latency";
  const auto r = dissect_with_fault("topology_l2_latency:0", "topology --device sim:fermi-gtx560ti --quiet "
                                                             "--no-report" + steps + " --out " + out);
  CAPTURE(r.output);
  CHECK(r.status == 1);  // a step failed
  CHECK(r.output.find("dissect topology: step l2_latency faulted the GPU, which runs nothing more in this process; "
                      "2 steps remain: continuing in a fresh process (dissect topology --resume " + out + ")") !=
        std::string::npos);
  CHECK(count(r.output, "continuing in a fresh process") == 1);
  CHECK(count(r.output, "written: " + out + "/topology.json") == 1);  // the table: once, by the fresh process
  const json topo = json::parse(read_file(out + "/topology.json"));
  CHECK(topo["status"] == "complete");
  REQUIRE(topo["experiments"].size() == 4);
  const json& faulted = topo["experiments"][1];
  CHECK(faulted["id"] == "l2_latency");
  CHECK(faulted["status"] == "failed");
  REQUIRE(faulted.contains("fault"));
  CHECK(faulted["fault"]["recovered"] == false);
  CHECK(faulted["error"].get<std::string>().find("point #0: cuEventSynchronize: CUDA_ERROR_LAUNCH_FAILED") !=
        std::string::npos);
  for (const std::size_t i : {0, 2, 3}) CHECK(topo["experiments"][i]["status"] == "complete");
  // The fresh process resumed the directory with the original options (but those it fixes).
  REQUIRE(topo["resumed"].size() == 1);
  const auto argv = topo["resumed"][0]["argv"].get<std::vector<std::string>>();
  CHECK(std::find(argv.begin(), argv.end(), "--resume") != argv.end());
  CHECK(std::find(argv.begin(), argv.end(), "--only") == argv.end());
  CHECK(std::find(argv.begin(), argv.end(), "sim:fermi-gtx560ti") != argv.end());
  CHECK(header_of(out + "/topology_l2_latency")["status"] == "failed");

  // Resuming again keeps the faulted step (it would fault again): nothing to run, still failed.
  auto again = run_command("'" + std::string(DISSECT_BINARY) + "' topology --resume " + out + " --quiet --no-report");
  CAPTURE(again.output);
  CHECK(again.status == 1);
  const json kept = json::parse(read_file(out + "/topology.json"));
  CHECK(kept["experiments"][1]["status"] == "failed");
  CHECK(kept["experiments"][1]["fault"] == faulted["fault"]);
  // --retry-failed runs it again (here without the injected fault: it completes).
  CHECK(run_dissect_status("topology --retry-failed --quiet --no-report --out " + dir.file("x")) == 2);
  again = run_command("'" + std::string(DISSECT_BINARY) + "' topology --resume " + out +
                      " --retry-failed --quiet --no-report");
  CAPTURE(again.output);
  CHECK(again.status == 0);
  const json retried = json::parse(read_file(out + "/topology.json"));
  CHECK(retried["experiments"][1]["status"] == "complete");
  CHECK_FALSE(retried["experiments"][1].contains("fault"));
}
