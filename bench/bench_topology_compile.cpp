// The NVRTC side of a cold `dissect topology` (an empty compile cache), without a GPU: the
// distinct kernels of the topology's specs, compiled one after another and then side by side
// on the worker pool (as Device::compile_ahead does), each time into a fresh, empty cache.
// One run prints both, so that the gain is read as a ratio on the same machine.
//
//   bench_topology_compile [--arch N] [--specs DIR]
//     N    the sm_N to compile for (default 90, the H100)
//     DIR  the topology specs (default: the spec library's topology/)
//
// DISSECT_WORKERS sets the pool's threads (default: one per core but one).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "engine/codegen/codegen.hpp"
#include "engine/codegen/compile_cache.hpp"
#include "engine/codegen/template_loader.hpp"
#include "engine/core/paths.hpp"
#include "engine/core/worker_pool.hpp"
#include "engine/device/kernel_family.hpp"
#include "engine/spec/spec.hpp"

using namespace dissect;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::vector<KernelParams> topology_kernels(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& f : fs::directory_iterator(dir))
    if (f.path().extension() == ".yaml") files.push_back(f.path().string());
  std::sort(files.begin(), files.end());
  std::vector<KernelParams> out;
  std::set<std::string> seen;
  for (const auto& f : files) {
    const Spec spec = load_spec(f, LoadOptions{});
    std::vector<const Experiment*> es{&spec.base};
    for (const auto& p : spec.expanded) es.push_back(&p.experiment);
    for (const Experiment* e : es) {
      KernelParams k = kernel_params(*e);
      if (seen.insert(k.canonical()).second) out.push_back(std::move(k));
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int arch = 90;
  std::string dir = (fs::path(specs_dir()) / "topology").string();
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--arch") && i + 1 < argc) arch = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--specs") && i + 1 < argc) dir = argv[++i];
  }
  const std::vector<KernelParams> kernels = topology_kernels(dir);
  const TemplateLoader templates;
  const fs::path scratch = fs::temp_directory_path() / ("bench_topology_compile-" + std::to_string(::getpid()));

  // One after another, into an empty cache.
  const CompileCache serial_cache((scratch / "serial").string());
  auto t0 = Clock::now();
  double nvrtc_s = 0;
  for (const auto& k : kernels) nvrtc_s += compile_cached(instantiate(k, templates), arch, serial_cache, true, false).compile_ms / 1000;
  const double serial_s = seconds_since(t0);

  // Side by side on the pool, into another empty cache.
  const CompileCache pool_cache((scratch / "pool").string());
  t0 = Clock::now();
  std::vector<std::shared_ptr<workers::Job<double>>> jobs;
  for (const auto& k : kernels)
    jobs.push_back(workers::start<double>([&templates, &pool_cache, arch, k] {
      return compile_cached(instantiate(k, templates), arch, pool_cache, true, false).compile_ms;
    }));
  for (auto& j : jobs) (void)j->get();
  const double pool_s = seconds_since(t0);
  std::error_code ec;
  fs::remove_all(scratch, ec);

  std::printf("topology kernels (sm_%d): %zu distinct\n", arch, kernels.size());
  std::printf("%-34s %8s\n", "", "wall s");
  std::printf("%-34s %8.2f   (NVRTC %.2f s)\n", "one after another", serial_s, nvrtc_s);
  std::printf("%-34s %8.2f   (%zu workers)\n", "side by side (compile_ahead)", pool_s, workers::size());
  std::printf("%-34s %8.2f\n", "ratio", pool_s > 0 ? serial_s / pool_s : 0.0);
  return 0;
}
