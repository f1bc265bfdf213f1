#pragma once
// What a measurement produces: per sweep point, every timed sample, plus the
// context needed to interpret it. Devices produce PointTraces; bundles store
// them; the CSV importer builds them from other tools' traces; analyzers read
// a TraceSet and nothing else.
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "engine/trace/derived_cache.hpp"

namespace dissect {

struct Sample {
  std::uint32_t thread = 0;      // chasing thread, 0.. (global among a point's chasers)
  std::uint64_t seq = 0;         // position in measurement order, per thread
  std::uint64_t offset_bytes = 0;// array offset that was loaded
  double latency = 0;            // cycles (raw: timer overhead not subtracted)
  std::int32_t sm_id = -1;       // -1 when unknown
  std::uint32_t phase = 0;       // measure phase index (phases kernel), else 0
};

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

struct PointTrace {
  std::size_t point_id = 0;
  // The point's parameters as tidy name -> value text (size_bytes, stride_bytes,
  // path, ...). Analyzers read the ones they need through the helpers below.
  std::map<std::string, std::string> params;
  std::vector<Sample> samples;

  // Measurement context (NaN / -1 when unknown, e.g. imported traces).
  // What to subtract from each sample's latency to correct it for the timer,
  // measured in the same launch: for per-access samples one clock read plus the
  // dependent store; for samples that average over K loads (chain, shared_stride)
  // that overhead divided by K. Devices real and simulated report it this way.
  double timer_overhead_cycles = kUnknown;
  double kernel_ms = kUnknown;
  double sm_clock_khz = kUnknown;
  std::int32_t sm_id = -1;                  // SM the point ran on
  std::uint64_t accesses_per_pass = 0;      // 0 when unknown
  std::uint32_t discard_passes = 0;         // leading passes analyzers must ignore
  std::string status = "ok";                // ok | failed: <why>

  [[nodiscard]] std::uint64_t size_bytes() const { return param_u64("size_bytes"); }
  [[nodiscard]] std::uint64_t stride_bytes() const { return param_u64("stride_bytes"); }
  [[nodiscard]] std::uint64_t param_u64(const std::string& key, std::uint64_t fallback = 0) const;
  [[nodiscard]] double param_double(const std::string& key, double fallback = kUnknown) const;
  [[nodiscard]] std::string param(const std::string& key, const std::string& fallback = "") const;
  // A note of how the device ran the point: the param itself (a trace fresh from the
  // device), else the key's value in the "device_notes" column ("k=v; k=v", as
  // points.csv keeps them), up to the next "; ".
  [[nodiscard]] std::string device_note(const std::string& key, const std::string& fallback = "") const;
  // Samples analyzers should use: discarded leading passes left out.
  [[nodiscard]] std::vector<const Sample*> measured_samples() const;
};

struct TraceSet {
  std::string source;  // bundle directory or CSV file
  std::vector<PointTrace> points;
  double sm_clock_khz = kUnknown;  // device-wide, when known
  // What analyzers derive alike from these points (engine/trace/derived_cache.hpp): a copy
  // starts with none. The points are not changed once analysed.
  DerivedCacheSlot derived;
};

// Latency statistics of a set of values (used by points.csv and the summary analyzer).
struct LatencySummary {
  std::size_t count = 0;
  double min = kUnknown, p5 = kUnknown, median = kUnknown, mean = kUnknown, p95 = kUnknown, max = kUnknown;
};
LatencySummary summarize(std::vector<double> values);

}  // namespace dissect
