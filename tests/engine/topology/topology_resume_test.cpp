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

// The steps recorded so far, the ones in progress included, once the first is complete (a
// step is recorded as it starts to measure, complete once its analysis is folded in: on a
// loaded machine the first one's analysis may still be running when later steps measure).
std::size_t steps_recorded_past_first(const std::string& dir) {
  const json t = topology_of(dir);
  if (!t.contains("experiments") || t["experiments"].empty() ||
      t["experiments"][0].value("status", std::string()) != "complete")
    return 0;
  return t["experiments"].size();
}

// A topology killed (SIGKILL) once `steps` steps are on record and the first is complete.
void kill_topology_after(const std::string& out, std::size_t steps) {
  REQUIRE(dissect::test::signal_dissect_when({"topology", "--device", "sim:fermi-gtx560ti", "--fast", "--quiet",
                                              "--no-report", "--out", out},
                                             [&] { return steps_recorded_past_first(out) >= steps; },
                                             SIGKILL) != -1);
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

TEST_CASE("a step whose points cannot all be stored fails, whenever its writes fail, and resumes") {
  // A file-size limit stands in for a full disk (writes past it fail: EFBIG, like ENOSPC).
  // Limits from well below the step's trace to just below its end: the write fails while
  // the step still measures (the run fails at once) or once every point was handed over
  // (its analysis, which waits for the stores, fails the step); either way the step is failed,
  // its bundle says why, and a resumed topology completes it.
  TempDir dir;
  const std::string base = "topology --device sim:fermi-gtx560ti --only shared_banks --no-report --quiet --out ";
  REQUIRE(run_dissect(base + dir.file("whole")).status == 0);
  const auto trace_kib = fs::file_size(dir.file("whole/topology_shared_banks/trace.csv")) / 1024;
  REQUIRE(trace_kib > 40);
  for (const std::uintmax_t limit : {trace_kib / 2, trace_kib - 3, trace_kib - 1}) {
    CAPTURE(limit);
    const std::string out = dir.file("full-" + std::to_string(limit));
    const auto full = dissect::test::run_command("bash -c \"trap '' XFSZ; ulimit -f " + std::to_string(limit) + "; '" +
                                                 std::string(DISSECT_BINARY) + "' " + base + out + "\"");
    CHECK(full.status == 1);
    const json t = topology_of(out);
    REQUIRE(t.contains("experiments"));
    REQUIRE(t["experiments"].size() == 1);
    CHECK(t["experiments"][0]["status"] == "failed");
    CHECK(t["experiments"][0].value("error", std::string()).find("write failed") != std::string::npos);
    const json b = json::parse(read_file(out + "/topology_shared_banks/bundle.json"));
    CHECK(b["status"] == "failed");
    CHECK(b.value("error", std::string()).find("write failed") != std::string::npos);
    const auto resumed = run_dissect("topology --resume " + out + " --no-report --quiet");
    CHECK(resumed.status == 0);
    CHECK(topology_of(out)["experiments"][0]["status"] == "complete");
    CHECK(read_file(out + "/topology_shared_banks/points.csv") ==
          read_file(dir.file("whole/topology_shared_banks/points.csv")));
  }
}
