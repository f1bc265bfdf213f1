// The CUDA device. Without a GPU: the factory and its messages. With one
// (doctest test suite "gpu", ctest label gpu): real runs of every load path.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "engine/bundle/bundle.hpp"
#include "engine/codegen/nvrtc_compiler.hpp"
#include "engine/core/diagnostics.hpp"
#include "engine/device/cuda/cuda_device.hpp"
#include "engine/device/cuda/cuda_driver.hpp"
#include "engine/device/cuda/cuda_error.hpp"
#include "engine/device/device_fault.hpp"
#include "engine/run/runner.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;
using dissect::test::run_command;
using dissect::test::TempDir;

namespace {

// Three points through the L2, each a launch of its own (the stop and storing tests).
constexpr const char* kThreeL2Points =
    "dissect: 1\nname: t\npath: cg\narray: {size: 4 KiB}\niterations: 16\nsweep:\n  array.size: [4 KiB, 8 KiB, 16 KiB]\n";

struct Collect final : RunSink {
  std::vector<std::pair<Point, PointTrace>> points;
  std::vector<KernelArtifact> kernels;
  void point_done(const Point& p, PointTrace t) override { points.emplace_back(p, std::move(t)); }
  void kernel_built(const KernelArtifact& a) override { kernels.push_back(a); }
};

bool gpu_present(std::string& why) {
  if (!CudaDriver::available(&why)) return false;
  const CudaDriver& d = CudaDriver::get();
  if (const CUresult r = d.cuInit(0); r != CUDA_SUCCESS) {
    why = "cuInit: " + d.error_text(r);
    return false;
  }
  int n = 0;
  if (d.cuDeviceGetCount(&n) != CUDA_SUCCESS || n == 0) {
    why = "no CUDA GPU";
    return false;
  }
  return true;
}

// A GPU test without a GPU is not a pass: it fails unless skipping was asked for.
bool need_gpu() {
  std::string why;
  if (gpu_present(why)) return true;
  MESSAGE("SKIPPED: no GPU (" << why << ")");
  const char* allow = std::getenv("DISSECT_ALLOW_NO_GPU");
  if (allow == nullptr || std::string(allow) != "1")
    FAIL_CHECK("the gpu tests need a GPU; set DISSECT_ALLOW_NO_GPU=1 to skip them knowingly");
  return false;
}

// The gpu suite runs the kernel-fault test in a child process of this binary (suite
// gpu-fault-child), with this variable set; without it, that suite does nothing.
constexpr const char* kFaultChildEnv = "DISSECT_GPU_FAULT_CHILD";

std::string self_path() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

// The dissect binary: beside this test binary (the device machine runs a carried copy,
// .carry/dissect_tests with .carry/dissect), else the build's.
std::string dissect_binary() {
  const auto beside = std::filesystem::path(self_path()).parent_path() / "dissect";
  std::error_code ec;
  if (std::filesystem::is_regular_file(beside, ec)) return beside.string();
  return DISSECT_BINARY;
}

CudaDevice& device() {
  static CudaDevice d(0);
  return d;
}

Collect run_spec_text(const std::string& text) {
  static int n = 0;
  const Spec spec = load_spec_text(text, "gpu-test-" + std::to_string(++n) + ".yaml");
  const std::vector<Point> points = spec.expand();
  RunRequest req;
  req.spec = &spec;
  req.points = points;
  Collect c;
  (void)device().run(req, c);
  return c;
}

double median_latency(const PointTrace& t) {
  std::vector<double> v;
  for (const auto& s : t.samples) v.push_back(s.latency);
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// A kernel that faults: `trap` (CUDA_ERROR_LAUNCH_FAILED, as a rule) or, as an out-of-bounds
// chase would, a load 256 GiB past a 4-byte allocation, beyond any GPU's memory
// (CUDA_ERROR_ILLEGAL_ADDRESS).
const char* const kFaultSource =
    "extern \"C\" __global__ void dissect_test_fault(int how, const unsigned* p, unsigned* out) {\n"
    "  if (how == 0) asm volatile(\"trap;\");\n"
    "  out[0] = *(volatile const unsigned*)(p + (1ull << 36));\n"
    "}\n";

// Runs the CUDA device's points and, while the launch of point `fault_at` is in flight,
// launches a faulting kernel in the same context (through the sink's points_started,
// which the device calls while a launch runs): the device meets the fault in its next
// driver call, as it would meet a fault of its own kernel.
class FaultingDevice final : public Device {
 public:
  FaultingDevice(CudaDevice& d, std::size_t fault_at, int how) : d_(d), fault_at_(fault_at), how_(how) {
    cubin_ = NvrtcCompiler::compile(kFaultSource, "dissect_test_fault.cu", d.arch()).cubin;
  }
  nlohmann::json describe() const override { return d_.describe(); }
  std::string selector() const override { return d_.selector(); }
  std::uint64_t memory_bytes() const override { return d_.memory_bytes(); }
  RunTimings run(const RunRequest& req, RunSink& sink) override {
    Forward f(*this, sink);
    return d_.run(req, f);
  }
  CUresult injected = CUDA_SUCCESS;  // what the faulting kernel's synchronisation returned
  bool fired = false;

 private:
  struct Forward final : RunSink {
    FaultingDevice& owner;
    RunSink& inner;
    Forward(FaultingDevice& o, RunSink& s) : owner(o), inner(s) {}
    void point_done(const Point& p, PointTrace t) override { inner.point_done(p, std::move(t)); }
    void points_done(PointBatch b) override { inner.points_done(std::move(b)); }
    void kernel_built(const KernelArtifact& a) override { inner.kernel_built(a); }
    void progress(std::size_t done, std::size_t total) override { inner.progress(done, total); }
    void points_started(std::span<const Point* const> points, std::span<const PointTrace* const> traces) override {
      for (const Point* p : points)
        if (p->id == owner.fault_at_) owner.fault();
      inner.points_started(points, traces);
    }
  };
  // In the device's context (current on this thread while it runs).
  void fault() {
    const CudaDriver& drv = CudaDriver::get();
    CUmodule m = nullptr;
    CUfunction f = nullptr;
    DISSECT_CU(drv, cuModuleLoadData(&m, cubin_.data()));
    DISSECT_CU(drv, cuModuleGetFunction(&f, m, "dissect_test_fault"));
    int how = how_;
    CUdeviceptr p = 0, out = 0;
    DISSECT_CU(drv, cuMemAlloc(&p, 4));
    DISSECT_CU(drv, cuMemAlloc(&out, 4));
    void* args[] = {&how, &p, &out};
    DISSECT_CU(drv, cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr));
    // The fault has happened before the device's next call; nothing here is freed: the
    // context is poisoned, and the device's recovery destroys everything in it.
    injected = drv.cuCtxSynchronize();
    fired = true;
  }
  CudaDevice& d_;
  std::size_t fault_at_;
  int how_;
  std::string cubin_;
};

}  // namespace

TEST_CASE("the cuda factory takes ordinals and explains a missing GPU") {
  const DeviceFactory f = cuda_device_factory();
  CHECK(f.accepts("0"));
  CHECK(f.accepts("12"));
  CHECK_FALSE(f.accepts("sim:fermi"));
  CHECK_FALSE(f.accepts(""));
  CHECK_FALSE(f.list().empty());
  std::string why;
  if (!gpu_present(why)) {
    try {
      (void)f.open("0", {});
      FAIL("opened a GPU that is not there");
    } catch (const RunError& e) {
      CHECK(std::string(e.what()).find("--device sim:") != std::string::npos);
    }
  }
}

TEST_SUITE("gpu") {
  TEST_CASE("every load path: a fine-grained chase with every access timed") {
    if (!need_gpu()) return;
    for (const char* path : {"ca", "cg", "cs", "cv", "lu", "ldg", "tex", "const", "shared"}) {
      for (const char* elem : {"u32", "u64"}) {
        const std::string path_s = path, elem_s = elem;
        CAPTURE(path_s);
        CAPTURE(elem_s);
        const Collect c = run_spec_text(std::string("dissect: 1\nname: t\npath: ") + path + "\nelement: " + elem +
                                        "\narray: {size: 4 KiB, stride: 64 B}\niterations: 300\nwarmup: 2\n");
        REQUIRE(c.points.size() == 1);
        const PointTrace& t = c.points[0].second;
        REQUIRE(t.samples.size() == 300);
        for (std::size_t i = 0; i < t.samples.size(); ++i) {
          CHECK(t.samples[i].offset_bytes == (i * 64) % 4096);
          CHECK(t.samples[i].latency > 0);
          CHECK(t.samples[i].latency < 100000);
          CHECK(t.samples[i].sm_id >= 0);
        }
        CHECK(t.timer_overhead_cycles > 0);
        CHECK(t.timer_overhead_cycles < median_latency(t));
        CHECK(t.accesses_per_pass == 64);
        CHECK(t.sm_clock_khz > 0);
        REQUIRE(c.kernels.size() == 1);
        CHECK(c.kernels[0].ptx.find("ld.") != std::string::npos);
        MESSAGE(std::string(path) << " " << std::string(elem) << ": median " << median_latency(t) << " cycles, overhead "
                     << t.timer_overhead_cycles);
      }
    }
  }

  TEST_CASE("sequential arrays written on the device follow chase_order's rule") {
    if (!need_gpu()) return;
    // u64, a stride that does not divide N: the chase wraps through every element.
    const Collect c = run_spec_text(
        "dissect: 1\nname: t\npath: cg\nelement: u64\narray: {size: 4096 B, stride: 24 B}\niterations: 1100\n"
        "warmup: 0\n");
    REQUIRE(c.points.size() == 1);
    const auto& s = c.points[0].second.samples;
    REQUIRE(s.size() == 1100);
    for (std::size_t i = 0; i < s.size(); ++i) CHECK(s[i].offset_bytes == (i * 24) % 4096);
  }

  TEST_CASE("one batched fill writes every array of a per-SM launch (unequal sizes, u32 and u64)") {
    if (!need_gpu()) return;
    for (const char* elem : {"u32", "u64"}) {
      const std::string elem_s = elem;
      CAPTURE(elem_s);
      // Sizes that are and are not multiples of the stride; the chase wraps through them.
      const Collect c = run_spec_text(std::string("dissect: 1\nname: t\npath: ca\nelement: ") + elem +
                                      "\narray: {size: 4 KiB, stride: 24 B}\niterations: 700\nwarmup: 0\n"
                                      "sweep:\n  array.size: [4 KiB, 4104 B, 64 KiB, 3000 B, 24 B, 1 MiB]\n");
      REQUIRE(c.points.size() == 6);
      for (const auto& [p, t] : c.points) {
        CAPTURE(p.id);
        CHECK(t.params.at("launch") == "per_sm");
        const std::uint64_t size = p.experiment.array.size_bytes;
        REQUIRE(t.samples.size() == 700);
        for (std::size_t i = 0; i < t.samples.size(); ++i) CHECK(t.samples[i].offset_bytes == (i * 24) % size);
      }
    }
  }

  TEST_CASE("warmup_by block: the timed chase finds the lines the block loaded, as after a chased warm-up") {
    if (!need_gpu()) return;
    // L1 (8 KiB of 32 B slots) and L2 (4 MiB), each warmed by the
    // chase and by a block of 256 threads: the same median (a hit) either way, and far below
    // a cold chase's; with a random pattern too. The chase itself is the same.
    for (const char* path : {"ca", "cg"}) {
      for (const char* pattern : {"sequential", "random"}) {
        const std::string path_s = path, pattern_s = pattern;
        CAPTURE(path_s);
        CAPTURE(pattern_s);
        // One pass at most: a cold chase misses on every access it times.
        const std::string size = path_s == "ca" ? "8 KiB" : "4 MiB", iterations = path_s == "ca" ? "256" : "2048";
        auto spec = [&](const std::string& warm) {
          return "dissect: 1\nname: t\npath: " + path_s + "\narray: {size: " + size + ", stride: 32 B, pattern: " +
                 pattern_s + "}\nlayout: {threads: 256}\niterations: " + iterations + "\n" + warm;
        };
        const Collect chased = run_spec_text(spec("warmup: 1\n"));
        const Collect by_block = run_spec_text(spec("warmup: 1\nwarmup_by: block\n"));
        const Collect cold = run_spec_text(spec("warmup: 0\n"));
        REQUIRE(by_block.points.size() == 1);
        const PointTrace& a = chased.points[0].second;
        const PointTrace& b = by_block.points[0].second;
        REQUIRE(a.samples.size() == b.samples.size());
        for (std::size_t i = 0; i < a.samples.size(); ++i) CHECK(a.samples[i].offset_bytes == b.samples[i].offset_bytes);
        CHECK(median_latency(b) <= median_latency(a) * 1.05 + 2);
        CHECK(median_latency(b) < 0.8 * median_latency(cold.points[0].second));
        MESSAGE(path_s << " " << pattern_s << ": median chased " << median_latency(a) << ", by block "
                       << median_latency(b) << ", cold " << median_latency(cold.points[0].second) << " cycles");
      }
    }
  }

  TEST_CASE("layout.array per_block: blocks on SMs of their own, each chasing a copy of its own") {
    if (!need_gpu()) return;
    // Four blocks over copies of a 4 MiB array (random: the host image copied into each;
    // sequential: a device fill of each): every block records the same offsets from the same start, on an SM of its own,
    // and the chase checks its final index against the samples (the copies hold the cycle).
    for (const char* pattern : {"random", "sequential"}) {
      const std::string pattern_s = pattern;
      CAPTURE(pattern_s);
      const Collect c = run_spec_text("dissect: 1\nname: t\npath: cg\ntarget: l2\narray: {size: 4 MiB, stride: 4 KiB, "
                                      "pattern: " + pattern_s + "}\nlayout: {blocks: 4, array: per_block}\niterations: 512\n");
      REQUIRE(c.points.size() == 1);
      const PointTrace& t = c.points[0].second;
      REQUIRE(t.samples.size() == 4 * 512);
      std::map<std::uint32_t, std::vector<std::uint64_t>> offsets;
      std::set<std::int32_t> sms;
      for (const auto& s : t.samples) offsets[s.thread].push_back(s.offset_bytes), sms.insert(s.sm_id);
      REQUIRE(offsets.size() == 4);
      CHECK(sms.size() == 4);
      for (const auto& [thread, o] : offsets) CHECK(o == offsets.begin()->second);
      CHECK(t.device_note("block_arrays") == "per_block");
    }
    // Copies one after another (auto: 264 KiB apart) and 512 KiB apart: each holds the
    // cycle (the chase checks its final index), and the trace says where they lay.
    for (const char* copy_stride : {"auto", "512 KiB"}) {
      const std::string stride_s = copy_stride;
      CAPTURE(stride_s);
      const Collect c = run_spec_text("dissect: 1\nname: t\npath: cg\ntarget: l2\narray: {size: 264 KiB, stride: 128 B, "
                                      "pattern: random}\nlayout: {blocks: 4, array: per_block, copy_stride: " +
                                      stride_s + "}\niterations: 2112\n");
      REQUIRE(c.points.size() == 1);
      const PointTrace& t = c.points[0].second;
      REQUIRE(t.samples.size() == 4 * 2112);
      CHECK(t.device_note("copy_stride_bytes") == (stride_s == "auto" ? "270336" : "524288"));
    }
  }

  TEST_CASE("chain mode: one sample per repeat, averaged over the chain") {
    if (!need_gpu()) return;
    const Collect c = run_spec_text(
        "dissect: 1\nname: t\npath: cg\ntiming: {mode: chain, clock: clock64}\narray: {size: 1 MiB, stride: 128 B}\n"
        "iterations: 8192\nrepeats: 3\n");
    REQUIRE(c.points.size() == 1);
    REQUIRE(c.points[0].second.samples.size() == 3);
    for (const auto& s : c.points[0].second.samples) CHECK(s.latency > 20);
  }

  TEST_CASE("per-SM packing: one launch, one SM per point") {
    if (!need_gpu()) return;
    const Collect c = run_spec_text(
        "dissect: 1\nname: t\npath: ca\narray: {size: 4 KiB, stride: 128 B}\niterations: 64\n"
        "sweep:\n  array.size: {from: 4 KiB, to: 160 KiB, step: 4 KiB}\n");
    REQUIRE(c.points.size() == 40);
    std::set<std::int32_t> sms;
    for (const auto& [p, t] : c.points) sms.insert(t.sm_id);
    CHECK(sms.size() == std::min<std::size_t>(40, device().sm_count()));
    // The kernel's artifacts are written while it runs, and still reach the sink.
    REQUIRE(c.kernels.size() == 1);
    CHECK(c.kernels[0].source.find("dissect") != std::string::npos);
    CHECK_FALSE(c.kernels[0].ptx.empty());
  }

  TEST_CASE("phases: warm and measure on two paths, samples of the measure phase only") {
    if (!need_gpu()) return;
    const Collect c = run_spec_text(
        "dissect: 1\nname: t\nkernel: phases\ntarget: l1\nlayout: {threads: 64, chasers: all}\narrays:\n"
        "  a: {path: ca, size: 8 KiB, stride: 128 B}\n  b: {path: tex, size: 8 KiB, stride: 32 B}\nphases:\n"
        "  - {thread: 0, array: a, action: warm}\n  - {thread: 33, array: b, action: warm}\n"
        "  - {thread: 0, array: a, action: measure, passes: 2}\n");
    REQUIRE(c.points.size() == 1);
    const PointTrace& t = c.points[0].second;
    CHECK(t.samples.size() == 128);
    for (const auto& s : t.samples) {
      CHECK(s.thread == 0);
      CHECK(s.phase == 0);
    }
  }

  TEST_CASE("shared_stride: one sample per lane; stride 32 words is a 32-way conflict") {
    if (!need_gpu()) return;
    const Collect c = run_spec_text(
        "dissect: 1\nname: t\nkernel: shared_stride\nelement: u32\narray: {size: 8 KiB, stride: 4 B}\n"
        "layout: {threads: 32, chasers: all}\niterations: 64\nsweep:\n  array.stride: [4 B, 128 B]\n");
    REQUIRE(c.points.size() == 2);
    REQUIRE(c.points[0].second.samples.size() == 32);
    CHECK(c.points[0].second.samples[3].offset_bytes == 12);
    const double no_conflict = median_latency(c.points[0].second), conflict = median_latency(c.points[1].second);
    MESSAGE("shared_stride: stride 1 word " << no_conflict << " cycles, stride 32 words " << conflict);
    CHECK(conflict > no_conflict + 31);  // 31 extra conflicting accesses, at least a cycle each
  }

  TEST_CASE("coalescing and throughput: samples per request and per warp") {
    if (!need_gpu()) return;
    const Collect co = run_spec_text(
        "dissect: 1\nname: t\nkernel: coalescing\npath: cg\narray: {size: 64 KiB, stride: 128 B}\n"
        "layout: {threads: 32, chasers: all}\niterations: 50\n");
    REQUIRE(co.points.size() == 1);
    CHECK(co.points[0].second.samples.size() == 50);
    CHECK(median_latency(co.points[0].second) > 100);
    const Collect tp = run_spec_text(
        "dissect: 1\nname: t\nkernel: throughput\npath: cg\ntarget: dram\narray: {size: 256 MiB, stride: 4 B}\n"
        "layout: {blocks: 264, threads: 256, chasers: all}\nilp: 4\niterations: 32\n");
    REQUIRE(tp.points.size() == 1);
    const PointTrace& t = tp.points[0].second;
    REQUIRE(t.samples.size() == 264 * 8);
    double bytes = 0, cycles = 0;
    for (const auto& s : t.samples) {
      bytes += static_cast<double>(s.offset_bytes);
      cycles = std::max(cycles, s.latency);
    }
    CHECK(t.samples[0].offset_bytes == 32 * 32 * 4 * 4);
    MESSAGE("throughput: " << bytes / (t.kernel_ms * 1e6) << " GB/s over the kernel");
  }

  // Stores (throughput, access: store): every path with a store runs, each warp times its
  // stores to their completion (the fence), and the figures sit where the hardware lets
  // them: an L2-resident array takes stores faster than a DRAM-sized one, the DRAM rate
  // stays below the driver's peak, and per-SM clocks do not overstate the kernel time's
  // rate (stores counted when issued would).
  TEST_CASE("throughput stores: every store path; rates bounded by the kernel time and the DRAM peak") {
    if (!need_gpu()) return;
    const std::uint64_t sms = device().sm_count();
    for (const char* path : {"ca", "cg", "cs", "cv", "shared"})
      for (const char* elem : {"u32", "u64"}) {
        const std::string path_s = path, elem_s = elem;
        CAPTURE(path_s);
        CAPTURE(elem_s);
        const Collect c = run_spec_text(std::string("dissect: 1\nname: t\nkernel: throughput\naccess: store\npath: ") +
                                        path + "\nelement: " + elem +
                                        "\narray: {size: 32 KiB}\nlayout: {blocks: 4, threads: 256, chasers: all}\n"
                                        "ilp: 4\niterations: 64\n");
        REQUIRE(c.points.size() == 1);
        const PointTrace& t = c.points[0].second;
        REQUIRE(t.samples.size() == 4 * 8);
        CHECK(t.samples[0].offset_bytes == 32ull * 64 * 4 * (elem_s == "u64" ? 8 : 4));
        for (const auto& s : t.samples) CHECK(s.latency >= 64 * 4);  // a warp issues its 256 stores one a cycle at most
      }
    // Rates of one point: bytes over the kernel time, and the per-SM clocks' sum.
    struct Rates {
      double kernel_gbps = 0, clocks_gbps = 0;
    };
    auto rates = [&](const std::string& body) {
      const Collect c = run_spec_text("dissect: 1\nname: t\nkernel: throughput\naccess: store\nelement: u64\n" + body);
      REQUIRE(c.points.size() == 1);
      const PointTrace& t = c.points[0].second;
      std::map<std::int32_t, std::pair<double, double>> per_sm;  // bytes, slowest warp
      double bytes = 0;
      for (const auto& s : t.samples) {
        bytes += static_cast<double>(s.offset_bytes);
        auto& [b, cyc] = per_sm[s.sm_id];
        b += static_cast<double>(s.offset_bytes);
        cyc = std::max(cyc, s.latency);
      }
      Rates r;
      r.kernel_gbps = bytes / (t.kernel_ms * 1e6);
      for (const auto& [sm, bc] : per_sm) r.clocks_gbps += bc.first / bc.second * t.sm_clock_khz / 1e6;
      return r;
    };
    const std::string one_per_sm = "layout: {blocks: " + std::to_string(sms) + ", threads: 1024, chasers: all}\n";
    const std::string two_per_sm = "layout: {blocks: " + std::to_string(2 * sms) + ", threads: 1024, chasers: all}\n";
    // About 2 GB (132 SMs): the launch is a small share of the kernel time.
    const Rates l2 = rates("path: cg\ntarget: l2\narray: {size: 8 MiB}\nilp: 8\niterations: 256\n" + one_per_sm);
    const Rates l2_two = rates("path: cg\ntarget: l2\narray: {size: 8 MiB}\nilp: 8\niterations: 256\n" + two_per_sm);
    const Rates dram = rates("path: ca\ntarget: dram\narray: {size: 1 GiB}\nilp: 8\niterations: 256\n" + two_per_sm);
    MESSAGE("stores: L2 " << l2.clocks_gbps << " GB/s (per-SM clocks), " << l2.kernel_gbps << " GB/s (kernel time); "
                          << "two blocks per SM " << l2_two.kernel_gbps << " GB/s; DRAM " << dram.kernel_gbps
                          << " GB/s (kernel time)");
    // The SMs' windows do not coincide (launch skew, a tail), so the sum of the per-SM
    // rates reads above bytes over the kernel time; a clock that missed the stores'
    // drain would read about twice as high.
    CHECK(l2.clocks_gbps <= 1.25 * l2.kernel_gbps);
    CHECK(l2_two.kernel_gbps > dram.kernel_gbps);
    const nlohmann::json d = device().describe();
    const double peak = 2.0 * d["memory_clock_khz"].get<double>() * 1e3 * d["memory_bus_width_bits"].get<double>() / 8 / 1e9;
    MESSAGE("driver DRAM peak " << peak << " GB/s");
    if (peak > 0) CHECK(dram.kernel_gbps < peak);
  }

  TEST_CASE("a failure names the spec, the sweep point and the cause; earlier points stay reported") {
    if (!need_gpu()) return;
    // The second point's shared-path array does not fit a block's shared memory.
    const Spec spec = load_spec_text("dissect: 1\nname: t\npath: shared\nparallel: false\narray: {size: 4 KiB}\n"
                                     "iterations: 16\nsweep:\n  array.size: [4 KiB, 250 KiB]\n",
                                     "failing.yaml");
    const std::vector<Point> points = spec.expand();
    RunRequest req;
    req.spec = &spec;
    req.points = points;
    Collect c;
    try {
      (void)device().run(req, c);
      FAIL("no error");
    } catch (const RunError& e) {
      const std::string m = e.what();
      MESSAGE(m);
      CHECK(m.find("failing.yaml") != std::string::npos);
      CHECK(m.find("point #1 (array.size=250 KiB)") != std::string::npos);
      CHECK(m.find("shared memory") != std::string::npos);
    }
    CHECK(c.points.size() == 1);
  }

  TEST_CASE("a kernel fault fails its spec naming spec, point and call; in its own process, either reset outcome") {
    if (!need_gpu()) return;
    // The fault runs in a process of its own (this binary, the suite gpu-fault-child): a reset
    // that fails leaves the GPU unusable in its process, and the other tests need it.
    const auto r = run_command("env " + std::string(kFaultChildEnv) + "=1 '" + self_path() +
                               "' --test-suite=gpu-fault-child");
    MESSAGE(r.output);
    CHECK(r.status == 0);
    const bool recovered = r.output.find("outcome: recovered") != std::string::npos;
    const bool lost = r.output.find("outcome: lost") != std::string::npos;
    CHECK((recovered || lost));
    MESSAGE("in-process reset after a kernel fault: "
            << (lost ? "failed (the driver wants a new process; the CLI re-executes itself)"
                     : "worked (the next spec ran in the fresh context)"));
  }

  TEST_CASE("dissect run: an injected kernel fault fails its spec; the batch goes on in a fresh process") {
    if (!need_gpu()) return;
    TempDir dir;
    const std::string text = "array: {size: 4 KiB, stride: 64 B}\npath: cg\nparallel: false\niterations: 64\n"
                             "sweep:\n  array.size: [4 KiB, 8 KiB, 16 KiB]\n";
    const std::string a = dir.write("a.yaml", "dissect: 1\nname: first\n" + text);
    const std::string b = dir.write("b.yaml", "dissect: 1\nname: second\n" + text);
    const std::string c = dir.write("c.yaml", "dissect: 1\nname: third\n" + text);
    const std::string out = dir.file("runs");
    const auto r = run_command("env DISSECT_TEST_INJECT_FAULT=second:1 '" + dissect_binary() +
                               "' run --device 0 --quiet --no-analyze --out " + out + " " + a + " " + b + " " + c);
    MESSAGE(r.output);
    CHECK(r.status == 1);
    const auto faulted = read_bundle(out + "/second");
    CHECK(faulted.header["status"] == "failed");
    REQUIRE(faulted.traces.points.size() == 1);
    CHECK(faulted.traces.points[0].point_id == 0);
    const std::string error = faulted.header.value("error", std::string());
    CHECK(error.find("spec " + b + ", point #1 (array.size=8 KiB): cu") != std::string::npos);
    REQUIRE(faulted.header.contains("fault"));
    CHECK(faulted.header["fault"]["kind"] == "kernel fault");
    CHECK(faulted.header["fault"]["cuda_error"].get<std::string>().rfind("CUDA_ERROR_", 0) == 0);
    const bool lost = faulted.header["fault"]["recovered"] == false;
    MESSAGE("the context reset " << (lost ? "failed: the batch went on in a fresh process" : "worked: in process"));
    if (lost)
      CHECK(r.output.find(b + " faulted the GPU, which runs nothing more in this process; 1 spec remains: "
                              "continuing in a fresh process") != std::string::npos);
    for (const char* name : {"first", "third"}) {
      CAPTURE(name);
      const auto bundle = read_bundle(out + "/" + name);
      CHECK(bundle.header["status"] == "complete");
      REQUIRE(bundle.traces.points.size() == 3);
      for (const auto& t : bundle.traces.points) CHECK(t.samples.size() == 64);
    }
  }

  TEST_CASE("dissect topology: an injected kernel fault fails its step; the next steps run, the step is not retried") {
    if (!need_gpu()) return;
    TempDir dir;
    const std::string out = dir.file("topo");
    const auto r = run_command("env DISSECT_TEST_INJECT_FAULT=topology_l2_latency:0 '" + dissect_binary() +
                               "' topology --device 0 --quiet --no-report --only l1_latency --only l2_latency "
                               "--only dram_latency --out " + out);
    MESSAGE(r.output);
    CHECK(r.status == 1);
    const auto topo = nlohmann::json::parse(dissect::test::read_file(out + "/topology.json"));
    CHECK(topo["status"] == "complete");
    REQUIRE(topo["experiments"].size() == 3);
    CHECK(topo["experiments"][0]["status"] == "complete");
    CHECK(topo["experiments"][1]["id"] == "l2_latency");
    CHECK(topo["experiments"][1]["status"] == "failed");
    REQUIRE(topo["experiments"][1].contains("fault"));
    CHECK(topo["experiments"][2]["status"] == "complete");
    const bool lost = topo["experiments"][1]["fault"]["recovered"] == false;
    MESSAGE("the context reset " << (lost ? "failed: the topology went on in a fresh process" : "worked"));
    if (lost) {
      CHECK(r.output.find("continuing in a fresh process (dissect topology --resume " + out + ")") != std::string::npos);
      REQUIRE(topo.contains("resumed"));
      CHECK(topo["resumed"].size() == 1);
    }
  }
  TEST_CASE("an ordinary CUDA error (out of memory) fails the run without recreating the context") {
    if (!need_gpu()) return;
    CudaDevice& dev = device();
    const unsigned resets = dev.context_resets();
    // 1 TiB: more than any GPU's memory; visited sparsely, so only the allocation fails (the
    // runner would refuse it before running: check_points_fit_device; the device is asked directly).
    const Spec spec = load_spec_text(
        "dissect: 1\nname: t\npath: cg\nelement: u64\n"
        "array: {size: 1024 GiB, stride: 128 B, page: 2 MiB, pattern: page_strided}\niterations: 64\nwarmup: 0\n",
        "too-big.yaml");
    const std::vector<Point> points = spec.expand();
    RunRequest req;
    req.spec = &spec;
    req.points = points;
    Collect c;
    try {
      (void)dev.run(req, c);
      FAIL("no error");
    } catch (const DeviceFault& e) {
      FAIL("an out-of-memory error was taken for a fault: " << e.what());
    } catch (const CudaError& e) {
      MESSAGE(e.what());
      CHECK(cuda_stickiness(e.result()) == CudaStickiness::none);  // CUDA_ERROR_OUT_OF_MEMORY, as a rule
      CHECK(std::string(e.what()).find("spec too-big.yaml, point #0: cuMemAlloc: CUDA_ERROR_") != std::string::npos);
    }
    CHECK(dev.context_resets() == resets);
    const Collect after = run_spec_text("dissect: 1\nname: t\npath: cg\narray: {size: 4 KiB, stride: 64 B}\n"
                                        "iterations: 64\n");
    REQUIRE(after.points.size() == 1);
    CHECK(after.points[0].second.samples.size() == 64);
  }

  TEST_CASE("a stop request (Ctrl-C) ends the run after the launch in hand") {
    if (!need_gpu()) return;
    const Spec spec = load_spec_text(kThreeL2Points, "stop.yaml");
    const std::vector<Point> points = spec.expand();
    std::atomic<bool> stop{false};
    RunRequest req;
    req.spec = &spec;
    req.points = points;
    req.stop = &stop;
    struct StopAfterOne final : RunSink {
      std::atomic<bool>* flag;
      std::size_t n = 0;
      void point_done(const Point&, PointTrace) override {
        ++n;
        flag->store(true);
      }
      void kernel_built(const KernelArtifact&) override {}
    } sink;
    sink.flag = &stop;
    (void)device().run(req, sink);
    // The first point reaches the sink while the second launch's kernel runs (a group's host
    // end overlaps the next kernel): the stop raised then ends the run after that launch, the
    // one in hand, with its point kept; the third never runs.
    CHECK(sink.n == 2);
  }

  TEST_CASE("a sink that fails to store a group's points fails the run at that point; the next run is clean") {
    if (!need_gpu()) return;
    const Spec spec = load_spec_text(kThreeL2Points, "tail.yaml");
    const std::vector<Point> points = spec.expand();
    RunRequest req;
    req.spec = &spec;
    req.points = points;
    struct FailFirst final : RunSink {
      std::size_t calls = 0, kept = 0;
      void point_done(const Point&, PointTrace) override {
        if (calls++ == 0) throw RunError("the disk is full");
        ++kept;
      }
      void kernel_built(const KernelArtifact&) override {}
    } sink;
    std::string error;
    try {
      (void)device().run(req, sink);
    } catch (const RunError& e) {
      error = e.what();
    }
    // The first point's storing fails while the second launch runs: the error names the
    // first point; the second point, measured by then, is kept; the third never runs.
    CHECK(error.find("point #" + std::to_string(points[0].id)) != std::string::npos);
    CHECK(error.find("the disk is full") != std::string::npos);
    CHECK(sink.kept == 1);
    // Nothing of the failed run is left on the device: the next one stores every point.
    Collect again;
    (void)device().run(req, again);
    CHECK(again.points.size() == points.size());
  }

  TEST_CASE("a huge sparse array is written on the device (scatter) and chased") {
    if (!need_gpu()) return;
    const Collect c = run_spec_text(
        "dissect: 1\nname: t\npath: cg\narray: {size: 2 GiB, stride: 128 B, page: 2 MiB, pattern: page_strided}\n"
        "iterations: 2048\nwarmup: 0\n");
    REQUIRE(c.points.size() == 1);
    const auto& s = c.points[0].second.samples;
    REQUIRE(s.size() == 2048);
    CHECK(s[1].offset_bytes == (2u << 20) + 128);
    CHECK(s[5].offset_bytes == 5 * (2ull << 20) + 5 * 128);
  }

  TEST_CASE("aliased frames: a chase over 512 GiB of virtual addresses on one block, every slot in order") {
    if (!need_gpu()) return;
    // 2048 slots of 256 MiB + 32 B: far past any GPU's memory; in the block they lie
    // 32 B apart, each on a word of its own, so the chase visits every slot in its order.
    const std::uint64_t stride = (256ull << 20) + 32;
    const Collect c = run_spec_text("dissect: 1\nname: t\npath: cg\nelement: u64\narray: {size: " +
                                    std::to_string(2048 * stride) + " B, stride: " + std::to_string(stride) +
                                    " B, frames: aliased}\niterations: 4096\nwarmup: 1\n");
    REQUIRE(c.points.size() == 1);
    const PointTrace& t = c.points[0].second;
    REQUIRE(t.samples.size() == 4096);
    for (std::size_t i = 0; i < t.samples.size(); ++i) CHECK(t.samples[i].offset_bytes == (i % 2048) * stride);
    CHECK(t.params.at("frames") == "aliased");
    MESSAGE("aliased 512 GiB chase: median " << median_latency(t) << " cycles");
  }

  TEST_CASE("aliased frames: a stride that lands two slots on one word is refused, naming the block") {
    if (!need_gpu()) return;
    // 4 GiB apart: every slot is the block's first word.
    try {
      (void)run_spec_text("dissect: 1\nname: t\npath: cg\nelement: u64\narray: {size: 16 GiB, stride: 4 GiB, "
                          "frames: aliased}\niterations: 8\nwarmup: 0\n");
      FAIL("an aliased chase whose slots share a word ran");
    } catch (const std::exception& e) {
      CHECK(std::string(e.what()).find("one physical word") != std::string::npos);
    }
  }
}

TEST_SUITE("gpu-fault-child") {
  TEST_CASE("in its own process: a kernel fault fails its spec; the device recovers, or says the process is lost") {
    // Run by the gpu suite's test of the same name, in a process of its own; nothing otherwise.
    if (std::getenv(kFaultChildEnv) == nullptr) return;
    if (!need_gpu()) return;
    CudaDevice& dev = device();
    const Spec bad = load_spec_text("dissect: 1\nname: faults\npath: cg\nparallel: false\n"
                                    "array: {size: 4 KiB, stride: 64 B}\niterations: 64\n"
                                    "sweep:\n  array.size: [4 KiB, 8 KiB, 16 KiB]\n",
                                    "faulting-spec.yaml");
    const Spec good = load_spec_text("dissect: 1\nname: fine\npath: cg\narray: {size: 4 KiB, stride: 64 B}\n"
                                     "iterations: 64\nsweep:\n  array.size: [4 KiB, 8 KiB, 16 KiB]\n",
                                     "good-spec.yaml");
    TempDir out;
    RunOptions o;
    o.out_parent = out.path();
    o.analyze = false;
    std::atomic<bool> stop{false};
    for (const int how : {0, 1}) {  // a trap, an out-of-bounds load
      CAPTURE(how);
      const unsigned resets = dev.context_resets();
      FaultingDevice faulting(dev, 1, how);
      const RunOutcome r = run_spec(bad, faulting, o, stop);
      REQUIRE(faulting.fired);
      MESSAGE("injected fault: " << CudaDriver::get().error_text(faulting.injected));
      CHECK(cuda_stickiness(faulting.injected) != CudaStickiness::none);
      MESSAGE(r.error);
      CHECK(r.status == "failed");
      // The spec, the point with its parameters, and the CUDA call that met the fault.
      CHECK(r.error.find("spec faulting-spec.yaml, point #1 (array.size=8 KiB): cu") != std::string::npos);
      REQUIRE(r.fault.is_object());
      const std::string call = r.fault.value("cuda_call", std::string());
      CHECK(call.rfind("cu", 0) == 0);
      CHECK(r.error.find(call + ": CUDA_ERROR_") != std::string::npos);
      CHECK(r.fault["cuda_error"].get<std::string>().rfind("CUDA_ERROR_", 0) == 0);
      CHECK(r.fault["kind"] == "kernel fault");
      CHECK(dev.context_resets() == resets + 1);
      // The bundle keeps the completed point and says why the run ended.
      CHECK(r.points_done == 1);
      const Bundle b = read_bundle(r.bundle_dir);
      CHECK(b.header["status"] == "failed");
      CHECK(b.header["error"] == r.error);
      CHECK(b.header["fault"] == r.fault);
      REQUIRE(b.traces.points.size() == 1);
      CHECK(b.traces.points[0].point_id == 0);
      CHECK(b.traces.points[0].samples.size() == 64);
      if (r.fault["recovered"] == false) {
        // The driver would not make a fresh context (CUDA 13 / 580 on an H100): the next spec
        // fails at once, saying that a new process is needed (the CLI starts one).
        std::cout << "outcome: lost (" << r.fault.value("recovery", std::string()) << ")" << std::endl;
        CHECK(r.error.find("it could not be recreated") != std::string::npos);
        const RunOutcome next = run_spec(good, dev, o, stop);
        CHECK(next.status == "failed");
        CHECK(next.points_done == 0);
        CHECK(next.error.find("cannot run anything in this process since an earlier fault") != std::string::npos);
        CHECK(next.error.find("run the remaining specs in a new process") != std::string::npos);
        break;
      }
      std::cout << "outcome: recovered" << std::endl;
      CHECK(r.error.find("it was recreated") != std::string::npos);
      // The next spec of the batch runs on the same device object, in its fresh context.
      const RunOutcome next = run_spec(good, dev, o, stop);
      CHECK(next.status == "complete");
      CHECK(next.error.empty());
      CHECK(next.points_done == 3);
      const Bundle nb = read_bundle(next.bundle_dir);
      REQUIRE(nb.traces.points.size() == 3);
      for (const auto& t : nb.traces.points) {
        REQUIRE(t.samples.size() == 64);
        CHECK(t.samples[0].latency > 0);
        CHECK(t.samples[0].latency < 100000);
      }
      CHECK(dev.context_resets() == resets + 1);
    }
  }
}
