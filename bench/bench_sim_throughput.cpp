// Simulated accesses per second of the simulated GPU, on one core, for a few
// typical experiments (fine-grained chases through L1/texture/L2/TLB, a chain).
//
//   bench_sim_throughput [--accesses N] [--only WORD] [--profiles DIR]
//     N     timed loads per scenario (default 4 Mi), run as N / 65536 points of
//           65536 timed loads each: the size of a large fine-grained point of the
//           spec library (each point is a fresh launch: cold caches, warm-up, trace)
//     WORD  run only the scenarios whose name contains WORD
//     DIR   where the device profiles are (default: the source tree's specs/devices)
//
// An access is one load through the memory model: warm-up and timed loads of
// every chasing thread and repeat. Prints one line per scenario and the total.
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <string>
#include <vector>

#include "engine/device/sim/sim_device.hpp"
#include "engine/spec/spec.hpp"

using namespace dissect;

namespace {

struct Scenario {
  std::string name;
  const char* profile;
  std::string spec;  // without iterations (appended)
};

constexpr std::uint64_t kPointIterations = 65536;

std::uint64_t accesses_of(const Experiment& e) {
  const std::uint64_t chasers = e.layout.chasers.size() * e.layout.blocks;
  return (static_cast<std::uint64_t>(e.warmup) * e.accesses_per_pass() + e.iterations) * chasers * e.repeats;
}

double cpu_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t per_scenario = 4ull << 20;
  std::string only, profiles = std::string(DISSECT_SOURCE_DIR) + "/specs/devices";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--accesses") == 0 && i + 1 < argc) per_scenario = std::strtoull(argv[++i], nullptr, 10);
    else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
    else if (std::strcmp(argv[i], "--profiles") == 0 && i + 1 < argc) profiles = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--accesses N] [--only WORD] [--profiles DIR]\n", argv[0]);
      return 2;
    }
  }
  const std::string head = "dissect: 1\nname: bench\nkernel: pchase\nelement: u32\nmax_samples: 268435456\n";
  const std::vector<Scenario> base{
      {"texture L1 stage 1 (96-way LRU, sequential)", "fermi-gtx560ti",
       head + "path: tex\narray: {size: 3073 elements, stride: 1 element}\nwarmup: 1\n"},
      {"L1 weighted-random, N = C + b (Mei Fig. 9)", "fermi-gtx560ti",
       head + "path: ca\ncarveout: max_shared\narray: {size: 16512 B, stride: 128 B}\nwarmup: 1\n"},
      {"L1 -> L2 random chase 1 MiB", "fermi-gtx560ti",
       head + "path: ca\narray: {size: 1 MiB, stride: 128 B, pattern: random}\nwarmup: 1\n"},
      {"L2 TLB sets, s = 2 MiB, N = 132 MiB", "kepler-gtx780",
       head + "path: cg\ntarget: tlb\narray: {size: 132 MiB, stride: 2 MiB}\nwarmup: 1\n"},
      {"H100 partitioned L2, random 24 MiB", "h100-sxm",
       head + "path: cg\ntarget: l2\narray: {size: 24 MiB, stride: 128 B, pattern: random}\nwarmup: 1\n"},
      {"H100 L1 sectors, s = 32 B, 64 KiB", "h100-sxm",
       head + "path: ca\narray: {size: 64 KiB, stride: 32 B}\nwarmup: 1\n"},
  };
  // Each experiment twice: fine-grained (a 40-byte Sample per timed load) and
  // chain-timed (one Sample per chain): the difference is the cost of the trace.
  std::vector<Scenario> scenarios;
  for (const auto& sc : base) scenarios.push_back(sc);
  for (const auto& sc : base)
    scenarios.push_back({sc.name + " [chain]", sc.profile, sc.spec + "timing: {mode: chain}\n"});

  // Rates are per second of this thread's CPU time (one core), so that other
  // load on the machine does not count; wall-clock seconds are shown too.
  std::printf("%-54s %-16s %12s %8s %8s %12s\n", "scenario", "profile", "accesses", "wall s", "cpu s", "accesses/s");
  // Warm-up, untimed: the process's first trace buffers pay one-off costs
  // (fresh pages from the kernel) that are not the simulator's.
  {
    sim::SimDevice dev(sim::load_profile_file(profiles + "/fermi-gtx560ti.yaml"), "sim:fermi-gtx560ti");
    const Spec spec = load_spec_text(base[0].spec + "iterations: 65536\n", "warm.yaml");
    for (int r = 0; r < 8; ++r)
      for (const auto& p : spec.expand()) (void)dev.run_point(p);
  }
  std::uint64_t total_accesses = 0;
  double total_seconds = 0;
  double slowest = 1e300;
  for (const auto& sc : scenarios) {
    if (!only.empty() && sc.name.find(only) == std::string::npos) continue;
    const std::string path = profiles + "/" + sc.profile + ".yaml";
    sim::SimDevice dev(sim::load_profile_file(path), std::string("sim:") + sc.profile);
    const std::uint64_t per_point = std::min<std::uint64_t>(per_scenario, kPointIterations);
    const Spec spec = load_spec_text(sc.spec + "iterations: " + std::to_string(per_point) + "\n", "bench.yaml");
    const auto points = spec.expand();
    const std::uint64_t runs = std::max<std::uint64_t>(1, per_scenario / per_point);
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_seconds();
    std::uint64_t n = 0;
    std::size_t samples = 0;
    for (std::uint64_t r = 0; r < runs; ++r)
      for (const auto& p : points) {
        const PointTrace t = dev.run_point(p);
        samples += t.samples.size();
        n += accesses_of(p.experiment);
      }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double s = cpu_seconds() - c0;
    std::printf("%-54s %-16s %12llu %8.3f %8.3f %12.3e\n", sc.name.c_str(), sc.profile, static_cast<unsigned long long>(n),
                wall, s, static_cast<double>(n) / s);
    total_accesses += n;
    total_seconds += s;
    slowest = std::min(slowest, static_cast<double>(n) / s);
    if (samples == 0) return 1;
  }
  std::printf("%-54s %-16s %12llu %8s %8.3f %12.3e\n", "total", "", static_cast<unsigned long long>(total_accesses), "",
              total_seconds, static_cast<double>(total_accesses) / total_seconds);
  std::printf("slowest scenario: %.3e accesses/s (target: >= 2.0e+07)\n", slowest);
  return 0;
}
