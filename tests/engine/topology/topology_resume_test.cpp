// dissect topology --resume: a killed topology continues to the result of an
// uninterrupted one; another device is refused.
#include "engine/topology/topology_resume.hpp"

#include <doctest/doctest.h>
#include <signal.h>

#include <filesystem>

#include "engine/core/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using dissect::test::read_file;
using dissect::test::run_dissect;
using dissect::test::TempDir;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

json topology_of(const std::string& dir) {
  try {
    return json::parse(read_file(dir + "/topology.json"));
  } catch (const std::exception&) {
    return json::object();  // not written yet, or being replaced
  }
}

// The steps recorded so far, the one in progress included.
std::size_t steps_recorded(const std::string& dir) {
  const json t = topology_of(dir);
  return t.contains("experiments") ? t["experiments"].size() : 0;
}

// A topology killed (SIGKILL) once `steps` steps are on record.
void kill_topology_after(const std::string& out, std::size_t steps) {
  REQUIRE(dissect::test::signal_dissect_when({"topology", "--device", "sim:fermi-gtx560ti", "--fast", "--quiet",
                                              "--no-report", "--out", out},
                                             [&] { return steps_recorded(out) >= steps; }, SIGKILL) != -1);
}

// topology.json without what differs from run to run (times, clocks read at run time).
json measured_part(json t) {
  for (const char* k : {"timings", "started", "finished", "resumed", "device"}) t.erase(k);
  for (auto& e : t["experiments"])
    for (const char* k : {"wall_ms", "analysis_ms", "kernel_ms", "compile_ms", "wait_ms"}) e.erase(k);
  return t;
}

}  // namespace

TEST_CASE("a killed topology resumes to the uninterrupted result; steps done are kept") {
  TempDir dir;
  REQUIRE(run_dissect("topology --device sim:fermi-gtx560ti --fast --quiet --no-report --out " + dir.file("whole"))
              .status == 0);
  const std::string cut = dir.file("cut");
  kill_topology_after(cut, 8);
  const json before = topology_of(cut);
  CHECK(before["status"] == "running");  // killed: recognisably not finished
  REQUIRE(before["experiments"].size() < topology_of(dir.file("whole"))["experiments"].size());
  const auto kept = fs::last_write_time(cut + "/topology_l1_latency/points.csv");
  // Recognised as killed where it is read.
  const auto rep = run_dissect("report " + cut + " --out " + dir.file("rep") + " --no-render");
  CHECK(rep.output.find("says 'running' but no process is writing it: the topology was killed") != std::string::npos);

  const auto r = run_dissect("topology --resume " + cut + " --quiet --no-report");
  CAPTURE(r.output);
  CHECK(r.status == 0);
  const json after = topology_of(cut);
  CHECK(after["status"] == "complete");
  REQUIRE(after["resumed"].size() == 1);
  CHECK(after["resumed"][0]["device"]["host"] == before["host"]["name"]);  // the identity it continued on
  CHECK(measured_part(after) == measured_part(topology_of(dir.file("whole"))));
  CHECK(fs::last_write_time(cut + "/topology_l1_latency/points.csv") == kept);  // a completed step is not rerun
}

TEST_CASE("topology --resume refuses another device and options that the directory fixes") {
  TempDir dir;
  REQUIRE(run_dissect("topology --device sim:fermi-gtx560ti --quiet --no-report --only l1_latency --out " +
                      dir.file("t")).status == 0);
  auto r = run_dissect("topology --resume " + dir.file("t") + " --device sim:h100-sxm --quiet --no-report");
  CHECK(r.status == 1);
  CHECK(r.output.find("a resumed topology continues on the same device") != std::string::npos);
  // The same profile on another machine is another device too.
  const std::string recorded = read_file(dir.file("t/topology.json"));
  json moved = json::parse(recorded);
  moved["host"]["name"] = "another-machine";
  dissect::write_file_atomic(dir.file("t/topology.json"), moved.dump(2));
  r = run_dissect("topology --resume " + dir.file("t") + " --quiet --no-report");
  CHECK(r.status == 1);
  CHECK(r.output.find("(host: another-machine, now " + dissect::host_name() + ")") != std::string::npos);
  dissect::write_file_atomic(dir.file("t/topology.json"), recorded);
  CHECK(run_dissect("topology --resume " + dir.file("t") + " --fast").status == 2);
  r = run_dissect("topology --resume " + dir.file("none") + " --device sim:fermi-gtx560ti --quiet --no-report");
  CHECK(r.status == 1);
  CHECK(r.output.find("nothing to resume") != std::string::npos);
}

TEST_CASE("a recorded step's bundle is used only when it is one name under the directory") {
  using nlohmann::json;
  using dissect::recorded_bundle_dir;
  using dissect::recorded_findings;
  CHECK(recorded_bundle_dir("/out", json{{"bundle", "topology_l1_size"}}) == "/out/topology_l1_size");
  CHECK(recorded_bundle_dir("/out", json{{"bundle", "../../etc"}}).empty());
  CHECK(recorded_bundle_dir("/out", json{{"bundle", "a/b"}}).empty());
  CHECK(recorded_bundle_dir("/out", json{{"bundle", ".."}}).empty());
  CHECK(recorded_bundle_dir("/out", json{{"bundle", 7}}).empty());
  CHECK(recorded_bundle_dir("/out", json::object()).empty());
  CHECK_FALSE(recorded_findings("/out", json{{"bundle", "../../etc"}}));
}
