// The host side of a CUDA launch, per kernel family, without a GPU: the arguments a
// family lists match its template's kernel signature, every block writes its %smid,
// and read-back results decode into the samples experiment.hpp defines.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/codegen/kernel_params.hpp"
#include "engine/core/diagnostics.hpp"
#include "engine/device/chase_order.hpp"
#include "engine/device/cuda/cuda_launch.hpp"
#include "engine/device/kernel_family.hpp"
#include "engine/spec/kernel_kinds.hpp"
#include "engine/spec/spec.hpp"

using namespace dissect;

namespace {

Experiment experiment(const std::string& body) {
  return load_spec_text("dissect: 1\nname: t\n" + body, "t.yaml").base;
}

// Parameters of the template's `extern "C" __global__` entry point, for the kernel's
// defines: a parameter inside `#if NAME` ... `#endif` counts where NAME is defined as 1.
std::size_t signature_arity(const KernelParams& p) {
  std::ifstream in(std::string(DISSECT_SOURCE_DIR) + "/kernels_templates/" + p.template_name + ".cuh");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const std::size_t at = text.find("void " + p.entry + "(");
  REQUIRE(at != std::string::npos);
  const std::size_t open = text.find('(', at);
  std::size_t close = open + 1;
  for (int depth = 1; close < text.size(); ++close) {
    depth += text[close] == '(' ? 1 : text[close] == ')' ? -1 : 0;
    if (depth == 0) break;
  }
  REQUIRE(close < text.size());
  std::istringstream lines(text.substr(open + 1, close - open - 1));
  std::string line, params;
  bool on = true;
  while (std::getline(lines, line)) {
    if (line.rfind("#if ", 0) == 0) {
      const std::string name = line.substr(4);
      on = std::any_of(p.defines.begin(), p.defines.end(), [&](const auto& d) { return d.first == name && d.second == "1"; });
    } else if (line.rfind("#endif", 0) == 0) {
      on = true;
    } else if (on) {
      params += line;
    }
  }
  return static_cast<std::size_t>(std::count(params.begin(), params.end(), ',')) + 1;
}

struct Laid {
  std::unique_ptr<CudaLaunch> launch;
  ParamTable table;
  OutputLayout outputs;
  std::vector<KernelArg> args;
  std::size_t smid = 0;
};

Laid lay_out(const std::vector<const Experiment*>& points) {
  Laid l;
  CudaLimits limits;
  limits.max_shared_per_block = 227 * 1024;
  l.launch = kernel_family(*points.front()).cuda_launch(points, limits);
  std::vector<dissect_array_ref> refs(l.launch->arrays.size(), dissect_array_ref{});
  for (std::size_t i = 0; i < refs.size(); ++i) refs[i].base = 0x1000000ull * (i + 1);
  l.smid = l.launch->lay_out(refs, l.table, l.outputs, l.args);
  return l;
}

// Results as a launch's kernel would leave them on the device: one host buffer per
// output (every byte `poison` first), written word by word, read back as the launcher does.
struct HostResults {
  std::vector<std::vector<unsigned char>> host;
  std::vector<std::size_t> outs;  // the launch's outputs, in argument order
  HostResults(const Laid& l, unsigned char poison) : host(l.outputs.outputs()) {
    for (std::size_t i = 0; i < host.size(); ++i) host[i].assign(l.outputs.size(i), poison);
    for (const auto& a : l.args)
      if (a.kind == KernelArg::Kind::output) outs.push_back(a.value);
  }
  void put32(std::size_t out, std::size_t i, std::uint32_t v) { std::memcpy(host[out].data() + 4 * i, &v, 4); }
  void put64(std::size_t out, std::size_t i, std::uint64_t v) { std::memcpy(host[out].data() + 8 * i, &v, 8); }
  [[nodiscard]] Readback readback() const {
    std::vector<std::span<const unsigned char>> views;
    for (const auto& h : host) views.emplace_back(h.data(), h.size());
    return Readback(std::move(views));
  }
};

const char* const kBodies[] = {
    "kernel: pchase\npath: ca\narray: {size: 16 KiB, stride: 64 B}\niterations: 64\n",
    "kernel: pchase\npath: cg\ntiming: {mode: chain}\narray: {size: 16 KiB, stride: 64 B}\niterations: 64\n",
    "kernel: pchase\npath: cg\narray: {size: 16 KiB, stride: 64 B}\niterations: 64\nwarmup_by: block\n"
    "layout: {threads: 64}\n",
    "kernel: phases\ntarget: l1\nlayout: {threads: 2, chasers: all}\narrays:\n  a: {path: ca, size: 8 KiB, stride: "
    "128 B}\n  b: {path: tex, size: 8 KiB, stride: 128 B}\nphases:\n  - {thread: 0, array: a, action: warm}\n  - "
    "{thread: 1, array: b, action: measure}\n",
    "kernel: shared_stride\narray: {size: 4 KiB, stride: 8 B}\nlayout: {threads: 32}\niterations: 16\n",
    "kernel: coalescing\npath: ca\narray: {size: 64 KiB, stride: 4 B}\nlayout: {threads: 32}\niterations: 8\n",
    "kernel: throughput\npath: cg\narray: {size: 1 MiB, stride: 4 B}\nlayout: {blocks: 4, threads: 256}\nilp: "
    "4\niterations: 8\n",
};

}  // namespace

TEST_CASE("every family lists its template's arguments in order, %smid among its results") {
  for (const char* body : kBodies) {
    const Experiment e = experiment(body);
    CAPTURE(body);
    const Laid l = lay_out({&e});
    CHECK(l.args.size() == signature_arity(kernel_params(e)));
    CHECK(l.launch->blocks == e.layout.blocks);
    CHECK(l.outputs.size(l.smid) == 4ull * l.launch->blocks);
    CHECK(std::count_if(l.args.begin(), l.args.end(), [&](const KernelArg& a) {
            return a.kind == KernelArg::Kind::output && a.value == l.smid;
          }) == 1);
    // The zero that keeps the compiler from folding: last, or before the tables of a variant.
    CHECK(std::count_if(l.args.begin(), l.args.end(), [](const KernelArg& a) { return a.kind == KernelArg::Kind::zero; }) ==
          1);
    CHECK((l.args.back().kind == KernelArg::Kind::zero) == (e.warmup_by != WarmupBy::block));
    CHECK(l.table.bytes().size() > 0);
    CHECK(l.launch->arrays.size() == kernel_family(e).arrays(e).size() - (e.kernel == KernelKind::shared_stride));
  }
}

TEST_CASE("a packed launch has one block per point and tells each point's first block") {
  const Experiment a = experiment(kBodies[0]);
  Experiment b = a;
  b.array.size_bytes = 32 * 1024;
  const Laid l = lay_out({&a, &b});
  CHECK(l.launch->blocks == 2);
  CHECK(l.launch->first_block(0) == 0);
  CHECK(l.launch->first_block(1) == 1);
  CHECK(l.launch->arrays.size() == 2);
  CHECK(l.launch->arrays[1].image.size_bytes == 32 * 1024);
}

TEST_CASE("pchase per_access: read-back latencies and indices become one sample per access") {
  const Experiment e = experiment(kBodies[0]);  // 16 KiB, 64 B stride, u32: 256 elements, step 16
  Laid l = lay_out({&e});
  // Results as the kernel writes them: latency 100 + q, the index loaded at access q,
  // the final index, %smid 7, timer overheads 20 (every output poisoned first).
  HostResults res(l, 0xff);
  const auto& outs = res.outs;
  REQUIRE(outs.size() == 6);  // lat, idx, chain, final, smid, overheads
  CHECK(l.outputs.buffer(outs[0]) != OutputLayout::kShared);  // per-sample results: buffers of their own
  CHECK(l.outputs.buffer(outs[4]) == OutputLayout::kShared);
  std::uint64_t j = 0;
  for (std::uint32_t q = 0; q < e.iterations; ++q) {
    j = (j + 16) % 256;
    res.put32(outs[0], q, 100 + q);
    res.put32(outs[1], q, static_cast<std::uint32_t>(j));
  }
  res.put64(outs[3], 0, j);
  res.put32(l.smid, 0, 7);
  for (std::size_t k = 0; k < DISSECT_OVERHEAD_REPS; ++k) res.put32(outs[5], k, 20);
  std::vector<PointTrace> traces(1);
  std::vector<std::vector<double>> overheads(1);
  l.launch->decode(0, res.readback(), traces, overheads);
  REQUIRE(traces[0].samples.size() == e.iterations);
  CHECK(traces[0].samples[0].offset_bytes == 0);
  CHECK(traces[0].samples[1].offset_bytes == 64);
  CHECK(traces[0].samples[5].latency == 105);
  CHECK(traces[0].samples[5].sm_id == 7);
  CHECK(overheads[0].size() == DISSECT_OVERHEAD_REPS);

  // An access the kernel did not write is an error, not a sample.
  res.put32(outs[0], 3, 0xffffffffu);
  std::vector<PointTrace> again(1);
  CHECK_THROWS_AS(l.launch->decode(0, res.readback(), again, overheads), RunError);
}

// Results where every latency slot holds its own position in the buffer (and every index
// 0, every final index 0, block b's %smid 1000 + b): decoded in launch order, the samples
// carry the positions 0, 1, 2, ... whatever tasks decoded them.
void check_decoded_in_order(const std::vector<const Experiment*>& pts, std::uint32_t chasers_per_block) {
  Laid l = lay_out(pts);
  HostResults res(l, 0xff);
  const auto& outs = res.outs;
  REQUIRE(outs.size() == 6);
  const std::size_t slots = l.outputs.size(outs[0]) / 4;
  for (std::size_t i = 0; i < slots; ++i) {
    res.put32(outs[0], i, static_cast<std::uint32_t>(i));
    res.put32(outs[1], i, 0);
  }
  for (std::size_t i = 0; i < l.outputs.size(outs[3]) / 8; ++i) res.put64(outs[3], i, 0);
  for (std::uint32_t b = 0; b < l.launch->blocks; ++b) res.put32(l.smid, b, 1000 + b);
  for (std::size_t k = 0; k < l.outputs.size(outs[5]) / 4; ++k) res.put32(outs[5], k, 20);
  std::vector<PointTrace> traces(pts.size());
  std::vector<std::vector<double>> overheads(pts.size());
  l.launch->decode(0, res.readback(), traces, overheads);
  std::uint64_t next = 0;
  for (std::size_t gi = 0; gi < pts.size(); ++gi) {
    CAPTURE(gi);
    const Experiment& e = *pts[gi];
    const std::uint64_t chasers = std::uint64_t{e.layout.blocks} * chasers_per_block;
    REQUIRE(traces[gi].samples.size() == chasers * e.iterations);
    CHECK(overheads[gi].size() == chasers * DISSECT_OVERHEAD_REPS);
    bool in_order = true, numbered = true, on_its_sm = true;
    for (std::size_t k = 0; k < traces[gi].samples.size(); ++k) {
      const Sample& s = traces[gi].samples[k];
      in_order = in_order && s.latency == static_cast<double>(next++);
      numbered = numbered && s.seq == k % e.iterations && s.thread == k / e.iterations;
      const auto block = static_cast<std::int32_t>(l.launch->first_block(gi) + k / e.iterations / chasers_per_block);
      on_its_sm = on_its_sm && s.sm_id == 1000 + block;
    }
    CHECK(in_order);
    CHECK(numbered);
    CHECK(on_its_sm);
  }
  CHECK(next == slots);
}

TEST_CASE("pchase: a launch of many samples decodes side by side into the order of one by one") {
  // Few samples (decoded where they are), then a per-SM launch of many points (whole points
  // per task), then one point of many blocks (ranges of its blocks per task, appended in order).
  const Experiment small = experiment(kBodies[0]);
  check_decoded_in_order({&small}, 1);
  std::vector<Experiment> many(12, experiment("kernel: pchase\npath: ca\narray: {size: 16 KiB, stride: 64 B}\n"
                                              "iterations: 16384\n"));
  std::vector<const Experiment*> packed;
  for (std::size_t i = 0; i < many.size(); ++i) {
    many[i].array.size_bytes = 16 * 1024 * (i + 1);
    packed.push_back(&many[i]);
  }
  check_decoded_in_order(packed, 1);
  const Experiment copies = experiment(
      "kernel: pchase\npath: cg\narray: {size: 64 KiB, stride: 128 B}\niterations: 8192\n"
      "layout: {blocks: 40, array: per_block}\n");
  check_decoded_in_order({&copies}, 1);
}

TEST_CASE("pchase past 2^32 elements: the chase order completes the recorded 32-bit indices") {
  // 48 slots 1 GiB + 32 B apart in random order: 6.4 billion u64 elements.
  // Three warm-up passes first: the decoder walks the chase past them (the first timed
  // access loads the element the warm-up ended on).
  const Experiment e = experiment(
      "kernel: pchase\npath: cg\nelement: u64\narray: {size: 49152 MiB, stride: 1073741856 B, pattern: random, "
      "offset: 4096 B}\niterations: 96\nwarmup: 3\n");
  REQUIRE(e.array.size_bytes / 8 > (1ull << 32));
  Laid l = lay_out({&e});
  HostResults res(l, 0xff);
  const auto& outs = res.outs;
  REQUIRE(outs.size() == 6);
  // What the kernel records: the low 32 bits of each loaded index.
  const ChaseOrder order(e.array, 8);
  ChaseWalker walk(order, chaser_start_offset(e, 0));
  for (std::uint64_t k = 0; k < std::uint64_t{e.warmup} * order.pass_length(); ++k) walk.next();
  std::vector<std::uint64_t> offsets{walk.next()};
  for (std::uint32_t q = 0; q < e.iterations; ++q) {
    offsets.push_back(walk.next());
    res.put32(outs[0], q, 300);
    res.put32(outs[1], q, static_cast<std::uint32_t>(offsets.back() / 8));
  }
  res.put64(outs[3], 0, offsets.back() / 8);
  res.put32(l.smid, 0, 3);
  for (std::size_t k = 0; k < DISSECT_OVERHEAD_REPS; ++k) res.put32(outs[5], k, 20);
  std::vector<PointTrace> traces(1);
  std::vector<std::vector<double>> overheads(1);
  l.launch->decode(0, res.readback(), traces, overheads);
  REQUIRE(traces[0].samples.size() == e.iterations);
  bool past_4g = false;
  for (std::uint32_t q = 0; q < e.iterations; ++q) {
    CHECK(traces[0].samples[q].offset_bytes == offsets[q]);
    past_4g = past_4g || offsets[q] / 8 > 0xffffffffull;
  }
  CHECK(past_4g);  // some samples lie beyond what 32 bits index
  // A recorded index whose low 32 bits differ from the chase order's: an error.
  res.put32(outs[1], 10, static_cast<std::uint32_t>(offsets[11] / 8) + 1);
  std::vector<PointTrace> again(1);
  CHECK_THROWS_AS(l.launch->decode(0, res.readback(), again, overheads), RunError);
}

TEST_CASE("a point that needs more shared memory than the device allows is refused with the numbers") {
  const Experiment e = experiment("kernel: shared_stride\narray: {size: 64 KiB, stride: 8 B}\nlayout: {threads: 32}\n");
  CudaLimits small;
  small.max_shared_per_block = 48 * 1024;
  std::vector<const Experiment*> pts{&e};
  CHECK_THROWS_WITH_AS(kernel_family(e).cuda_launch(pts, small), doctest::Contains("49152"), RunError);
}

TEST_CASE("the registry has one family per kernel kind, in order") {
  const auto& fams = kernel_families();
  REQUIRE(fams.size() == 5);
  for (std::size_t i = 0; i < fams.size(); ++i) CHECK(static_cast<std::size_t>(fams[i]->kind()) == i);
  CHECK(&kernel_family(KernelKind::phases) == fams[1]);
}

TEST_CASE("every kind of the spec language has a kernel family") {
  for (const auto& k : kernel_kinds()) CHECK(kernel_family(k.kind).kind() == k.kind);
}

// The throughput kernel never uses its array's contents: a load kernel's array is
// written (the fill leaves an L1- or L2-sized array in the L2), a store kernel's and a
// DRAM-read array's are not (a fill would be part of the measurement).
TEST_CASE("throughput: which arrays are written before the kernel") {
  auto unwritten = [](const std::string& body) {
    const Experiment e = experiment("kernel: throughput\nlayout: {blocks: 2, threads: 64}\n" + body);
    const Laid l = lay_out({&e});
    REQUIRE(l.launch->arrays.size() == 1);
    return l.launch->arrays[0].image.unwritten;
  };
  CHECK_FALSE(unwritten("path: cg\ntarget: l2\narray: {size: 1 MiB}\n"));
  CHECK_FALSE(unwritten("path: ca\narray: {size: 1 MiB}\n"));
  CHECK(unwritten("path: cg\ntarget: dram\narray: {size: 1 MiB}\n"));
  CHECK(unwritten("access: store\npath: cg\ntarget: l2\narray: {size: 1 MiB}\n"));
  CHECK(unwritten("access: store\npath: shared\narray: {size: 16 KiB}\n"));
  // A store's samples: one per warp, the bytes it stored.
  const Experiment e = experiment(
      "kernel: throughput\naccess: store\npath: cg\narray: {size: 1 MiB}\nlayout: {blocks: 2, threads: 64}\n"
      "ilp: 4\niterations: 8\n");
  Laid l = lay_out({&e});
  const HostResults res(l, 0);
  std::vector<PointTrace> traces(1);
  std::vector<std::vector<double>> ovh(1);
  l.launch->decode(0, res.readback(), traces, ovh);
  REQUIRE(traces[0].samples.size() == 4);  // 2 blocks x 2 warps
  CHECK(traces[0].samples[0].offset_bytes == 32ull * 8 * 4 * 4);  // lanes x iterations x ILP x 4 B
}
