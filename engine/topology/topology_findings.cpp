#include "engine/topology/topology_findings.hpp"

namespace dissect::findings {
namespace {

using json = nlohmann::json;

// A detail that is present and not null.
const json* detail(const Finding& f, const char* key) {
  return f.details.contains(key) && !f.details[key].is_null() ? &f.details[key] : nullptr;
}

template <typename T>
std::optional<T> detail_as(const Finding& f, const char* key) {
  if (const json* v = detail(f, key)) return v->get<T>();
  return std::nullopt;
}

Verdict verdict_of(const Finding& f) {
  return {!f.value.is_null(), f.confidence, f.summary, f.details.value("reason", f.summary)};
}

template <typename T>
std::optional<T> value_as(const Finding& f) {
  if (f.value.is_null()) return std::nullopt;
  return f.value.get<T>();
}

}  // namespace

const Finding* find(const Findings& fs, const std::string& analyzer) {
  for (const auto& f : fs)
    if (f.analyzer == analyzer) return &f;
  return nullptr;
}

std::optional<Latency> latency(const Findings& fs) {
  const Finding* f = find(fs, "summary");
  if (f == nullptr || f->value.is_null()) return std::nullopt;
  Latency l{f->value.get<double>(), std::nullopt};
  const json& points = f->details.value("points", json::array());
  if (!points.empty() && points[0].contains("timer_overhead_cycles"))
    l.timer_overhead_cycles = points[0]["timer_overhead_cycles"].get<double>();
  return l;
}

std::optional<LineSize> line_size(const Findings& fs) {
  const Finding* f = find(fs, "line_size");
  if (f == nullptr || f->value.is_null()) return std::nullopt;
  return LineSize{verdict_of(*f), f->value.get<std::uint64_t>(), detail_as<std::uint64_t>(*f, "fetch_bytes")};
}

std::optional<CacheSize> cache_size(const Findings& fs) {
  const Finding* f = find(fs, "cache_size");
  // A knee read as lines (unit "lines": a stride above the line) is no size.
  if (f == nullptr || f->unit == "lines") return std::nullopt;
  return CacheSize{verdict_of(*f), value_as<std::uint64_t>(*f), detail_as<double>(*f, "hit_latency_cycles"),
                   detail_as<double>(*f, "miss_latency_cycles"), detail_as<std::uint64_t>(*f, "lower_bound_bytes")};
}

std::optional<LineCapacity> line_capacity(const Findings& fs) {
  const Finding* f = find(fs, "line_capacity");
  if (f == nullptr) return std::nullopt;
  return LineCapacity{verdict_of(*f), value_as<std::uint64_t>(*f)};
}

std::optional<Sets> sets(const Findings& fs) {
  const Finding* f = find(fs, "sets");
  if (f == nullptr) return std::nullopt;
  return Sets{verdict_of(*f),
              value_as<std::uint64_t>(*f),
              detail_as<double>(*f, "ways"),
              detail_as<std::uint64_t>(*f, "lines_per_block"),
              detail_as<bool>(*f, "bit_defined"),
              detail_as<std::vector<std::uint64_t>>(*f, "set_sizes")};
}

std::optional<Replacement> replacement(const Findings& fs) {
  const Finding* f = find(fs, "replacement");
  if (f == nullptr || f->value.is_null()) return std::nullopt;
  return Replacement{f->value.get<std::string>(), detail_as<std::vector<double>>(*f, "way_probabilities"),
                     detail_as<bool>(*f, "launches_identical") == true ? std::optional<bool>(true) : std::nullopt};
}

std::optional<Sharing> sharing(const Findings& fs) {
  const Finding* f = find(fs, "sharing");
  if (f == nullptr || f->value.is_null()) return std::nullopt;
  return Sharing{f->value.get<bool>(), f->confidence};
}

std::optional<std::uint64_t> amount(const Findings& fs) {
  const Finding* f = find(fs, "amount");
  return f == nullptr ? std::nullopt : value_as<std::uint64_t>(*f);
}

std::optional<std::vector<double>> latency_level_medians(const Findings& fs) {
  const Finding* f = find(fs, "latency_levels");
  if (f == nullptr || !f->details.contains("levels")) return std::nullopt;
  std::vector<double> medians;
  for (const auto& l : f->details["levels"])
    if (l.contains("median")) medians.push_back(l["median"].get<double>());
  return medians;
}

std::optional<Banks> banks(const Findings& fs) {
  const Finding* f = find(fs, "bank_conflicts");
  if (f == nullptr || f->value.is_null()) return std::nullopt;
  return Banks{f->value.get<std::uint64_t>(), detail_as<std::uint64_t>(*f, "bank_width_bytes")};
}

std::optional<Tlb> tlb(const Findings& fs) {
  const Finding* f = find(fs, "tlb");
  if (f == nullptr) return std::nullopt;
  Tlb t{verdict_of(*f), {}};
  for (const auto& l : f->details.value("levels", json::array())) t.levels.push_back(l);
  return t;
}

std::optional<PageSize> page_size(const Findings& fs) {
  const Finding* f = find(fs, "page_size");
  if (f == nullptr) return std::nullopt;
  return PageSize{verdict_of(*f), value_as<std::uint64_t>(*f), detail_as<std::uint64_t>(*f, "saturation_stride_bytes"),
                  detail_as<std::uint64_t>(*f, "page_at_most_bytes")};
}

std::optional<Bandwidth> bandwidth(const Findings& fs) {
  const Finding* f = find(fs, "bandwidth");
  if (f == nullptr || f->value.is_null()) return std::nullopt;
  return Bandwidth{f->value.get<double>(),
                   f->unit,
                   f->details,
                   detail_as<std::uint64_t>(*f, "sms"),
                   detail_as<double>(*f, "peak_bytes_per_cycle_per_sm"),
                   detail_as<double>(*f, "peak_gbps"),
                   detail_as<std::string>(*f, "method")};
}

}  // namespace dissect::findings
