// What each analyzer of a bundle costs: the analyzers its spec names (as `dissect analyze`
// runs them), each timed on its own over the bundle's traces, read once. The figures of
// one run sit side by side (median and minimum of R repetitions), so that a change to an
// analyzer or to the shared statistics can be compared as a ratio on the same machine.
//
//   bench_analyzers [--reps R] [--only TEXT] BUNDLE...
//     R     repetitions of each analyzer (default 3)
//     TEXT  times only the analyzers whose name contains TEXT (to profile one under perf)
//
// A topology's bundles are the usual input: `bench_analyzers topology/topology_*`.
// The last column is a hash of the findings' JSON: equal before and after a change
// that is meant to leave the results alone. Each analyzer is timed from scratch (nothing
// another one derived); a bundle's row "(all, together)" times its analyzers in one run,
// sharing what they derive alike, as `dissect analyze` and a topology run them.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "engine/bundle/bundle.hpp"
#include "engine/run/analysis.hpp"
#include "engine/run/bundle_analysis_plan.hpp"

using namespace dissect;

namespace {

using Clock = std::chrono::steady_clock;

std::size_t findings_hash(const std::vector<Finding>& findings) {
  std::string text;
  for (const auto& f : findings) text += f.to_json().dump();
  return std::hash<std::string>{}(text);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 3;
  std::string only;
  std::vector<std::string> dirs;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else dirs.emplace_back(argv[i]);
  }
  if (dirs.empty()) {
    std::fprintf(stderr, "usage: bench_analyzers [--reps R] [--only TEXT] BUNDLE...\n");
    return 2;
  }
  std::printf("%-36s %-16s %8s %10s %10s  %s\n", "bundle", "analyzer", "points", "median ms", "min ms", "findings hash");
  double total = 0;
  for (const auto& dir : dirs) {
    Bundle b;
    try {
      b = read_bundle(dir);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", dir.c_str(), e.what());
      continue;
    }
    const BundleAnalysisPlan plan = plan_bundle_analysis(b.header, dir);
    std::string name = dir;
    while (!name.empty() && name.back() == '/') name.pop_back();
    name = name.substr(name.find_last_of('/') + 1);
    for (const auto& req : plan.requests) {
      if (!only.empty() && req.analyzer.find(only) == std::string::npos) continue;
      std::vector<double> ms;
      std::size_t hash = 0;
      for (int r = 0; r < reps; ++r) {
        b.traces.derived = DerivedCacheSlot{};  // nothing another analyzer or repetition derived
        const auto t0 = Clock::now();
        const auto findings = run_analyzers(b.traces, {req});
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        hash = findings_hash(findings);
      }
      std::sort(ms.begin(), ms.end());
      total += ms[ms.size() / 2];
      std::printf("%-36s %-16s %8zu %10.2f %10.2f  %016zx\n", name.c_str(), req.analyzer.c_str(), b.traces.points.size(),
                  ms[ms.size() / 2], ms.front(), hash);
    }
    if (!only.empty() || plan.requests.size() < 2) continue;
    // The bundle's analyzers in one run, as `dissect analyze` and a topology run them: what
    // one derives, the next may take (engine/trace/derived_cache.hpp).
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) {
      b.traces.derived = DerivedCacheSlot{};
      const auto t0 = Clock::now();
      (void)run_analyzers(b.traces, plan.requests);
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%-36s %-16s %8zu %10.2f %10.2f\n", name.c_str(), "(all, together)", b.traces.points.size(),
                ms[ms.size() / 2], ms.front());
  }
  std::printf("%-36s %-16s %8s %10.2f\n", "total (medians)", "", "", total);
  return 0;
}
