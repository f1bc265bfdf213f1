#include "engine/topology/topology_plan.hpp"

#include <algorithm>
#include <cmath>

#include "engine/spec/units.hpp"

namespace dissect {
namespace {

using json = nlohmann::json;
using Overrides = std::optional<std::vector<SpecOverride>>;

std::string bytes(std::uint64_t b) { return std::to_string(b) + " B"; }

std::uint64_t round_to(std::uint64_t v, std::uint64_t unit) { return std::max<std::uint64_t>(unit, v / unit * unit); }

// A number measured by an earlier step, or nullopt.
std::optional<std::uint64_t> measured(const json& r, const std::string& cache, const std::string& key) {
  if (!r.contains("caches") || !r["caches"].contains(cache)) return std::nullopt;
  const json& c = r["caches"][cache];
  if (!c.contains(key) || !c[key].is_number()) return std::nullopt;
  const double v = c[key].get<double>();
  if (!(v > 0)) return std::nullopt;
  return static_cast<std::uint64_t>(std::llround(v));
}

json& cache_entry(json& r, const std::string& cache) { return r["caches"][cache]; }

// The line to step by: the measured line, else the fetch granularity, else 32 B.
std::uint64_t step_bytes(const json& r, const std::string& cache) {
  if (auto l = measured(r, cache, "line_bytes")) return *l;
  if (auto f = measured(r, cache, "fetch_bytes")) return *f;
  return 32;
}

const json* detail(const Finding& f, const std::string& key) {
  return f.details.contains(key) && !f.details[key].is_null() ? &f.details[key] : nullptr;
}

void absorb_latency(json& r, const std::string& cache, const std::vector<Finding>& fs) {
  const Finding* s = find_finding(fs, "summary");
  if (s == nullptr || s->value.is_null()) return;
  json& c = cache_entry(r, cache);
  c["latency_cycles"] = s->value;
  if (s->details.contains("points") && !s->details["points"].empty() &&
      s->details["points"][0].contains("timer_overhead_cycles")) {
    const double overhead = s->details["points"][0]["timer_overhead_cycles"].get<double>();
    c["timer_overhead_cycles"] = overhead;
    c["latency_corrected_cycles"] = s->value.get<double>() - overhead;
  }
}

void absorb_fetch(json& r, const std::string& cache, const std::vector<Finding>& fs) {
  const Finding* f = find_finding(fs, "line_size");
  if (f == nullptr || f->value.is_null()) return;
  json& c = cache_entry(r, cache);
  if (const json* fb = detail(*f, "fetch_bytes")) c["fetch_bytes"] = *fb;
  else c["fetch_bytes"] = f->value;
}

void absorb_size(json& r, const std::string& cache, const std::vector<Finding>& fs) {
  const Finding* f = find_finding(fs, "cache_size");
  json& c = cache_entry(r, cache);
  if (f == nullptr) return;
  c["size_confidence"] = f->confidence;
  if (f->value.is_null()) {
    c["size_note"] = f->details.value("reason", f->summary);
    return;
  }
  c["size_bytes"] = f->value;
  if (const json* h = detail(*f, "hit_latency_cycles")) c["hit_level_cycles"] = *h;
  if (const json* m = detail(*f, "miss_latency_cycles")) c["miss_level_cycles"] = *m;
}

// The table states a finding only when its analyzer is confident of it; a weak
// one is kept as a note, never shown as a measured figure.
constexpr double kTableConfidence = 0.7;

bool table_worthy(const Finding& f) { return !f.value.is_null() && f.confidence >= kTableConfidence; }

// The note kept instead of a finding the table does not state.
std::string kept_out_note(const Finding& f) {
  return f.value.is_null() ? f.details.value("reason", f.summary)
                           : "low confidence (" + std::to_string(f.confidence) + "): " + f.summary;
}

void absorb_line(json& r, const std::string& cache, const std::vector<Finding>& fs) {
  const Finding* f = find_finding(fs, "line_size");
  if (f == nullptr || f->value.is_null()) return;
  json& c = cache_entry(r, cache);
  if (!table_worthy(*f)) {
    c["line_note"] = kept_out_note(*f);
    return;
  }
  c["line_bytes"] = f->value;
  c["line_confidence"] = f->confidence;
  if (const json* fb = detail(*f, "fetch_bytes"); fb != nullptr && !c.contains("fetch_bytes")) c["fetch_bytes"] = *fb;
}

// The occupancy method names the allocation line itself (a sectored cache's
// small-stride chase shows only the sector): it wins over the miss spacing.
void absorb_line_blocks(json& r, const std::string& cache, const std::vector<Finding>& fs) {
  const Finding* f = find_finding(fs, "line_capacity");
  if (f == nullptr) return;
  json& c = cache_entry(r, cache);
  if (!table_worthy(*f)) {
    c["line_blocks_note"] = kept_out_note(*f);
    return;
  }
  if (c.contains("line_bytes") && c["line_bytes"] != f->value)
    c["line_note"] = "the miss spacing of a small-stride chase said " + c["line_bytes"].dump() +
                     " B; the occupancy of one access per block says " + f->value.dump() + " B (taken)";
  else
    c.erase("line_note");
  c["line_bytes"] = f->value;
  c["line_confidence"] = f->confidence;
  c["line_method"] = "occupancy: " + f->summary;
}

void absorb_sets(json& r, const std::string& cache, const std::vector<Finding>& fs) {
  const Finding* f = find_finding(fs, "sets");
  if (f == nullptr) return;
  json& c = cache_entry(r, cache);
  if (!table_worthy(*f)) {
    c["sets_note"] = kept_out_note(*f);
    return;
  }
  c["sets"] = f->value;
  c["sets_confidence"] = f->confidence;
  for (const char* k : {"ways", "lines_per_block", "bit_defined", "set_sizes"})
    if (const json* v = detail(*f, k)) c[k] = *v;
}

void absorb_replacement(json& r, const std::string& cache, const std::vector<Finding>& fs) {
  const Finding* f = find_finding(fs, "replacement");
  if (f == nullptr || f->value.is_null()) return;
  json& c = cache_entry(r, cache);
  c["replacement"] = f->value;
  if (const json* w = detail(*f, "way_probabilities")) c["way_probabilities"] = *w;
}

// Line by occupancy (line_capacity): one access per block of b = f .. 32 f,
// at a random place in it, over N = 1.25 C.
TopologyStep line_blocks_step(const std::string& cache, const std::string& label) {
  return {cache + "_line_blocks", cache + "_line_blocks.yaml", label + " line (occupancy)", true, cache,
          [cache](const json& r, std::string& why) -> Overrides {
            auto c = measured(r, cache, "size_bytes");
            if (!c) {
              why = "the size was not measured";
              return std::nullopt;
            }
            const std::uint64_t f = measured(r, cache, "fetch_bytes").value_or(32);
            const std::uint64_t n = round_to(*c + *c / 4, 32 * f);
            std::string blocks;
            for (std::uint64_t b = f; b <= 32 * f; b *= 2) blocks += (blocks.empty() ? "" : ", ") + bytes(b);
            return std::vector<SpecOverride>{
                {"array.size", bytes(n)},
                {"array.page", bytes(f)},
                {"iterations", std::to_string(std::clamp<std::uint64_t>(2 * n / f, 4096, 1u << 16))},
                {"sweep.array.page", "[" + blocks + "]"}};
          },
          [cache](json& r, const std::vector<Finding>& fs) { absorb_line_blocks(r, cache, fs); }};
}

// Steps common to the SM-private caches with a full characterisation.
void add_cache_steps(std::vector<TopologyStep>& plan, const std::string& cache, const std::string& label,
                     bool structure) {
  plan.push_back({cache + "_latency", cache + "_latency.yaml", label + " latency", true, cache,
                  [](const json&, std::string&) -> Overrides { return std::vector<SpecOverride>{}; },
                  [cache](json& r, const std::vector<Finding>& fs) { absorb_latency(r, cache, fs); }});
  plan.push_back({cache + "_fetch", cache + "_fetch.yaml", label + " fetch granularity", true, cache,
                  [](const json&, std::string&) -> Overrides { return std::vector<SpecOverride>{}; },
                  [cache](json& r, const std::vector<Finding>& fs) { absorb_fetch(r, cache, fs); }});
  // Size: jump by the fetch granularity (seed 004 Sec. 4.7: "jump by line size"),
  // and search to 0.1 % of the size (at least that granularity): within the last
  // few lines of a large cache whether an array fits depends on where it lies
  // (the H100's L1: 1924 to 1928 of its 128 B lines), so a finer step only
  // measures addresses (results/h100/README.md). The texture cache to 0.2 %: on the
  // H100 its knee moved by one 128-B line from run to run (246528 to 246784 B over
  // six runs) where L1 and read-only gave the same byte every time, so a 0.1 % step
  // reports a precision its runs do not repeat.
  plan.push_back({cache + "_size", cache + "_size.yaml", label + " size", true, cache,
                  [cache](const json& r, std::string&) -> Overrides {
                    const std::uint64_t step = measured(r, cache, "fetch_bytes").value_or(32);
                    const bool constant = cache == "constant_l1";
                    const std::string from = constant ? "256 B" : "1 KiB", to = constant ? "60 KiB" : "1 MiB";
                    const std::string resolution = cache == "texture" ? "0.2%" : "0.1%";
                    return std::vector<SpecOverride>{
                        {"array.stride", bytes(step)},
                        {"sweep.array.size", "{search: knee, from: " + from + ", to: " + to +
                                                 ", resolution: " + resolution + "}"}};
                  },
                  [cache](json& r, const std::vector<Finding>& fs) { absorb_size(r, cache, fs); }});
  if (!structure) return;
  // Line: N = C + 1 element, s = 1 element (Mei & Chu stage 1).
  plan.push_back({cache + "_line", cache + "_line.yaml", label + " line size", true, cache,
                  [cache](const json& r, std::string& why) -> Overrides {
                    auto c = measured(r, cache, "size_bytes");
                    if (!c) {
                      why = "the size was not measured";
                      return std::nullopt;
                    }
                    const std::uint64_t n = *c + 4, passes = 4;
                    return std::vector<SpecOverride>{{"array.size", bytes(n)},
                                                     {"iterations", std::to_string(std::min<std::uint64_t>(
                                                                        passes * n / 4, 1u << 20))}};
                  },
                  [cache](json& r, const std::vector<Finding>& fs) { absorb_line(r, cache, fs); }});
  // Line by occupancy: one access per block of b = f .. 32 f over N = 1.25 C.
  plan.push_back(line_blocks_step(cache, label));
  // Sets: s = b, N = C + k b (Mei & Chu stage 2).
  plan.push_back({cache + "_sets", cache + "_sets.yaml", label + " sets", true, cache,
                  [cache](const json& r, std::string& why) -> Overrides {
                    auto c = measured(r, cache, "size_bytes");
                    if (!c) {
                      why = "the size was not measured";
                      return std::nullopt;
                    }
                    const std::uint64_t b = step_bytes(r, cache);
                    const std::uint64_t from = round_to(*c, b);
                    // Up to one step per set of a 2-way cache (at most 512): the staircase
                    // must end inside the sweep, or the analyzer cannot count its steps.
                    const std::uint64_t steps = std::clamp<std::uint64_t>(from / b / 2, 8, 512);
                    return std::vector<SpecOverride>{
                        {"array.stride", bytes(b)},
                        {"array.size", bytes(from)},
                        {"iterations", std::to_string(std::min<std::uint64_t>(4 * (from / b + steps), 1u << 20))},
                        {"sweep.array.size",
                         "{from: " + bytes(from) + ", to: " + bytes(from + steps * b) + ", step: " + bytes(b) + "}"}};
                  },
                  [cache](json& r, const std::vector<Finding>& fs) { absorb_sets(r, cache, fs); }});
  // Replacement: N = C + b, s = b, many rounds.
  plan.push_back({cache + "_replacement", cache + "_replacement.yaml", label + " replacement", true, cache,
                  [cache](const json& r, std::string& why) -> Overrides {
                    auto c = measured(r, cache, "size_bytes");
                    if (!c) {
                      why = "the size was not measured";
                      return std::nullopt;
                    }
                    const std::uint64_t b = step_bytes(r, cache);
                    const std::uint64_t n = round_to(*c, b) + b;
                    return std::vector<SpecOverride>{
                        {"array.stride", bytes(b)},
                        {"array.size", bytes(n)},
                        {"iterations", std::to_string(std::clamp<std::uint64_t>(64 * (n / b), 16384, 1u << 20))}};
                  },
                  [cache](json& r, const std::vector<Finding>& fs) { absorb_replacement(r, cache, fs); }});
}

Overrides no_overrides(const json&, std::string&) { return std::vector<SpecOverride>{}; }

void add_sharing(std::vector<TopologyStep>& plan, const std::string& a, const std::string& b) {
  plan.push_back(
      {"sharing_" + a + "_" + b, "sharing_" + a + "_" + b + ".yaml", a + " / " + b + " sharing", true, "",
       [a, b](const json& r, std::string& why) -> Overrides {
         auto ca = measured(r, a, "size_bytes"), cb = measured(r, b, "size_bytes");
         if (!ca || !cb) {
           why = "a cache size was not measured";
           return std::nullopt;
         }
         // Each array fits its own cache; together they overflow one shared cache.
         const std::uint64_t n = round_to(std::min(*ca, *cb) * 8 / 10, 128);
         return std::vector<SpecOverride>{{"arrays.a.size", bytes(n)}, {"arrays.b.size", bytes(n)}};
       },
       [a, b](json& r, const std::vector<Finding>& fs) {
         const Finding* f = find_finding(fs, "sharing");
         if (f == nullptr || f->value.is_null()) return;
         r["sharing"][a + "/" + b] = {{"shared", f->value}, {"confidence", f->confidence}};
         if (f->value == true) {
           cache_entry(r, a)["shared_with"].push_back(b);
           cache_entry(r, b)["shared_with"].push_back(a);
         }
       }});
}

}  // namespace

const Finding* find_finding(const std::vector<Finding>& findings, const std::string& analyzer) {
  for (const auto& f : findings)
    if (f.analyzer == analyzer) return &f;
  return nullptr;
}

std::vector<TopologyStep> topology_plan() {
  std::vector<TopologyStep> plan;
  add_cache_steps(plan, "l1", "L1 data", true);
  add_cache_steps(plan, "texture", "texture", true);
  add_cache_steps(plan, "readonly", "read-only", true);
  add_cache_steps(plan, "constant_l1", "constant L1", false);
  plan.push_back({"constant_l15_latency", "constant_l15_latency.yaml", "constant L1.5 latency", true, "constant_l15", no_overrides,
                  [](json& r, const std::vector<Finding>& fs) { absorb_latency(r, "constant_l15", fs); }});
  // Beyond the constant L1 (MT4G Sec. 4.2 starts the L1.5 run where the L1 run ends),
  // stepping by the L1's line so that every access misses the L1.
  plan.push_back({"constant_l15_size", "constant_l15_size.yaml", "constant L1.5 size", true, "constant_l15",
                  [](const json& r, std::string&) -> Overrides {
                    const std::uint64_t l1 = measured(r, "constant_l1", "size_bytes").value_or(4096);
                    const std::uint64_t line = measured(r, "constant_l1", "fetch_bytes").value_or(64);
                    const std::uint64_t from = round_to(2 * l1, 1024);
                    if (from >= 63 * 1024) return std::vector<SpecOverride>{};
                    return std::vector<SpecOverride>{
                        {"array.stride", bytes(line)},
                        {"array.size", bytes(from)},
                        {"sweep.array.size", "{from: " + bytes(from) + ", to: 63 KiB, step: 1 KiB}"}};
                  },
                  [](json& r, const std::vector<Finding>& fs) {
                    absorb_size(r, "constant_l15", fs);
                    json& c = cache_entry(r, "constant_l15");
                    if (!c.contains("size_bytes")) {
                      c["size_note"] = "no knee below 63 KiB: larger than a module's constant memory";
                      // Only a lower bound when the sweep reached 63 KiB without one.
                      if (const Finding* f = find_finding(fs, "cache_size"); f != nullptr && f->value.is_null()) {
                        if (const json* lb = detail(*f, "lower_bound_bytes")) c["size_lower_bound_bytes"] = *lb;
                      }
                    }
                  }});
  add_sharing(plan, "l1", "texture");
  add_sharing(plan, "l1", "readonly");
  add_sharing(plan, "texture", "readonly");
  plan.push_back({"amount_texture", "amount_texture.yaml", "texture caches per SM", true, "texture",
                  [](const json& r, std::string& why) -> Overrides {
                    auto c = measured(r, "texture", "size_bytes");
                    if (!c) {
                      why = "the texture cache size was not measured";
                      return std::nullopt;
                    }
                    const std::uint64_t n = round_to(*c * 8 / 10, 128);
                    return std::vector<SpecOverride>{{"arrays.base.size", bytes(n)}, {"arrays.test.size", bytes(n)}};
                  },
                  [](json& r, const std::vector<Finding>& fs) {
                    const Finding* f = find_finding(fs, "amount");
                    if (f == nullptr || f->value.is_null()) return;
                    cache_entry(r, "texture")["per_sm"] = f->value;
                    // A cache that is the texture cache's storage (sharing steps) has as many per SM.
                    for (const char* other : {"l1", "readonly"}) {
                      json& c = cache_entry(r, other);
                      if (!c.contains("shared_with") || !c["shared_with"].is_array()) continue;
                      for (const auto& w : c["shared_with"])
                        if (w == "texture") {
                          c["per_sm"] = f->value;
                          c["per_sm_note"] = "the texture cache's storage (sharing step): as many per SM";
                        }
                    }
                  }});
  plan.push_back({"l2_latency", "l2_latency.yaml", "L2 latency", true, "l2", no_overrides,
                  [](json& r, const std::vector<Finding>& fs) { absorb_latency(r, "l2", fs); }});
  plan.push_back({"l2_fetch", "l2_fetch.yaml", "L2 fetch granularity", true, "l2", no_overrides,
                  [](json& r, const std::vector<Finding>& fs) { absorb_fetch(r, "l2", fs); }});
  plan.push_back({"l2_size", "l2_size.yaml", "L2 size", true, "l2",
                  [](const json& r, std::string&) -> Overrides {
                    // Step by the fetch granularity: a larger stride would count lines, not bytes.
                    const std::uint64_t step = measured(r, "l2", "fetch_bytes").value_or(32);
                    return std::vector<SpecOverride>{{"array.stride", bytes(step)}};
                  },
                  [](json& r, const std::vector<Finding>& fs) { absorb_size(r, "l2", fs); }});
  plan.push_back(line_blocks_step("l2", "L2"));
  // A random chase over half the measured L2: every access an L2 hit, near or far.
  plan.push_back({"l2_partitions", "l2_partitions.yaml", "L2 latency levels", true, "l2",
                  [](const json& r, std::string& why) -> Overrides {
                    auto c = measured(r, "l2", "size_bytes");
                    if (!c) {
                      why = "the L2 size was not measured";
                      return std::nullopt;
                    }
                    return std::vector<SpecOverride>{{"array.size", bytes(round_to(*c / 2, 128))}};
                  },
                  [](json& r, const std::vector<Finding>& fs) {
                    const Finding* f = find_finding(fs, "latency_levels");
                    if (f == nullptr || !f->details.contains("levels")) return;
                    json medians = json::array();
                    for (const auto& l : f->details["levels"])
                      if (l.contains("median")) medians.push_back(l["median"]);
                    cache_entry(r, "l2")["hit_levels_cycles"] = medians;
                  }});
  plan.push_back({"dram_latency", "dram_latency.yaml", "main memory latency", true, "dram", no_overrides,
                  [](json& r, const std::vector<Finding>& fs) { absorb_latency(r, "dram", fs); }});
  plan.push_back({"shared_latency", "shared_latency.yaml", "shared memory latency", true, "shared", no_overrides,
                  [](json& r, const std::vector<Finding>& fs) { absorb_latency(r, "shared", fs); }});
  plan.push_back({"shared_banks", "shared_banks.yaml", "shared memory banks", true, "shared", no_overrides,
                  [](json& r, const std::vector<Finding>& fs) {
                    const Finding* f = find_finding(fs, "bank_conflicts");
                    if (f == nullptr || f->value.is_null()) return;
                    json& c = cache_entry(r, "shared");
                    c["banks"] = f->value;
                    if (const json* w = detail(*f, "bank_width_bytes")) c["bank_width_bytes"] = *w;
                  }});
  // TLB levels: a page-stride chase, N one page at a time (the staircase of each
  // level). A level is shown only when the analyzer found a staircase; otherwise
  // its reason is kept as a note (a GPU whose TLB reaches beyond the sweep shows
  // only the L2's near/far wobble, which is no TLB level).
  plan.push_back({"tlb", "tlb.yaml", "TLB levels", true, "",
                  [](const json&, std::string&) -> Overrides { return std::vector<SpecOverride>{}; },
                  [](json& r, const std::vector<Finding>& fs) {
                    const Finding* f = find_finding(fs, "tlb");
                    if (f == nullptr) return;
                    if (f->value.is_null()) {
                      r["tlb"]["levels_note"] = f->details.value("reason", f->summary);
                      return;
                    }
                    r["tlb"]["levels"] = f->details.value("levels", json::array());
                  }});
  // A level beyond the sweep's reach (H100: an L2 TLB of thousands of entries): a
  // knee search from where 'tlb' ends, at most half the device memory.
  plan.push_back({"tlb_far", "tlb_far.yaml", "TLB levels beyond 768 MiB", true, "",
                  [](const json& r, std::string& why) -> Overrides {
                    constexpr std::uint64_t stride = 2097184, from = 384 * stride, max_pages = 6144;
                    std::uint64_t to = max_pages * stride;
                    if (r.contains("device") && r["device"].contains("memory_bytes") &&
                        r["device"]["memory_bytes"].is_number()) {
                      const auto mem = r["device"]["memory_bytes"].get<std::uint64_t>();
                      to = std::min(to, mem / 2 / stride * stride);
                    }
                    if (to < 2 * from) {
                      why = "the device memory holds too few pages beyond the 'tlb' sweep";
                      return std::nullopt;
                    }
                    return std::vector<SpecOverride>{
                        {"sweep.array.size", "{search: knee, from: " + bytes(from) + ", to: " + bytes(to) +
                                                 ", resolution: " + bytes(stride) + "}"}};
                  },
                  [](json& r, const std::vector<Finding>& fs) {
                    const Finding* f = find_finding(fs, "tlb");
                    if (f == nullptr || f->value.is_null()) return;
                    json& levels = r["tlb"]["levels"];
                    if (!levels.is_array()) levels = json::array();
                    for (const auto& l : f->details.value("levels", json::array())) levels.push_back(l);
                    r["tlb"].erase("levels_note");
                  }});
  plan.push_back({"page_size", "page_size.yaml", "page size", true, "", no_overrides,
                  [](json& r, const std::vector<Finding>& fs) {
                    const Finding* f = find_finding(fs, "page_size");
                    if (f == nullptr || f->value.is_null()) return;
                    r["tlb"]["page_bytes"] = f->value;
                  }});
  // Bandwidth: blocks in proportion to the device's SMs (shared memory: one block per
  // SM, each SM's own shared memory; the backend gives an SM-private block its SM
  // alone). The result keeps how many SMs the figure covers beside the device's count,
  // so that one SM's rate is never read as the device's.
  auto sm_blocks = [](std::uint64_t per_sm) {
    return [per_sm](const json& r, std::string&) -> Overrides {
      std::vector<SpecOverride> o;
      if (r.contains("device") && r["device"].contains("sm_count") && r["device"]["sm_count"].is_number() &&
          r["device"]["sm_count"].get<double>() >= 1)
        o.push_back({"layout.blocks", std::to_string(per_sm * r["device"]["sm_count"].get<std::uint64_t>())});
      return o;
    };
  };
  auto absorb_bandwidth = [](const std::string& memory) {
    return [memory](json& r, const std::vector<Finding>& fs) {
      const Finding* f = find_finding(fs, "bandwidth");
      if (f == nullptr || f->value.is_null()) return;
      json b = {{"value", f->value}, {"unit", f->unit}, {"details", f->details}};
      const std::pair<const char*, const char*> keys[] = {{"sms", "sms"},
                                                           {"peak_bytes_per_cycle_per_sm", "bytes_per_cycle_per_sm"},
                                                           {"peak_gbps", "gbps"},
                                                           {"method", "method"}};
      for (const auto& [from, to] : keys)
        if (const json* v = detail(*f, from)) b[to] = *v;
      if (r.contains("device") && r["device"].contains("sm_count") && r["device"]["sm_count"].is_number())
        b["device_sms"] = r["device"]["sm_count"];
      // Shared memory: the bound the measured banks give (banks x width per cycle and SM).
      const json& c = r.value("caches", json::object()).value("shared", json::object());
      if (memory == "shared" && c.contains("banks") && c["banks"].is_number() && c.contains("bank_width_bytes") &&
          c["bank_width_bytes"].is_number() && b.contains("bytes_per_cycle_per_sm")) {
        const double bound = c["banks"].get<double>() * c["bank_width_bytes"].get<double>();
        b["bound_bytes_per_cycle_per_sm"] = bound;
        b["bound_source"] = "measured banks x bank width (shared_banks step)";
        if (bound > 0) b["share_of_bound"] = b["bytes_per_cycle_per_sm"].get<double>() / bound;
      }
      r["bandwidth"][memory] = b;
    };
  };
  plan.push_back({"bandwidth_shared", "bandwidth_shared.yaml", "shared memory bandwidth", false, "", sm_blocks(1),
                  absorb_bandwidth("shared")});
  plan.push_back({"bandwidth_global", "bandwidth_global.yaml", "global memory bandwidth", false, "", sm_blocks(8),
                  absorb_bandwidth("global")});
  return plan;
}

}  // namespace dissect
