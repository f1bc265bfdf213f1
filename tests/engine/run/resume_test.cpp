// dissect run --resume: a killed or interrupted run continues to the result an
// uninterrupted one gives; a bundle of another spec, device or dissect is refused.
#include "engine/run/resume.hpp"

#include <doctest/doctest.h>

#include <filesystem>

#include "engine/core/directory_lock.hpp"
#include "engine/core/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;
using dissect::test::read_file;
using dissect::test::run_dissect;
using dissect::test::TempDir;
namespace fs = std::filesystem;

namespace {

// 256 points of 100,000 samples: a few seconds on the simulator, so that the kill after the
// sixth point lands mid-run on a loaded machine too.
const char* kLongSpec =
    "dissect: 1\nname: long\narray: {size: 64 KiB, stride: 4 B}\niterations: 100000\nanalyzers: [summary]\n"
    "sweep:\n  array.size: {from: 4 KiB, to: 1 MiB, step: 4 KiB}\n";

std::size_t lines_of(const std::string& path) {
  const std::string text = read_file(path);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Runs `spec` into `out` and kills the run with `sig` once it has committed a few points.
void run_and_kill(const std::string& spec, const std::string& out, int sig) {
  const std::string points = out + "/long/points.csv";
  REQUIRE(dissect::test::signal_dissect_when(
              {"run", "--device", "sim:fermi-gtx560ti", "--quiet", "--out", out, spec},
              [&] { return fs::exists(points) && lines_of(points) >= 6; }, sig) != -1);
}

nlohmann::json header_of(const std::string& bundle) { return nlohmann::json::parse(read_file(bundle + "/bundle.json")); }

}  // namespace

TEST_CASE("a run killed by SIGKILL or stopped by SIGTERM resumes to the uninterrupted result, byte for byte") {
  TempDir dir;
  const std::string spec = dir.write("long.yaml", kLongSpec);
  REQUIRE(run_dissect("run --device sim:fermi-gtx560ti --quiet --out " + dir.file("whole") + " " + spec).status == 0);
  for (const int sig : {SIGKILL, SIGTERM}) {
    CAPTURE(sig);
    const std::string out = dir.file("cut-" + std::to_string(sig));
    run_and_kill(spec, out, sig);
    const std::string bundle = out + "/long";
    const auto before = header_of(bundle);
    CHECK(before["status"] == (sig == SIGKILL ? "running" : "interrupted"));
    REQUIRE(lines_of(bundle + "/points.csv") < 257);  // killed mid-run
    const auto r = run_dissect("run --resume " + bundle + " --quiet");
    CAPTURE(r.output);
    CHECK(r.status == 0);
    CHECK(r.output.find("complete, 256/256 points -> " + bundle) != std::string::npos);
    CHECK(r.output.find("summary") != std::string::npos);  // analysed over every point
    CHECK(read_file(bundle + "/points.csv") == read_file(dir.file("whole/long/points.csv")));
    CHECK(read_file(bundle + "/trace.csv") == read_file(dir.file("whole/long/trace.csv")));
    const auto after = header_of(bundle);
    CHECK(after["status"] == "complete");
    CHECK(after["points_completed"] == 256);
    REQUIRE(after["resumed"].size() == 1);
    // The identity it continued on is on record: model (here the profile) and host.
    CHECK(after["resumed"][0]["device"]["kind"] == "sim");
    CHECK(after["resumed"][0]["device"]["host"] == before["host"]["name"]);
    CHECK(after["started"] == before["started"]);
    // Once complete, there is nothing to resume.
    const auto again = run_dissect("run --resume " + bundle);
    CHECK(again.status == 0);
    CHECK(again.output.find("nothing to resume") != std::string::npos);
  }
}

TEST_CASE("resume refuses another spec, device or dissect, and a bundle still being written") {
  TempDir dir;
  const std::string spec = dir.write("long.yaml", kLongSpec);
  run_and_kill(spec, dir.file("o"), SIGKILL);
  const std::string bundle = dir.file("o/long");
  const std::string points = read_file(bundle + "/points.csv");

  auto r = run_dissect("run --resume " + bundle + " --device sim:h100-sxm");
  CHECK(r.status == 1);
  CHECK(r.output.find("a resumed run continues on the same device") != std::string::npos);

  dir.write("long.yaml", std::string(kLongSpec) + "warmup: 2\n");
  r = run_dissect("run --resume " + bundle);
  CHECK(r.status == 1);
  CHECK(r.output.find("is not the one this bundle ran; it changed since") != std::string::npos);
  dir.write("long.yaml", kLongSpec);

  {
    auto held = DirectoryLock::try_acquire(bundle);
    REQUIRE(held.has_value());
    r = run_dissect("run --resume " + bundle);
    CHECK(r.status == 1);
    CHECK(r.output.find("a process is still writing this bundle") != std::string::npos);
  }

  const std::string header_text = read_file(bundle + "/bundle.json");
  // Another machine, or another driver, is another device too.
  {
    auto elsewhere = nlohmann::json::parse(header_text);
    elsewhere["host"]["name"] = "another-machine";
    write_file_atomic(bundle + "/bundle.json", elsewhere.dump(2));
    r = run_dissect("run --resume " + bundle);
    CHECK(r.status == 1);
    CHECK(r.output.find("of host another-machine") != std::string::npos);
    CHECK(r.output.find("(host: another-machine, now " + host_name() + ")") != std::string::npos);
    auto driver = nlohmann::json::parse(header_text);
    driver["device"]["driver_version"] = "13.0";
    write_file_atomic(bundle + "/bundle.json", driver.dump(2));
    r = run_dissect("run --resume " + bundle);
    CHECK(r.status == 1);
    CHECK(r.output.find("driver_version: 13.0, now none") != std::string::npos);
    CHECK(r.output.find("a resumed run continues on the same device") != std::string::npos);
    write_file_atomic(bundle + "/bundle.json", header_text);
  }
  auto h = nlohmann::json::parse(header_text);
  h["tool"]["git_revision"] = "0000000";
  write_file_atomic(bundle + "/bundle.json", h.dump(2));
  r = run_dissect("run --resume " + bundle);
  CHECK(r.status == 1);
  CHECK(r.output.find("written by dissect") != std::string::npos);
  write_file_atomic(bundle + "/bundle.json", header_text);

  CHECK(run_dissect("run --resume " + bundle + " " + spec).status == 2);  // no spec with --resume
  // Nothing refused touched the bundle.
  CHECK(read_file(bundle + "/points.csv") == points);
  CHECK(header_of(bundle)["status"] == "running");
}

TEST_CASE("plan_resume replays the recorded --set and --max-points") {
  TempDir dir;
  const std::string spec = dir.write("s.yaml", "dissect: 1\nname: s\narray: {size: 1 KiB}\niterations: 8\n");
  REQUIRE(run_dissect("run --device sim:fermi-gtx560ti --quiet --no-analyze --out " + dir.file("o") + " " + spec).status == 0);
  auto h = header_of(dir.file("o/s"));  // this dissect's header, then edited as an interrupted run's
  h["status"] = "interrupted";
  h["argv"] = {"dissect", "run", "s.yaml", "--set", "iterations=8", "--set=array.size=2KiB", "--max-points", "7"};
  write_file_atomic(dir.file("o/s/bundle.json"), h.dump());
  const ResumePlan plan = plan_resume(dir.file("o/s"));
  CHECK_FALSE(plan.complete);
  CHECK(plan.spec_path == spec);
  CHECK(plan.device_selector == "sim:fermi-gtx560ti");
  CHECK(plan.load.max_points == 7);
  REQUIRE(plan.load.overrides.size() == 2);
  CHECK(plan.load.overrides[0].key == "iterations");
  CHECK(plan.load.overrides[0].value == "8");
  CHECK(plan.load.overrides[1].key == "array.size");
  CHECK(plan.load.overrides[1].value == "2KiB");
}

TEST_CASE("a run that fails on a full disk keeps its record and resumes to the uninterrupted result") {
  TempDir dir;
  const std::string spec = dir.write("long.yaml", kLongSpec);
  REQUIRE(run_dissect("run --device sim:fermi-gtx560ti --quiet --out " + dir.file("whole") + " " + spec).status == 0);
  // A file-size limit stands in for a full disk: writes past 2 MiB fail (EFBIG, like ENOSPC).
  const auto full = dissect::test::run_command("bash -c \"trap '' XFSZ; ulimit -f 2048; '" + std::string(DISSECT_BINARY) +
                                               "' run --device sim:fermi-gtx560ti --quiet --out " + dir.file("o") +
                                               " " + spec + "\"");
  CHECK(full.status == 1);
  CHECK(full.output.find("write failed: File too large") != std::string::npos);
  const auto h = header_of(dir.file("o/long"));
  CHECK(h["status"] == "failed");  // the record says how it ended
  CHECK(h["points_completed"].get<int>() < 256);
  const auto r = run_dissect("run --resume " + dir.file("o/long") + " --quiet");
  CHECK(r.status == 0);
  CHECK(read_file(dir.file("o/long/points.csv")) == read_file(dir.file("whole/long/points.csv")));
  CHECK(read_file(dir.file("o/long/trace.csv")) == read_file(dir.file("whole/long/trace.csv")));
}
