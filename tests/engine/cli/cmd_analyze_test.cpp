// dissect analyze BUNDLE end to end: a bundle moved away from its spec and the
// spec's includes re-analyses with the spec's own analyzers and parameters
// (bundle.json's expanded spec); an older bundle's fallback is said.
#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

using dissect::test::read_file;
using dissect::test::run_dissect;
using dissect::test::TempDir;
namespace fs = std::filesystem;

namespace {

// The analyzers come from the include, one with a parameter that shows in its
// finding (cache_size wants more sizes than the sweep has): only the spec's own
// analyzers, with their parameters, give the same findings.
constexpr const char* kBase =
    "dissect: 1\nabstract: true\nkernel: pchase\nelement: u32\ntiming: {mode: per_access, clock: clock}\n"
    "layout: {blocks: 1, threads: 1, chasers: 1}\nwarmup: 1\niterations: 512\n"
    "analyzers: [latency_levels, {cache_size: {min_points: 50}}]\n";
constexpr const char* kSpec =
    "dissect: 1\nname: moved\ninclude: ../base/fine.yaml\npath: ca\ntarget: l1\narray: {size: 8 KiB, stride: 128 B}\n"
    "sweep:\n  array.size: {from: 8 KiB, to: 24 KiB, step: 4 KiB}\n";

std::vector<std::string> analyzer_names(const std::string& json_lines) {
  std::vector<std::string> names;
  std::istringstream in(json_lines);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line.front() == '{') names.push_back(nlohmann::json::parse(line).value("analyzer", ""));
  return names;
}

}  // namespace

TEST_CASE("analyze: a bundle moved away from its spec and includes re-analyses with the spec's analyzers") {
  TempDir here, there;
  const std::string spec = here.write("specs/moved.yaml", kSpec);
  here.write("base/fine.yaml", kBase);
  const auto run = run_dissect("run --device sim:fermi-gtx560ti --out " + here.file("out") + " " + spec);
  REQUIRE_MESSAGE(run.status == 0, run.output);
  const std::string bundle = here.file("out/moved");
  const auto original = run_dissect("analyze --json " + bundle);
  REQUIRE_MESSAGE(original.status == 0, original.output);
  CHECK(analyzer_names(original.output) == std::vector<std::string>{"latency_levels", "cache_size"});
  CHECK(original.output.find("warning") == std::string::npos);

  // Moved: the spec and its include exist nowhere any more.
  const std::string moved = there.file("moved");
  fs::copy(bundle, moved, fs::copy_options::recursive);
  fs::remove_all(here.path());
  const auto again = run_dissect("analyze --json " + moved);
  REQUIRE_MESSAGE(again.status == 0, again.output);
  CHECK(again.output == original.output);  // the same analyzers, parameters and findings; no warning
  // ... which are the findings the run itself wrote.
  const auto recorded = nlohmann::json::parse(read_file(moved + "/findings.json"))["findings"];
  std::string from_run;
  for (const auto& f : recorded) from_run += f.dump() + "\n";
  CHECK(again.output == from_run);
  CHECK(again.output.find("min_points") != std::string::npos);  // the parameter took effect

  // --param still adjusts the spec's analyzers.
  const auto tuned = run_dissect("analyze --json --param cache_size.min_points=2 " + moved);
  CHECK(tuned.status == 0);
  CHECK(analyzer_names(tuned.output) == std::vector<std::string>{"latency_levels", "cache_size"});
  CHECK(tuned.output != again.output);
}

TEST_CASE("analyze: an older bundle whose include no longer resolves says why summary runs instead") {
  TempDir here, there;
  const std::string spec = here.write("specs/moved.yaml", kSpec);
  here.write("base/fine.yaml", kBase);
  REQUIRE(run_dissect("run --device sim:fermi-gtx560ti --out " + here.file("out") + " " + spec).status == 0);
  const std::string moved = there.file("moved");
  fs::copy(here.file("out/moved"), moved, fs::copy_options::recursive);
  fs::remove_all(here.path());
  // As written before bundle.json kept the expanded spec.
  auto header = nlohmann::json::parse(read_file(moved + "/bundle.json"));
  header["spec"].erase("expanded");
  there.write("moved/bundle.json", header.dump(2));

  const auto r = run_dissect("analyze --json " + moved);
  CHECK(r.status == 0);
  CHECK(analyzer_names(r.output) == std::vector<std::string>{"summary"});
  CAPTURE(r.output);
  CHECK(r.output.find("dissect analyze: " + moved + ": warning: the spec's analyzers are unknown: bundle.json "
                      "records no expanded spec; the spec text recorded in bundle.json does not load here (") !=
        std::string::npos);
  CHECK(r.output.find("include: file '../base/fine.yaml' not found") != std::string::npos);
  CHECK(r.output.find("running summary instead") != std::string::npos);
}
