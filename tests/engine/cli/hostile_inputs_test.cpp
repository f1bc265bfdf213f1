// End-to-end: hostile but realistic use of the binary (issue 19). Each case ends
// with a clear error or is handled: nothing is written outside --out, nothing is
// lost, damage is said.
#include <doctest/doctest.h>

#include <algorithm>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "engine/core/directory_lock.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using dissect::test::read_file;
using dissect::test::run_command;
using dissect::test::run_dissect;
using dissect::test::spawn_dissect;
using dissect::test::wait_exit;
using dissect::test::wait_for;
using dissect::test::TempDir;
namespace fs = std::filesystem;

namespace {

nlohmann::json json_of(const std::string& path) { return nlohmann::json::parse(read_file(path)); }

}  // namespace

TEST_CASE("a spec named '..' or '.' is refused at validate and run; nothing is written outside --out") {
  TempDir dir;
  for (const char* name : {"..", "."}) {
    CAPTURE(name);
    const std::string spec = dir.write("up.yaml", std::string("dissect: 1\nname: \"") + name + "\"\narray: {size: 1 KiB}\n");
    auto r = run_dissect("validate " + spec);
    CHECK(r.status == 2);
    CHECK(r.output.find("up.yaml:2:7: name: '" + std::string(name) + "' is not a name") != std::string::npos);
    r = run_dissect("run --device sim:fermi-gtx560ti --quiet --out " + dir.file("out/runs") + " " + spec);
    CHECK(r.status == 2);
    CHECK_FALSE(fs::exists(dir.file("out")));
    CHECK_FALSE(fs::exists(dir.file("bundle.json")));
  }
}

TEST_CASE("concurrent runs of one spec into one --out each get their own complete bundle") {
  TempDir dir;
  const std::string spec = dir.write("race.yaml", "dissect: 1\nname: race\narray: {size: 1 KiB, stride: 4 B}\n"
                                                  "iterations: 64\nanalyzers: []\n");
  const std::string out = dir.file("out");
  constexpr int kRaces = 10, kRuns = 4;  // the 100 x 4 pass too; 10 x 4 keep CI fast
  const std::string one = std::string("'") + DISSECT_BINARY + "' run --device sim:fermi-gtx560ti --quiet --no-analyze --out " +
                          out + " " + spec + " >/dev/null 2>&1 || echo FAILED";
  std::string race = "(";
  for (int i = 0; i < kRuns; ++i) race += one + " & ";
  race += "wait)";
  for (int i = 0; i < kRaces; ++i) {
    const auto r = run_command(race);
    CHECK(r.output.find("FAILED") == std::string::npos);
  }
  std::set<std::string> bundles;
  for (const auto& e : fs::directory_iterator(out)) {
    bundles.insert(e.path().filename().string());
    const auto h = json_of(e.path().string() + "/bundle.json");
    CHECK(h["status"] == "complete");
    const std::string points = read_file(e.path().string() + "/points.csv");
    CHECK(std::count(points.begin(), points.end(), '\n') == 2);  // one header, one point
    CHECK(points.find("point_id", 1) == std::string::npos);      // no doubled header
  }
  CHECK(bundles.size() == static_cast<std::size_t>(kRaces * kRuns));
}

TEST_CASE("--max-points accepts only positive values") {
  TempDir dir;
  const std::string spec = dir.write("s.yaml", "dissect: 1\narray: {size: 1 KiB}\n");
  for (const char* v : {"--max-points=-1", "--max-points=0"}) {
    CAPTURE(v);
    auto r = run_dissect(std::string("validate ") + v + " " + spec);
    CHECK(r.status == 2);
    CHECK(r.output.find("expected a whole number above zero") != std::string::npos);
    r = run_dissect(std::string("run --device sim:fermi-gtx560ti ") + v + " --out " + dir.file("o") + " " + spec);
    CHECK(r.status == 2);
  }
  CHECK_FALSE(fs::exists(dir.file("o")));
}

TEST_CASE("an array beyond the device's memory is refused before running, at its line") {
  TempDir dir;
  const std::string spec = dir.write("pib.yaml", "dissect: 1\narray:\n  size: 1048576 GiB\n  stride: 4 B\n");
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_dissect("run --device sim:fermi-gtx560ti --quiet --out " + dir.file("o") + " " + spec);
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 20);
  CHECK(r.status == 2);
  CHECK(r.output.find("pib.yaml:3:9: arrays of 1048576 GiB (sweep point 0) exceed the memory of the device "
                      "sim:fermi-gtx560ti (80 GiB)") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.file("o")));
  // A swept size: the sweep value at fault.
  const std::string swept = dir.write("swept.yaml", "dissect: 1\narray: {size: 1 KiB}\nsweep:\n"
                                                    "  array.size: [1 KiB, 524288 GiB]\n");
  const auto s = run_dissect("run --device sim:fermi-gtx560ti --quiet --out " + dir.file("o") + " " + swept);
  CHECK(s.status == 2);
  CHECK(s.output.find("swept.yaml:4:23: arrays of 524288 GiB (sweep point 1)") != std::string::npos);
}

TEST_CASE("hostile spec files: an alias bomb, include of /dev/zero, a UTF-16 file: exit 2 with a location") {
  TempDir dir;
  std::string bomb = "dissect: 1\na: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    bomb += std::string(1, c) + ": &" + c + " [";
    for (int k = 0; k < 10; ++k) bomb += std::string(k ? ", *" : "*") + char(c - 1);
    bomb += "]\n";
  }
  auto r = run_dissect("validate " + dir.write("bomb.yaml", bomb));
  CHECK(r.status == 2);
  CHECK(r.output.find("bomb.yaml:2:32: the document holds more than 1000000 values") != std::string::npos);
  r = run_dissect("validate " + dir.write("zero.yaml", "dissect: 1\ninclude: /dev/zero\n"));
  CHECK(r.status == 2);
  CHECK(r.output.find("zero.yaml:2:10: include: /dev/zero:1:1: file larger than") != std::string::npos);
  r = run_dissect("validate " + dir.write("u16.yaml", std::string("\xff\xfe" "d\0i\0s\0", 8)));
  CHECK(r.status == 2);
  CHECK(r.output.find("u16.yaml:1:1: the file is UTF-16LE") != std::string::npos);
}

TEST_CASE("a bad device profile is exit 2 at run as at validate") {
  TempDir dir;
  const std::string profile = dir.write("bad-profile.yaml", "dissect_profile: 1\nname: broken\nsm_count: many\n");
  const std::string spec = dir.write("s.yaml", "dissect: 1\narray: {size: 1 KiB}\n");
  CHECK(run_dissect("validate " + profile).status == 2);
  const auto r = run_dissect("run --device sim:" + profile + " --out " + dir.file("o") + " " + spec);
  CHECK(r.status == 2);
  CHECK(r.output.find("bad-profile.yaml:") != std::string::npos);
}

TEST_CASE("an --out that cannot be created names the real cause") {
  TempDir dir;
  const std::string file = dir.write("a-file", "x");
  const std::string spec = dir.write("s.yaml", "dissect: 1\narray: {size: 1 KiB}\n");
  const auto r = run_dissect("run --device sim:fermi-gtx560ti --quiet --out " + file + "/runs " + spec);
  CHECK(r.status == 1);
  CHECK(r.output.find(file + "/runs: cannot create the output directory: Not a directory") != std::string::npos);
}

TEST_CASE("a second topology into a directory in use fails at once, naming the holder") {
  TempDir dir;
  fs::create_directories(dir.file("topo"));
  auto held = dissect::DirectoryLock::try_acquire(dir.file("topo"));
  REQUIRE(held.has_value());
  const auto r = run_dissect("topology --device sim:fermi-gtx560ti --quiet --no-report --out " + dir.file("topo"));
  CHECK(r.status == 1);
  CHECK(r.output.find("another dissect topology is writing this directory (process " + std::to_string(::getpid()) +
                      ")") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.file("topo/topology.json")));
}

TEST_CASE("SIGTERM and SIGHUP end a run and a topology with their status written") {
  TempDir dir;
  // Enough points that the signal comes while it runs.
  const std::string spec = dir.write("long.yaml", "dissect: 1\nname: long\narray: {size: 64 KiB, stride: 4 B}\n"
                                                  "iterations: 20000\nanalyzers: []\nsweep:\n"
                                                  "  array.size: {from: 4 KiB, to: 4 MiB, step: 4 KiB}\n");
  for (const int sig : {SIGTERM, SIGHUP}) {
    CAPTURE(sig);
    const std::string out = dir.file("runs-" + std::to_string(sig));
    const pid_t pid = spawn_dissect({"run", "--device", "sim:fermi-gtx560ti", "--quiet", "--out", out, spec},
                                    dir.file("run.log"));
    const std::string points = out + "/long/points.csv";
    // The header and one committed point: the signal then ends the run between points or
    // inside one, and at least one point is on disk either way.
    auto lines = [&] {
      const std::string text = fs::exists(points) ? read_file(points) : std::string();
      return std::count(text.begin(), text.end(), '\n');
    };
    CHECK(wait_for([&] { return lines() >= 2; }, 60));
    ::kill(pid, sig);
    CHECK(wait_exit(pid) == 130);
    const auto h = json_of(out + "/long/bundle.json");
    CHECK(h["status"] == "interrupted");
    CHECK(h["points_completed"].get<int>() >= 1);
  }
  const std::string topo = dir.file("topo");
  const pid_t pid = spawn_dissect({"topology", "--device", "sim:fermi-gtx560ti", "--quiet", "--no-report", "--out", topo},
                                  dir.file("topo.log"));
  CHECK(wait_for([&] { return fs::exists(topo + "/topology.json"); }, 60));
  ::kill(pid, SIGTERM);
  CHECK(wait_exit(pid) == 130);
  CHECK(json_of(topo + "/topology.json")["status"] == "interrupted");
}

TEST_CASE("analyze says what is damaged in a bundle and what it used") {
  TempDir dir;
  const std::string spec = dir.write("s.yaml", "dissect: 1\nname: s\narray: {size: 1 KiB, stride: 4 B}\niterations: 64\n"
                                               "sweep:\n  array.size: [1 KiB, 2 KiB, 4 KiB, 8 KiB]\n");
  REQUIRE(run_dissect("run --device sim:fermi-gtx560ti --quiet --no-analyze --out " + dir.file("o") + " " + spec).status == 0);
  const std::string trace = dir.file("o/s/trace.csv");
  fs::resize_file(trace, fs::file_size(trace) / 2);
  const auto r = run_dissect("analyze " + dir.file("o/s") + " --analyzer summary");
  CHECK(r.status == 0);
  CHECK(r.output.find("warning: point 3: trace.csv holds 0 samples") != std::string::npos);
  CHECK(r.output.find("analysing 4 points") != std::string::npos);
}

TEST_CASE("Ctrl-C ends a long point of the simulator at once, not when the point ends") {
  TempDir dir;
  // One point of half a billion loads: tens of seconds on the simulator.
  const std::string spec = dir.write("one.yaml", "dissect: 1\nname: one\narray: {size: 2 GiB, stride: 4 B}\n"
                                                 "iterations: 100\nanalyzers: []\n");
  const std::string out = dir.file("o");
  const pid_t pid = spawn_dissect({"run", "--device", "sim:fermi-gtx560ti", "--quiet", "--out", out, spec},
                                  dir.file("run.log"));
  CHECK(wait_for([&] { return fs::exists(out + "/one/bundle.json"); }, 60));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // inside the point
  const auto t0 = std::chrono::steady_clock::now();
  ::kill(pid, SIGINT);
  CHECK(wait_exit(pid) == 130);
  // The point takes tens of seconds; ending within a few is "at once", also on a loaded machine.
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 15);
  const auto h = json_of(out + "/one/bundle.json");
  CHECK(h["status"] == "interrupted");
  CHECK(h["points_completed"] == 0);
}

TEST_CASE("a sweep list that is too long is refused quickly, at the sweep") {
  TempDir dir;
  std::string items;
  for (int i = 0; i < 300000; ++i) items += i ? ", 1" : "1";
  const std::string spec = dir.write("list.yaml", "dissect: 1\narray: {size: 1 KiB}\nsweep:\n  iterations: [" + items + "]\n");
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_dissect("validate " + spec);
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 10);
  CHECK(r.status == 2);
  CHECK(r.output.find("list.yaml:3:1: sweep expands to 300000 points, more than the limit of 100000") !=
        std::string::npos);
}
