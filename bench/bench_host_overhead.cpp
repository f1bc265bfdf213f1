// Host-side cost of one `dissect run` of a 128-point per-SM sweep: the work that
// does not depend on the device and that a short sweep pays on top of its kernels
// (the H100 target: at most 20 % of a warm-cache per-SM sweep's wall time outside
// kernels). One run prints every part side by side, so that changes can be compared
// as ratios on the same machine (no absolute thresholds: machines differ).
//
//   bench_host_overhead [--points N] [--samples S] [--reps R] [--dir DIR] [--only TEXT]
//     N    sweep points (default 128: one per-SM launch on an H100)
//     S    samples per point of the fine-grained store scenarios (default 4096)
//     R    repetitions of each scenario; the median and the minimum are printed (default 15)
//     DIR  where the bundles are written (default: the system temp directory); removed after
//     TEXT runs only the scenarios whose name contains TEXT (to profile one, e.g. under perf)
//
// Scenarios:
//   load spec            load_spec of the sweep (includes resolved, every point decoded once to validate it)
//   expand (range)       Spec::expand of the sweep written as {from, to, step}
//   expand (list)        Spec::expand of the same sweep written as a list of N values
//   store S samples      a BundleWriter: open, append_points of one batch (N points of S samples), finish
//   store 1 sample       the same with one sample per point (chain timing, as the H100 benchmark)
//   store 1 sample, prepared   the same with the rows prepared before the timed append (prepare_points),
//                        as the CUDA device has them prepared while its kernel runs
//   kernel keys          kernel_params(e).canonical() of each point, and the kernel_identity(e) the CUDA
//                        device groups points into launches by
//   format rows, prepared   the points.csv rows of one-sample points from prepared parts (no writes)
//   run_spec, S / 1      a whole run_spec with a device that hands over ready-made traces in one batch:
//                        what a run costs on the host apart from the device (making the traces is
//                        timed inside the device and left out)
//   instantiate / cache hit   what the CUDA device does on the host before cuModuleLoadData, for the
//                        sweep's kernel and for the helper module (scatter.cuh): reading the template
//                        (instantiate) and a warm compile-cache lookup (hash of the source + reading the
//                        entry), with and without the PTX and log that only the bundle needs
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

#include "engine/bundle/bundle.hpp"
#include "engine/bundle/bundle_rows.hpp"
#include "engine/codegen/codegen.hpp"
#include "engine/codegen/compile_cache.hpp"
#include "engine/codegen/content_hash.hpp"
#include "engine/codegen/kernel_params.hpp"
#include "engine/device/kernel_family.hpp"
#include "engine/run/runner.hpp"
#include "engine/spec/spec.hpp"

using namespace dissect;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

struct Stats {
  double median = 0, min = 0;
};

Stats stats_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front()};
}

// The merged form of bench/gpu/sweep128_size.yaml: a base file included, a chain of
// dependent loads per point, one point per SM.
const char* const kBase =
    "dissect: 1\nabstract: true\nkernel: pchase\nelement: u32\ntiming: {mode: chain, clock: clock64}\n"
    "layout: {blocks: 1, threads: 1, chasers: 1}\nwarmup: 1\niterations: 4096\nrepeats: 5\n";

std::string sweep_spec(std::size_t points, bool as_list) {
  std::string s =
      "dissect: 1\nname: bench_host_overhead\ndescription: 128-point L1 size sweep, chain mode\n"
      "include: base.yaml\npath: ca\ncarveout: max_l1\narray: {size: 2 KiB, stride: 128 B}\nwarmup: 2\n"
      "iterations: 262144\nrepeats: 1\nsweep:\n";
  if (!as_list) return s + "  array.size: {from: 2 KiB, to: " + std::to_string(2 * points) + " KiB, step: 2 KiB}\n";
  s += "  array.size: [";
  for (std::size_t i = 1; i <= points; ++i) s += (i > 1 ? ", " : "") + std::to_string(2 * i) + " KiB";
  return s + "]\n";
}

// What a device hands over for a point: `samples` samples (integer cycle counts, as
// the per-access kernels measure them; a chain's averages when there is one) and
// the launch notes the CUDA device adds.
PointTrace make_trace(const Point& p, std::size_t samples, std::size_t launch_points) {
  PointTrace t;
  t.point_id = p.id;
  t.kernel_ms = 14.5;
  t.sm_clock_khz = 1980000;
  t.sm_id = static_cast<std::int32_t>(p.id);
  t.accesses_per_pass = p.experiment.accesses_per_pass();
  t.discard_passes = p.experiment.discard;
  t.timer_overhead_cycles = samples == 1 ? 0.00011444091796875 : 30;
  const std::uint64_t size = std::max<std::uint64_t>(p.experiment.array.size_bytes, 1);
  t.samples.reserve(samples);
  for (std::size_t i = 0; i < samples; ++i) {
    Sample s;
    s.seq = i;
    s.offset_bytes = (i * 128) % size;
    s.latency = samples == 1 ? 33.0 + static_cast<double>(p.id % 7) / 262144.0
                             : static_cast<double>(i % 61 == 0 ? 290 + i % 40 : 32 + i % 5);
    s.sm_id = t.sm_id;
    t.samples.push_back(s);
  }
  // As the CUDA device notes them (its shared-memory note has commas: the field is quoted).
  t.params = {{"launch", "per_sm"},
              {"launch_points", std::to_string(launch_points)},
              {"dynamic_shared_bytes", "7168"},
              {"shared_config_bytes", "8192"},
              {"occupancy_blocks_per_sm", "1"},
              {"sample_chunk", "1"},
              {"timer_overhead_raw_cycles", "30"},
              {"smem_note", "carveout 0% -> expected shared configuration 8 KiB (L1 gets the rest), 7168 B dynamic "
                            "shared memory per block (fills it: one block per SM)"}};
  return t;
}

// A device whose "kernels" take no time: run() makes the traces (timed, so the
// caller can leave it out) and hands them over in one batch, as a per-SM launch does.
class ReplayDevice final : public Device {
 public:
  explicit ReplayDevice(std::size_t samples) : samples_(samples) {}
  double make_ms = 0;
  [[nodiscard]] nlohmann::json describe() const override {
    return {{"kind", "replay"}, {"name", "bench replay device"}, {"sm_clock_khz", 1980000}};
  }
  [[nodiscard]] std::string selector() const override { return "replay"; }
  RunTimings run(const RunRequest& req, RunSink& sink) override {
    const auto t0 = Clock::now();
    RunSink::PointBatch batch;
    batch.reserve(req.points.size());
    for (const Point& p : req.points) batch.emplace_back(&p, make_trace(p, samples_, req.points.size()));
    make_ms = ms_between(t0, Clock::now());
    sink.points_done(std::move(batch));
    RunTimings t;
    t.launches = 1;
    return t;
  }

 private:
  std::size_t samples_;
};

struct Row {
  std::string name;
  Stats ms;
  std::string note;
};

}  // namespace

int main(int argc, char** argv) {
  std::size_t points = 128, samples = 4096, reps = 15;
  std::string parent = fs::temp_directory_path().string();
  std::string only;  // runs only the scenarios whose name contains it (for profiling one)
  for (int i = 1; i < argc; ++i) {
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (std::strcmp(argv[i], "--points") == 0 && (v = next())) points = std::strtoull(v, nullptr, 10);
    else if (std::strcmp(argv[i], "--samples") == 0 && (v = next())) samples = std::strtoull(v, nullptr, 10);
    else if (std::strcmp(argv[i], "--reps") == 0 && (v = next())) reps = std::strtoull(v, nullptr, 10);
    else if (std::strcmp(argv[i], "--dir") == 0 && (v = next())) parent = v;
    else if (std::strcmp(argv[i], "--only") == 0 && (v = next())) only = v;
    else {
      std::fprintf(stderr, "usage: %s [--points N] [--samples S] [--reps R] [--dir DIR] [--only TEXT]\n", argv[0]);
      return 2;
    }
  }
  if (points == 0 || samples == 0 || reps == 0) {
    std::fprintf(stderr, "%s: --points, --samples and --reps must be above zero\n", argv[0]);
    return 2;
  }
  const fs::path dir = fs::path(parent) / ("dissect-bench-host-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "base.yaml") << kBase;
  std::ofstream(dir / "range.yaml") << sweep_spec(points, false);
  std::ofstream(dir / "list.yaml") << sweep_spec(points, true);

  std::vector<Row> rows;
  auto bench = [&](const std::string& name, const std::function<double()>& once, const std::string& note = "") {
    if (name.find(only) == std::string::npos) return false;
    std::vector<double> t;
    for (std::size_t r = 0; r < reps; ++r) t.push_back(once());
    rows.push_back({name, stats_of(t), note});
    return true;
  };
  auto timed = [](const std::function<void()>& f) {
    const auto t0 = Clock::now();
    f();
    return ms_between(t0, Clock::now());
  };

  LoadOptions lo;
  lo.max_points = 1u << 20;
  const Spec range = load_spec((dir / "range.yaml").string(), lo);
  const Spec list = load_spec((dir / "list.yaml").string(), lo);
  if (range.point_count() != points || list.point_count() != points) {
    std::fprintf(stderr, "%s: the sweep has %llu points, expected %zu\n", argv[0],
                 static_cast<unsigned long long>(range.point_count()), points);
    return 1;
  }
  bench("load spec (range)", [&] { return timed([&] { (void)load_spec((dir / "range.yaml").string(), lo); }); });
  bench("expand (range)", [&] { return timed([&] { (void)range.expand(); }); });
  bench("expand (list)", [&] { return timed([&] { (void)list.expand(); }); });

  const std::vector<Point> pts = range.expand();
  std::size_t serial = 0;
  const nlohmann::json header = {{"spec", {{"path", "range.yaml"}}}, {"device", {{"kind", "bench"}}}};
  auto store = [&](std::size_t per_point, bool prepared, double& open_ms, double& append_ms, double& finish_ms) {
    RunSink::PointBatch batch;
    for (const Point& p : pts) batch.emplace_back(&p, make_trace(p, per_point, pts.size()));
    const auto t0 = Clock::now();
    BundleWriter w((dir / ("b" + std::to_string(serial++))).string(), header);
    if (prepared) {  // as the CUDA device has the rows prepared while its kernel runs
      std::vector<const Point*> ptrs;
      std::vector<const PointTrace*> traces;
      for (const auto& [p, t] : batch) ptrs.push_back(p), traces.push_back(&t);
      w.prepare_points(ptrs, traces);
    }
    const auto t1 = Clock::now();
    w.append_points(std::move(batch));
    const auto t2 = Clock::now();
    w.finish("complete");
    const auto t3 = Clock::now();
    open_ms = ms_between(t0, t1), append_ms = ms_between(t1, t2), finish_ms = ms_between(t2, t3);
    return ms_between(t0, t3);
  };
  std::vector<double> append_ms;  // the batch's append alone (open and finish, with its fsyncs, left out)
  for (const auto& [per_point, prepared] : {std::pair{samples, false}, std::pair{std::size_t{1}, false},
                                             std::pair{std::size_t{1}, true}}) {
    std::vector<double> open, append, finish;
    const std::string tag = "store " + std::to_string(per_point) + (per_point == 1 ? " sample" : " samples") +
                            (prepared ? ", prepared" : "");
    const bool ran = bench(tag, [&] {
      double o = 0, a = 0, f = 0;
      const double all = store(per_point, prepared, o, a, f);
      open.push_back(o), append.push_back(a), finish.push_back(f);
      return all;
    });
    if (!ran) continue;
    char note[160];
    std::snprintf(note, sizeof note, "%s %.3f + append %.3f + finish %.3f (medians)",
                  prepared ? "open, prepare" : "open", stats_of(open).median, stats_of(append).median,
                  stats_of(finish).median);
    rows.back().note = note;
    append_ms.push_back(stats_of(append).median);
  }
  bench("kernel keys (params)", [&] {
    return timed([&] {
      std::size_t n = 0;
      for (const Point& p : pts) n += kernel_params(p.experiment).canonical().size();
      if (n == 0) std::abort();
    });
  }, "kernel_params(e).canonical() per point");
  bench("kernel keys (identity)", [&] {
    return timed([&] {
      std::size_t n = 0;
      for (const Point& p : pts) n += kernel_identity(p.experiment).size();
      if (n == 0) std::abort();
    });
  }, "kernel_identity(e) per point: how the CUDA device groups points into launches");
  {  // The rows alone, from prepared parts: what storing a per-SM launch's points costs
     // on the host after its kernel apart from the writes.
    std::vector<PreparedRow> parts;
    std::vector<PointTrace> traces;
    for (const Point& p : pts) {
      traces.push_back(make_trace(p, 1, pts.size()));
      parts.push_back(prepare_row(p));
      prepare_notes(parts.back(), traces.back().params);  // as prepare_points does with the device's traces
    }
    const std::vector<std::string> columns = points_columns(parts.front());
    bench("format rows, prepared", [&] {
      return timed([&] {
        std::string out;
        for (std::size_t i = 0; i < pts.size(); ++i) append_point_row(pts[i], traces[i], parts[i], columns, out, nullptr);
      });
    }, "append_point_row of one-sample points");
  }
  for (const std::size_t per_point : {samples, std::size_t{1}}) {
    ReplayDevice dev(per_point);
    RunOptions ro;
    ro.out_parent = (dir / "runs").string();
    ro.analyze = false;
    std::atomic<bool> stop{false};
    bench("run_spec host, " + std::to_string(per_point) + "/pt", [&] {
      const RunOutcome r = run_spec(range, dev, ro, stop);
      return r.wall_ms - dev.make_ms;
    }, "wall_ms less the device making its traces");
  }

  // The CUDA device's host work per kernel before cuModuleLoadData (warm cache: the
  // first lookup compiles with NVRTC and fills a private cache).
  {
    const TemplateLoader loader;
    const CompileCache cache((dir / "kernel-cache").string());
    const auto archs = NvrtcCompiler::supported_archs();
    const int arch = std::find(archs.begin(), archs.end(), 90) != archs.end() ? 90 : archs.back();
    for (const auto& [label, params] : {std::pair{std::string("sweep kernel"), kernel_params(pts.front().experiment)},
                                        std::pair{std::string("helper"), scatter_kernel_params()}}) {
      const GeneratedKernel g = instantiate(params, loader);
      (void)compile_cached(g, arch, cache);  // fills the cache
      bench("instantiate (" + label + ")", [&] { return timed([&] { (void)instantiate(params, loader); }); },
            std::to_string(g.source.size()) + " B of source, " + std::to_string(g.template_files.size()) + " file(s)");
      bench("hash (" + label + ")", [&] { return timed([&] { (void)CompileCache::key(g.source, arch, true); }); });
      bench("cache hit (" + label + ")", [&] { return timed([&] { (void)compile_cached(g, arch, cache); }); },
            "key + cubin, json, ptx, log");
      bench("cache hit, no text (" + label + ")",
            [&] { return timed([&] { (void)compile_cached(g, arch, cache, true, false); }); }, "key + cubin, json");
    }
  }

  std::error_code ec;
  fs::remove_all(dir, ec);

  std::printf("host overhead of a %zu-point sweep (%zu reps; fine-grained points: %zu samples)\n", points, reps,
              samples);
  std::printf("%-26s %10s %10s %12s  %s\n", "scenario", "median ms", "min ms", "us/point", "");
  for (const auto& r : rows)
    std::printf("%-26s %10.3f %10.3f %12.2f  %s\n", r.name.c_str(), r.ms.median, r.ms.min,
                1000 * r.ms.median / static_cast<double>(points), r.note.c_str());
  // Storing proper (the append) next to expanding: finish fsyncs, which measures the disk.
  if (!only.empty()) return 0;
  const double expand = rows[1].ms.median;
  std::printf("ratios to expand (range): append of %zu x %zu samples %.1f, of %zu x 1 sample %.2f\n", points,
              samples, append_ms[0] / expand, points, append_ms[1] / expand);
  return 0;
}
