#pragma once
// Hand-made bundles with a known structure for the report tests, written with
// the real BundleWriter: a fine-grained size sweep with a latency step at
// 16 KiB and a growing 1-in-8 miss pattern past it, a TLB staircase, a bank
// conflict stride sweep, a throughput ILP x warps grid, a Saavedra grid and a
// page_random block-size sweep (line by occupancy).
#include <cmath>
#include <functional>
#include <numeric>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/bundle/bundle.hpp"

namespace dissect::test {

inline Experiment report_experiment(KernelKind kernel, std::uint64_t size, std::uint64_t stride,
                                    TimingMode mode = TimingMode::per_access) {
  Experiment e;
  e.name = "t";
  e.kernel = kernel;
  e.target = Target::l1;
  e.array.size_bytes = size;
  e.array.stride_bytes = stride;
  e.timing.mode = mode;
  e.iterations = 1024;
  return e;
}

using LatencyFn = std::function<double(const Experiment&, std::uint64_t seq)>;
// Optional: samples per point and bytes per sample (throughput kernels record
// one sample per warp with offset_bytes = bytes it loaded).
struct SampleShape {
  std::function<std::uint64_t(const Experiment&)> count;
  std::function<std::uint64_t(const Experiment&, std::uint64_t)> offset;
};

// Writes a complete bundle: one point per experiment, `samples` samples each
// (thread 0), latency from `lat`; findings.json when `findings` is an object.
inline std::string write_report_bundle(const std::string& dir, const std::string& name,
                                       const std::vector<Experiment>& points, const LatencyFn& lat,
                                       std::uint64_t samples, const nlohmann::json& findings = nullptr,
                                       double kernel_ms = std::nan(""), const SampleShape& shape = {}) {
  nlohmann::json header;
  header["tool"] = {{"name", "dissect"}, {"version", "0.1.0"}, {"git_revision", "test"}};
  header["spec"] = {{"path", "specs/test/" + name + ".yaml"},
                    {"name", name},
                    {"description", "hand-made " + name},
                    {"source", "report tests"},
                    {"points", points.size()}};
  header["device"] = {{"name", "test device"}, {"kind", "fake"}};
  header["started"] = "2026-01-01T00:00:00Z";
  {
    BundleWriter w(dir, header);
    for (std::size_t i = 0; i < points.size(); ++i) {
      Point p;
      p.id = i;
      p.experiment = points[i];
      PointTrace t;
      t.point_id = i;
      t.accesses_per_pass = points[i].array.stride_bytes > 0
                                ? std::max<std::uint64_t>(1, points[i].array.size_bytes / points[i].array.stride_bytes)
                                : 1;
      t.timer_overhead_cycles = 8;
      t.kernel_ms = kernel_ms;
      const std::uint64_t n = shape.count ? shape.count(points[i]) : samples;
      for (std::uint64_t s = 0; s < n; ++s) {
        const std::uint64_t offset =
            shape.offset ? shape.offset(points[i], s)
                         : (s * points[i].array.stride_bytes) % std::max<std::uint64_t>(1, points[i].array.size_bytes);
        t.samples.push_back({0, s, offset, lat(points[i], s), 3, 0});
      }
      w.append_point(p, t);
    }
    w.finish("complete", {{"timings", {{"wall_ms", 1234.5}, {"kernel_ms", 100.0}, {"compile_ms", 50.0}}}});
    if (findings.is_object()) w.write_findings(findings);
  }
  return dir;
}

// N = 8..24 KiB in 1 KiB steps, s = 128 B, fine-grained. Up to 16 KiB every
// access hits (30 cycles); at 16 + k KiB, k of every 8 accesses miss (300).
inline std::string fine_size_bundle(const std::string& dir, bool with_findings = true) {
  std::vector<Experiment> pts;
  for (std::uint64_t k = 8; k <= 24; ++k) pts.push_back(report_experiment(KernelKind::pchase, k * 1024, 128));
  const LatencyFn lat = [](const Experiment& e, std::uint64_t seq) {
    const std::uint64_t over = e.array.size_bytes > 16384 ? (e.array.size_bytes - 16384) / 1024 : 0;
    const double jitter = static_cast<double>(seq % 3);
    return (seq % 8) < std::min<std::uint64_t>(over, 8) ? 300.0 + jitter : 30.0 + jitter;
  };
  nlohmann::json findings = nullptr;
  if (with_findings)
    findings = {{"findings",
                 {{{"analyzer", "cache_size"}, {"value", 16384}, {"unit", "B"}, {"confidence", 0.93},
                   {"details", nlohmann::json::object()}, {"evidence", nlohmann::json::object()},
                   {"summary", "latency steps up past 16 KiB"}},
                  {{"analyzer", "latency_levels"}, {"value", 2}, {"unit", "levels"}, {"confidence", 0.9},
                   {"details", {{"levels", {30, 300}}}}, {"evidence", nlohmann::json::object()},
                   {"summary", "two levels: 30 and 300 cycles"}},
                  {{"analyzer", "sets"}, {"value", nullptr}, {"unit", "sets"}, {"confidence", 0},
                   {"details", {{"reason", "not enough points"}}}, {"evidence", nlohmann::json::object()},
                   {"summary", ""}}}},
                {"expectations",
                 {{{"expect", "cache_size == 16 KiB"}, {"outcome", "pass"}, {"actual", "16384"},
                   {"message", "holds: cache_size == 16 KiB (measured 16384 B)"}}}}};
  return write_report_bundle(dir, "fine_sizes", pts, lat, 2048, findings);
}

// One fine-grained point, Mei & Chu's stage 1: N = C + 1 element, s = 1
// element; one miss per 32 B line (every 8th access) in the first set's lines.
inline std::string stage1_bundle(const std::string& dir) {
  std::vector<Experiment> pts{report_experiment(KernelKind::pchase, 12292, 4)};
  const LatencyFn lat = [](const Experiment&, std::uint64_t seq) {
    return seq % 8 == 0 && (seq / 8) % 96 < 4 ? 310.0 : 30.0 + static_cast<double>(seq % 2);
  };
  return write_report_bundle(dir, "stage1_single", pts, lat, 4096);
}

// Page-strided TLB sweep: s = page = 2 MiB, N = 2..64 MiB; 400 cycles up to
// 32 MiB (16 entries), then one access in four at 650.
inline std::string tlb_bundle(const std::string& dir) {
  std::vector<Experiment> pts;
  for (std::uint64_t mib = 2; mib <= 64; mib += 2) {
    Experiment e = report_experiment(KernelKind::pchase, mib << 20, 2u << 20);
    e.target = Target::tlb;
    e.array.pattern = Pattern::page_strided;
    e.array.page_bytes = 2u << 20;
    pts.push_back(e);
  }
  const LatencyFn lat = [](const Experiment& e, std::uint64_t seq) {
    return e.array.size_bytes > (32u << 20) && seq % 4 == 0 ? 650.0 : 400.0 + static_cast<double>(seq % 5);
  };
  return write_report_bundle(dir, "tlb_pages", pts, lat, 256);
}

// Shared-memory strides 1..32 elements: latency 30 x gcd(stride, 32) (bank conflicts).
inline std::string bank_bundle(const std::string& dir) {
  std::vector<Experiment> pts;
  for (std::uint64_t s = 1; s <= 32; ++s) {
    Experiment e = report_experiment(KernelKind::shared_stride, 4096, 4 * s);
    e.path = LoadPath::shared;
    e.target = Target::shared;
    e.layout.threads = 32;
    pts.push_back(e);
  }
  const LatencyFn lat = [](const Experiment& e, std::uint64_t) {
    return 30.0 * static_cast<double>(std::gcd<std::uint64_t>(e.array.stride_bytes / 4, 32));
  };
  return write_report_bundle(dir, "bank_conflicts", pts, lat, 64);
}

// Throughput: ILP 1, 2, 4, 8 x threads 32..1024 (1..32 warps); one sample
// per warp: 32 threads x iterations x ILP x 4 B in 400 + 10 x warps x ILP cycles,
// kernel time 0.05 ms (or none).
inline std::string throughput_bundle(const std::string& dir, bool with_time = true) {
  std::vector<Experiment> pts;
  for (std::uint32_t ilp : {1u, 2u, 4u, 8u})
    for (std::uint32_t threads = 32; threads <= 1024; threads *= 2) {
      Experiment e = report_experiment(KernelKind::throughput, 1u << 20, 4);
      e.target = Target::l2;
      e.ilp = ilp;
      e.layout.threads = threads;
      e.iterations = 256;
      pts.push_back(e);
    }
  const LatencyFn lat = [](const Experiment& e, std::uint64_t) {
    return 400.0 + 10.0 * static_cast<double>(e.layout.threads / 32) * static_cast<double>(e.ilp);
  };
  SampleShape shape;
  shape.count = [](const Experiment& e) { return std::uint64_t{e.layout.threads / 32}; };
  shape.offset = [](const Experiment& e, std::uint64_t) { return std::uint64_t{32} * e.iterations * e.ilp * 4; };
  return write_report_bundle(dir, "throughput_grid", pts, lat, 0, nullptr, with_time ? 0.05 : std::nan(""), shape);
}

// Saavedra grid (chain timing): N = 1 KiB..1 MiB, s = 4..256 B; 30 cycles
// while N fits 16 KiB, 300 beyond when s >= 128 B, in between for smaller s.
inline std::string saavedra_bundle(const std::string& dir) {
  std::vector<Experiment> pts;
  for (std::uint64_t s : {4u, 16u, 64u, 256u})
    for (std::uint64_t n = 1024; n <= (1u << 20); n *= 2)
      pts.push_back(report_experiment(KernelKind::pchase, n, s, TimingMode::chain));
  const LatencyFn lat = [](const Experiment& e, std::uint64_t) {
    if (e.array.size_bytes <= 16384) return 30.0;
    const double miss_share = std::min(1.0, static_cast<double>(e.array.stride_bytes) / 128.0);
    return 30.0 + 270.0 * miss_share;
  };
  return write_report_bundle(dir, "saavedra_grid", pts, lat, 5);
}

// Line size by occupancy (the topology's *_line_blocks steps): a chain-timed
// page_random chase over a fixed N = 240 KiB, one access per block of
// b = 32 B .. 1 KiB. Blocks up to the 128 B line overflow the cache (300
// cycles), larger ones fit (40). Three chains per point, the last 30 cycles
// slower, so that the median (base) differs from the mean (base + 10) and the
// p5-p95 band is visible. Points are written out of order (the plot sorts
// them). `finding`: a line_capacity finding for findings.json, or null.
inline std::string line_blocks_bundle(const std::string& dir, const nlohmann::json& finding = nullptr) {
  std::vector<Experiment> pts;
  for (std::uint64_t b : {256u, 32u, 1024u, 64u, 512u, 128u}) {
    Experiment e = report_experiment(KernelKind::pchase, 240 * 1024, 4, TimingMode::chain);
    e.array.pattern = Pattern::page_random;
    e.array.page_bytes = b;
    pts.push_back(e);
  }
  const LatencyFn lat = [](const Experiment& e, std::uint64_t seq) {
    return (e.array.page_bytes <= 128 ? 300.0 : 40.0) + (seq == 2 ? 30.0 : 0.0);
  };
  nlohmann::json findings = nullptr;
  if (!finding.is_null())
    findings = {{"findings", nlohmann::json::array({finding})}, {"expectations", nlohmann::json::array()}};
  return write_report_bundle(dir, "line_blocks", pts, lat, 3, findings);
}

}  // namespace dissect::test
