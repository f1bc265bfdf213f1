// The topology plan: one declaration per step, in the order they run. What a
// step measures and how is its spec (specs/topology/<id>.yaml, numbers and
// the reasons for them included); here is only what it takes from earlier
// steps and what it contributes to the result (topology_absorb.hpp).
#include <algorithm>
#include <functional>
#include <optional>

#include "engine/topology/topology_absorb.hpp"
#include "engine/topology/topology_plan.hpp"
#include "engine/topology/tlb_sweeps.hpp"

namespace dissect {
namespace {

using Overrides = std::vector<SpecOverride>;

std::string bytes(std::uint64_t b) { return std::to_string(b) + " B"; }

std::uint64_t round_to(std::uint64_t v, std::uint64_t unit) { return std::max<std::uint64_t>(unit, v / unit * unit); }

// The line to step by: the measured line, else the fetch granularity, else 32 B.
std::uint64_t step_bytes(const TopologyResult& r, const std::string& cache) {
  if (auto l = r.line_of(cache)) return *l;
  if (auto f = r.fetch_of(cache)) return *f;
  return 32;
}

// Size: the stride is the fetch granularity ("jump by line size", seed 004 Sec. 4.7);
// the search's bounds and resolution are the spec's.
TopologyStep size_step(const std::string& cache, const std::string& label) {
  return {.id = cache + "_size",
          .label = label + " size",
          .cache = cache,
          .sizes_from = [cache](const TopologyResult& r) -> StepSizing {
            return Overrides{{"array.stride", bytes(r.fetch_of(cache).value_or(32))}};
          },
          .needs = {cache + "_fetch"},
          .absorb = [cache](TopologyResult& r, const Findings& fs) { absorb::size(r.cache(cache), fs); }};
}

// Line: N = C + 1 element, s = 1 element (Mei & Chu stage 1).
TopologyStep line_step(const std::string& cache, const std::string& label) {
  return {.id = cache + "_line",
          .label = label + " line size",
          .cache = cache,
          .sizes_from = [cache](const TopologyResult& r) -> StepSizing {
            const auto c = r.size_of(cache);
            if (!c) return SkipStep{"the size was not measured"};
            const std::uint64_t n = *c + 4, passes = 4;
            return Overrides{{"array.size", bytes(n)},
                             {"iterations", std::to_string(std::min<std::uint64_t>(passes * n / 4, 1u << 20))}};
          },
          .needs = {cache + "_size"},
          .absorb = [cache](TopologyResult& r, const Findings& fs) { absorb::line(r, cache, fs); }};
}

// Line by occupancy (line_capacity): one access per block of b = f .. 32 f, at a
// random place in it, over N = 1.25 C.
TopologyStep line_blocks_step(const std::string& cache, const std::string& label) {
  return {.id = cache + "_line_blocks",
          .label = label + " line (occupancy)",
          .cache = cache,
          .sizes_from = [cache](const TopologyResult& r) -> StepSizing {
            const auto c = r.size_of(cache);
            if (!c) return SkipStep{"the size was not measured"};
            const std::uint64_t f = r.fetch_of(cache).value_or(32);
            const std::uint64_t n = round_to(*c + *c / 4, 32 * f);
            std::string blocks;
            for (std::uint64_t b = f; b <= 32 * f; b *= 2) blocks += (blocks.empty() ? "" : ", ") + bytes(b);
            return Overrides{{"array.size", bytes(n)},
                             {"array.page", bytes(f)},
                             {"iterations", std::to_string(std::clamp<std::uint64_t>(2 * n / f, 4096, 1u << 16))},
                             {"sweep.array.page", "[" + blocks + "]"}};
          },
          .needs = {cache + "_fetch", cache + "_size"},
          .absorb = [cache](TopologyResult& r, const Findings& fs) { absorb::line_blocks(r, cache, fs); }};
}

// What the sets and replacement steps are sized from: the size and the line (the line
// steps' or, without one, the fetch granularity).
std::vector<std::string> line_and_size(const std::string& cache) {
  return {cache + "_fetch", cache + "_size", cache + "_line", cache + "_line_blocks"};
}

// Timed accesses of a chase whose spec keeps them on chip (timing.mode on_chip): at
// most what the smallest shared configuration holds, so that the samples never make
// the driver shrink the L1 under test (DeviceFacts::on_chip_samples; one chaser).
std::uint64_t on_chip_iterations(const TopologyResult& r, std::uint64_t wanted) {
  return r.device.on_chip_samples ? std::min(wanted, *r.device.on_chip_samples) : wanted;
}

// The most lines of which that window holds two passes (none where it is not limited).
std::optional<std::uint64_t> on_chip_passes_room(const TopologyResult& r) {
  if (!r.device.on_chip_samples) return std::nullopt;
  return *r.device.on_chip_samples / 2;
}

// Why a step whose smallest N is `lines` lines of `b` (`what`: "C + b") cannot run on chip:
// the window holds fewer than two passes of it.
std::optional<SkipStep> too_few_passes(const TopologyResult& r, std::uint64_t lines, std::uint64_t b,
                                       const std::string& what) {
  const auto room = on_chip_passes_room(r);
  if (!room || *room >= lines) return std::nullopt;
  return SkipStep{"the on-chip window (" + std::to_string(*r.device.on_chip_samples) +
                  " accesses) holds fewer than two passes of " + what + " (" + std::to_string(lines) + " lines of " +
                  bytes(b) + ")"};
}

// Sets: s = b, N = C + k b (Mei & Chu stage 2). `size_of`: the row whose size and line
// the sweep starts from (the cache's own by default).
TopologyStep sets_step(const std::string& cache, const std::string& label, std::string size_of = {}) {
  if (size_of.empty()) size_of = cache;
  return {.id = cache + "_sets",
          .label = label + " sets",
          .cache = cache,
          .sizes_from = [cache, size_of](const TopologyResult& r) -> StepSizing {
            const auto c = r.size_of(cache);
            if (!c) return SkipStep{"the size was not measured"};
            const std::uint64_t b = step_bytes(r, size_of);
            const std::uint64_t from = round_to(*c, b);
            // Up to one step per set of a 2-way cache (at most 512): the staircase
            // must end inside the sweep, or the analyzer cannot count its steps.
            std::uint64_t steps = std::clamp<std::uint64_t>(from / b / 2, 8, 512);
            // On chip, two passes of the largest N at least.
            if (auto skip = too_few_passes(r, from / b + 8, b, "C + 8 lines")) return *skip;
            if (const auto room = on_chip_passes_room(r)) steps = std::min(steps, *room - from / b);
            return Overrides{
                {"array.stride", bytes(b)},
                {"array.size", bytes(from)},
                {"iterations", std::to_string(on_chip_iterations(r, std::min<std::uint64_t>(4 * (from / b + steps), 1u << 20)))},
                {"sweep.array.size", "{from: " + bytes(from) + ", to: " + bytes(from + steps * b) + ", step: " + bytes(b) + "}"}};
          },
          .needs = size_of == cache ? line_and_size(cache)
                                    : std::vector<std::string>{cache + "_size", size_of + "_fetch", size_of + "_line",
                                                               size_of + "_line_blocks"},
          .absorb = [cache](TopologyResult& r, const Findings& fs) {
            absorb::sets(r, cache, fs);
            absorb::stage_profile(r, cache, fs);
            absorb::replacement(r, cache, fs);  // where the spec runs it on the stage sweep
          }};
}

// `base` (l1, texture, readonly) under the specs' carveout (the `<base>_carveout_size` and
// `_sets` specs): its size at the base's fetch granularity, then the stage sweep at its line.
// Not in --fast.
void add_carveout_steps(std::vector<TopologyStep>& plan, const std::string& base, const std::string& label) {
  const std::string cache = base + "_carveout";
  plan.push_back({.id = cache + "_size",
                  .label = label + " size, other carveout",
                  .cache = cache,
                  .in_fast_mode = false,
                  .sizes_from = [base](const TopologyResult& r) -> StepSizing {
                    return Overrides{{"array.stride", bytes(r.fetch_of(base).value_or(32))}};
                  },
                  .needs = {base + "_fetch"},
                  .absorb = [cache](TopologyResult& r, const Findings& fs) { absorb::size(r.cache(cache), fs); }});
  TopologyStep sets = sets_step(cache, label + ", other carveout,", base);
  sets.in_fast_mode = false;
  plan.push_back(std::move(sets));
}

// Replacement: N = C + k b for k = 1, 2, 4, .., 128, s = b, as many rounds as fit. The way
// probabilities come from N = C + b (one set overflowed by one line); the larger N make
// misses frequent enough to form a latency level of their own, and give lines that miss in
// most rounds, where a policy keeps most lines at C + b (a few different lines missing in
// each pass, none in most of them: results/h100/README.md).
TopologyStep replacement_step(const std::string& cache, const std::string& label) {
  return {.id = cache + "_replacement",
          .label = label + " replacement",
          .cache = cache,
          .sizes_from = [cache](const TopologyResult& r) -> StepSizing {
            const auto c = r.size_of(cache);
            if (!c) return SkipStep{"the size was not measured"};
            const std::uint64_t b = step_bytes(r, cache);
            const std::uint64_t n = round_to(*c, b) + b;
            // On chip, two passes of each N at least: the larger k only where they fit.
            if (auto skip = too_few_passes(r, n / b, b, "C + b")) return *skip;
            const std::uint64_t room = on_chip_passes_room(r).value_or(UINT64_MAX);
            std::string list;
            for (std::uint64_t k = 1; k <= 128 && n / b + k - 1 <= room; k *= 2)
              list += (list.empty() ? "" : ", ") + bytes(n + (k - 1) * b);
            return Overrides{{"array.stride", bytes(b)},
                             {"array.size", bytes(n)},
                             {"iterations", std::to_string(on_chip_iterations(r, std::clamp<std::uint64_t>(64 * (n / b), 16384, 1u << 20)))},
                             {"sweep.array.size", "[" + list + "]"}};
          },
          .needs = line_and_size(cache),
          .absorb = [cache](TopologyResult& r, const Findings& fs) { absorb::replacement(r, cache, fs); }};
}

// Conflicts (Saavedra's large strides, timed on chip): lines s / 2, s and 3 s / 2 apart, s
// the power of two at or above C, 1 to 32 of them one at a time, then 8 at a time to 128 (at
// most C / b + 1). A modulo index over a power of two of sets (S b <= C / 2 <= s / 2) puts
// every such line into one set: at each stride as many lines fit as the set has ways. The
// odd multiple 3 s / 2 tells a set count with a factor 3 (lines s apart then spread over
// three sets, 3 s / 2 apart over one).
TopologyStep conflict_step(const std::string& cache, const std::string& label) {
  return {.id = cache + "_conflict",
          .label = label + " conflicts (large strides)",
          .cache = cache,
          .sizes_from = [cache](const TopologyResult& r) -> StepSizing {
            const auto c = r.size_of(cache);
            if (!c) return SkipStep{"the size was not measured"};
            const std::uint64_t b = step_bytes(r, cache);
            std::uint64_t s = b;
            while (s < *c) s *= 2;
            const std::uint64_t most = std::min<std::uint64_t>(128, *c / b + 1);
            std::vector<std::uint64_t> lines;
            for (std::uint64_t k = 1; k <= most; k += k < 32 ? 1 : 8) lines.push_back(k);
            std::string strides, sizes;
            for (const std::uint64_t stride : {s / 2, s, 3 * s / 2})
              for (const std::uint64_t k : lines) {
                strides += (strides.empty() ? "" : ", ") + bytes(stride);
                sizes += (sizes.empty() ? "" : ", ") + bytes(k * stride);
              }
            return Overrides{{"array.stride", bytes(s)},
                             {"array.size", bytes(s)},
                             {"iterations", std::to_string(on_chip_iterations(r, std::max<std::uint64_t>(4096, 16 * most)))},
                             {"sweep.zip", "[{array.stride: [" + strides + "], array.size: [" + sizes + "]}]"}};
          },
          .needs = line_and_size(cache),
          .absorb = [cache](TopologyResult& r, const Findings& fs) { absorb::conflict(r, cache, fs); }};
}

TopologyStep latency_step(const std::string& cache, const std::string& label) {
  return {.id = cache + "_latency",
          .label = label,
          .cache = cache,
          .needs = {},
          .absorb = [cache](TopologyResult& r, const Findings& fs) { absorb::latency(r, cache, fs); }};
}

TopologyStep fetch_step(const std::string& cache, const std::string& label) {
  return {.id = cache + "_fetch",
          .label = label + " fetch granularity",
          .cache = cache,
          .needs = {},
          .absorb = [cache](TopologyResult& r, const Findings& fs) { absorb::fetch(r, cache, fs); }};
}

// The steps of an SM-private cache; `structure`: also its line, sets and policy.
void add_cache_steps(std::vector<TopologyStep>& plan, const std::string& cache, const std::string& label,
                     bool structure) {
  plan.push_back(latency_step(cache, label + " latency"));
  plan.push_back(fetch_step(cache, label));
  plan.push_back(size_step(cache, label));
  if (!structure) return;
  plan.push_back(line_step(cache, label));
  plan.push_back(line_blocks_step(cache, label));
  plan.push_back(sets_step(cache, label));
  plan.push_back(replacement_step(cache, label));
  plan.push_back(conflict_step(cache, label));
}

// The steps each `add` makes for each of several caches, taken in turn: the first step of
// every cache, then the second of every cache, ... A step then waits less for the
// analysis of the step of its own cache before it, which runs while the other caches'
// steps measure (the caches' steps do not disturb each other's: each warms its own
// lines first).
void add_interleaved(std::vector<TopologyStep>& plan, const std::vector<std::pair<std::string, std::string>>& caches,
                     const std::function<void(std::vector<TopologyStep>&, const std::string&, const std::string&)>& add) {
  std::vector<std::vector<TopologyStep>> each;
  for (const auto& [cache, label] : caches) add(each.emplace_back(), cache, label);
  for (std::size_t i = 0;; ++i) {
    bool any = false;
    for (auto& steps : each)
      if (i < steps.size()) plan.push_back(std::move(steps[i])), any = true;
    if (!any) return;
  }
}

// Each array fits its own cache; together they overflow one shared cache.
TopologyStep sharing_step(const std::string& a, const std::string& b) {
  return {.id = "sharing_" + a + "_" + b,
          .label = a + " / " + b + " sharing",
          .sizes_from = [a, b](const TopologyResult& r) -> StepSizing {
            const auto ca = r.size_of(a), cb = r.size_of(b);
            if (!ca || !cb) return SkipStep{"a cache size was not measured"};
            const std::uint64_t n = round_to(std::min(*ca, *cb) * 8 / 10, 128);
            return Overrides{{"arrays.a.size", bytes(n)}, {"arrays.b.size", bytes(n)}};
          },
          .needs = {a + "_size", b + "_size"},
          .absorb = [a, b](TopologyResult& r, const Findings& fs) { absorb::sharing(r, a, b, fs); }};
}

// Bandwidth (bandwidth_measures(): one step per level and direction, its spec
// specs/topology/bandwidth_<key>.yaml): blocks in proportion to the device's SMs.
// One number per SM: layout.blocks (one block per SM: each SM's own shared memory or
// L1, and the SM's own clock times it); several: the sweep's layout.blocks.
TopologyStep bandwidth_step(const std::string& key, std::vector<std::uint64_t> blocks_per_sm) {
  const BandwidthMeasure* m = bandwidth_measure(key);
  return {.id = "bandwidth_" + key,
          .label = std::string(m != nullptr ? m->label : key.c_str()) + " bandwidth",
          .in_fast_mode = false,
          .sizes_from = [blocks_per_sm](const TopologyResult& r) -> StepSizing {
            Overrides o;
            if (!r.device.sm_count || *r.device.sm_count < 1) return o;
            const std::uint64_t sms = *r.device.sm_count;
            if (blocks_per_sm.size() == 1) {
              o.push_back({"layout.blocks", std::to_string(blocks_per_sm.front() * sms)});
            } else {
              std::string list;
              for (const auto k : blocks_per_sm) list += (list.empty() ? "" : ", ") + std::to_string(k * sms);
              o.push_back({"sweep.layout.blocks", "[" + list + "]"});
            }
            return o;
          },
          .needs = {},
          .absorb = [key](TopologyResult& r, const Findings& fs) { absorb::bandwidth(r, key, fs); }};
}

// An L2 bandwidth step: the array is half of what one SM was measured to fill, which
// stays in the L2 whichever SMs access it (the spec's size where that was not measured).
TopologyStep l2_bandwidth_step(const std::string& key) {
  TopologyStep s = bandwidth_step(key, {1});
  s.sizes_from = [outer = s.sizes_from](const TopologyResult& r) -> StepSizing {
    StepSizing sized = outer(r);
    if (const auto c = r.one_sm_size_of("l2"))
      std::get<Overrides>(sized).push_back({"array.size", bytes(round_to(*c / 2, 1024 * 1024))});
    return sized;
  };
  s.needs = {"l2_size"};
  return s;
}

// The array size of specs/topology/bandwidth_global{,_write}.yaml.
constexpr std::uint64_t kDramStepArray = 1ull << 30;

// A DRAM bandwidth step: 2, 4 and 8 blocks per SM (the blocks dimension of the
// search; every point more than one block per SM, so every figure is bytes over the
// kernel time); the array at least 16 times the L2 (the driver's size, else twice the
// one-SM figure), a power of two, where that exceeds the spec's 1 GiB, and at most a
// quarter of the device memory.
TopologyStep dram_bandwidth_step(const std::string& key) {
  TopologyStep s = bandwidth_step(key, {2, 4, 8});
  s.sizes_from = [outer = s.sizes_from](const TopologyResult& r) -> StepSizing {
    StepSizing sized = outer(r);
    std::optional<std::uint64_t> l2 = r.driver.l2_bytes;
    if (!l2 || *l2 == 0) {
      if (const auto c = r.one_sm_size_of("l2")) l2 = 2 * *c;
    }
    if (l2 && *l2 > 0) {
      std::uint64_t n = kDramStepArray;
      while (n < 16 * *l2) n *= 2;
      if (r.device.memory_bytes) n = std::max<std::uint64_t>(kDramStepArray, std::min(n, *r.device.memory_bytes / 4));
      if (n > kDramStepArray) std::get<Overrides>(sized).push_back({"array.size", bytes(n)});
    }
    return sized;
  };
  s.needs = {"l2_size"};
  return s;
}

// One block per SM for the whole-L2 and partition-map steps (at most 1024).
std::uint64_t l2_whole_sms(const TopologyResult& r) { return std::min<std::uint64_t>(r.device.sm_count.value_or(1), 1024); }

// The page-size step: N fixed at twice the first TLB level's coverage (known,
// or the top of its range), rounded up to a power of two, at least 1 GiB and at
// most what 'tlb' could allocate and 2^20 slots of the smallest stride (4 KiB:
// a warm-up pass of a million accesses); strides from 4 KiB to N / 8.
StepSizing page_sweep(const TopologyResult& r) {
  constexpr std::uint64_t kMinN = 1ull << 30, kMinStride = 4096, kMaxSlots = 1ull << 20;
  std::uint64_t n = kMinN;
  if (r.tlb && r.tlb->levels && !r.tlb->levels->empty()) {
    const auto& L = r.tlb->levels->front();
    std::uint64_t cov = 0;
    if (L.contains("coverage_bytes") && L["coverage_bytes"].is_number()) cov = L["coverage_bytes"].get<std::uint64_t>();
    else if (L.contains("coverage_range_bytes") && L["coverage_range_bytes"].is_array() &&
             L["coverage_range_bytes"].size() == 2 && L["coverage_range_bytes"][1].is_number())
      cov = L["coverage_range_bytes"][1].get<std::uint64_t>();
    n = std::max(n, 2 * cov);
  }
  std::uint64_t pow2 = kMinStride;  // N a power of two: every stride divides it
  while (pow2 < n) pow2 *= 2;
  const std::uint64_t cap = std::min(tlb_sweeps::limits(r).contiguous_cap, kMaxSlots * kMinStride);
  while (pow2 > cap && pow2 > kMinStride) pow2 /= 2;
  n = pow2;
  return Overrides{{"array.size", bytes(n)},
                   {"sweep.array.stride", "{from: " + bytes(kMinStride) + ", to: " + bytes(n / 8) + ", factor: 2}"}};
}

}  // namespace

std::vector<TopologyStep> topology_plan() {
  std::vector<TopologyStep> plan;
  const std::vector<std::pair<std::string, std::string>> l1_paths{
      {"l1", "L1 data"}, {"texture", "texture"}, {"readonly", "read-only"}};
  add_interleaved(plan, l1_paths, [](std::vector<TopologyStep>& steps, const std::string& cache, const std::string& label) {
    add_cache_steps(steps, cache, label, true);
  });
  plan.push_back(latency_step("l2", "L2 latency"));
  plan.push_back(fetch_step("l2", "L2"));
  {
    // What one SM fills: size_bytes until l2_whole_size measures every SM, one_sm_bytes for good.
    TopologyStep s = size_step("l2", "L2");
    s.absorb = absorb::l2_one_sm;
    plan.push_back(std::move(s));
  }
  // Steps that need nothing of the L2, measured while its one-SM size is analysed.
  add_cache_steps(plan, "constant_l1", "constant L1", false);
  plan.push_back(sharing_step("l1", "texture"));
  plan.push_back(sharing_step("l1", "readonly"));
  plan.push_back(sharing_step("texture", "readonly"));
  plan.push_back({.id = "amount_texture",
                  .label = "texture caches per SM",
                  .cache = "texture",
                  .sizes_from = [](const TopologyResult& r) -> StepSizing {
                    const auto c = r.size_of("texture");
                    if (!c) return SkipStep{"the texture cache size was not measured"};
                    const std::uint64_t n = round_to(*c * 8 / 10, 128);
                    return Overrides{{"arrays.base.size", bytes(n)}, {"arrays.test.size", bytes(n)}};
                  },
                  .needs = {"texture_size"},
                  .absorb = absorb::texture_amount});
  // The L1 data, texture and read-only paths under another L1/shared split (the specs'
  // carveout): each one's size by the same knee search at its fetch granularity, then the
  // on-chip stage sweep at its line.
  add_interleaved(plan, l1_paths, add_carveout_steps);
  // TLB levels: where each runs out at strides of 4 KiB to 1 GiB (coverage,
  // span, penalties); the page (the stride the later steps sweep at); a widely
  // bracketed coverage narrowed; then one slot at a time past each level's
  // knee (entries, reach, sets). The footprint sweep needs the L2's size: it comes after the
  // steps above, which need nothing of the L2 and measure while the one-SM L2 is analysed
  // (that analysis, beside the L1 paths' stage analyses, can take twice its time alone), and
  // before the L2's other steps, which measure while the sweep is analysed. Its slots lie in
  // aliased frames, an arena of their own: the contiguous arrays of those steps stay where
  // they were.
  plan.push_back({.id = "tlb",
                  .label = "TLB levels (footprint)",
                  .sizes_from = [](const TopologyResult& r) -> StepSizing {
                    return tlb_sweeps::footprint_sweep(tlb_sweeps::limits(r));
                  },
                  .needs = {"l2_size"},
                  .absorb = absorb::tlb_levels});
  plan.push_back(latency_step("constant_l15", "constant L1.5 latency"));
  // Beyond the constant L1 (MT4G Sec. 4.2 starts the L1.5 run where the L1 run ends),
  // stepping by the L1's line so that every access misses the L1; the spec's sweep
  // where the L1 was not measured or the sweep would start past its end.
  plan.push_back({.id = "constant_l15_size",
                  .label = "constant L1.5 size",
                  .cache = "constant_l15",
                  .sizes_from = [](const TopologyResult& r) -> StepSizing {
                    const std::uint64_t l1 = r.size_of("constant_l1").value_or(4096);
                    const std::uint64_t line = r.fetch_of("constant_l1").value_or(64);
                    const std::uint64_t from = round_to(2 * l1, 1024);
                    if (from >= 63 * 1024) return Overrides{};
                    return Overrides{{"array.stride", bytes(line)},
                                     {"array.size", bytes(from)},
                                     {"sweep.array.size", "{from: " + bytes(from) + ", to: 63 KiB, step: 1 KiB}"}};
                  },
                  .needs = {"constant_l1_fetch", "constant_l1_size"},
                  .absorb = absorb::constant_l15_size});
  {
    // Each repeat walks a warm-up pass over 1.25 times the L2 at every block size: the
    // step's kernel time, most of a --fast topology's. One launch already sets the
    // block sizes that overflow the L2 (DRAM latency) apart from those that fit.
    TopologyStep s = line_blocks_step("l2", "L2");
    s.fast_overrides = {{"repeats", "1"}};
    plan.push_back(std::move(s));
  }
  // A random chase over half the measured L2: every access an L2 hit, near or far.
  plan.push_back({.id = "l2_partitions",
                  .label = "L2 latency levels",
                  .cache = "l2",
                  .sizes_from = [](const TopologyResult& r) -> StepSizing {
                    const auto c = r.one_sm_size_of("l2");
                    if (!c) return SkipStep{"the L2 size was not measured"};
                    return Overrides{{"array.size", bytes(round_to(*c / 2, 128))}};
                  },
                  .needs = {"l2_size"},
                  .absorb = absorb::l2_levels});
  // The L2 every SM fills at once, each with lines of its own: one block per SM (up to
  // 1024), an array per block; the knee search runs over the per-SM size, from an eighth of
  // the one-SM figure's share to twice the driver's L2 in all (eight times the one-SM
  // figure where the device reports no L2 size).
  plan.push_back({.id = "l2_whole_size",
                  .label = "L2 size (every SM)",
                  .cache = "l2",
                  .sizes_from = [](const TopologyResult& r) -> StepSizing {
                    const std::uint64_t sms = l2_whole_sms(r);
                    if (sms < 2) return SkipStep{"one SM: the one-SM L2 size is the whole"};
                    const auto one = r.one_sm_size_of("l2");
                    if (!one) return SkipStep{"the L2 size seen from one SM was not measured"};
                    // A line per slot (the measured line, else the fetch granularity).
                    const std::uint64_t stride = step_bytes(r, "l2");
                    // Without the driver's L2 (a simulated GPU), four times the one-SM figure:
                    // room for every SM's knee where P partitions each keep their SMs' lines.
                    const std::uint64_t whole =
                        r.driver.l2_bytes ? std::max(*one, *r.driver.l2_bytes) : 4 * *one;
                    const std::uint64_t from = std::max(stride * 64, round_to(*one / 8 / sms, stride));
                    const std::uint64_t to = std::max(2 * from, round_to(2 * whole / sms, stride));
                    return Overrides{{"array.stride", bytes(stride)},
                                     {"layout.blocks", std::to_string(sms)},
                                     {"sweep.array.size", "{search: knee, from: " + bytes(from) + ", to: " + bytes(to) +
                                                              ", resolution: 4%}"}};
                  },
                  .needs = {"l2_fetch", "l2_size", "l2_line_blocks"},
                  .absorb = [](TopologyResult& r, const Findings& fs) { absorb::l2_whole(r, fs, l2_whole_sms(r)); }});
  // Which SMs are near which partition, and which lines each holds: every SM (up to 1024)
  // over the same lines, 2 MiB (the driver's allocation granularity: one large page, whose
  // address bits 8-20 the XOR search can then try, all the bits virtual and physical
  // addresses share) or less, a quarter of the one-SM L2 at most; every access of one pass
  // timed (each SM votes every line once; 132 SMs' votes label a line).
  plan.push_back({.id = "l2_partition_map",
                  .label = "L2 partitions (SMs and lines)",
                  .cache = "l2",
                  .sizes_from = [](const TopologyResult& r) -> StepSizing {
                    const std::uint64_t sms = l2_whole_sms(r);
                    if (sms < 2) return SkipStep{"one SM: no SM is nearer a partition than another"};
                    const auto one = r.one_sm_size_of("l2");
                    if (!one) return SkipStep{"the L2 size seen from one SM was not measured"};
                    std::uint64_t n = 2 * 1024 * 1024;
                    while (n > 64 * 128 && n > *one / 4) n /= 2;  // every line an L2 hit from every SM
                    const std::uint64_t lines = n / 128;
                    return Overrides{{"array.size", bytes(n)},
                                     {"layout.blocks", std::to_string(sms)},
                                     {"layout.thread_offset", bytes(std::max<std::uint64_t>(1, lines / sms) * 128)},
                                     {"iterations", std::to_string(lines)}};  // one pass
                  },
                  .needs = {"l2_size"},
                  .absorb = absorb::l2_partition_map});
  plan.push_back(latency_step("dram", "main memory latency"));
  plan.push_back(latency_step("shared", "shared memory latency"));
  plan.push_back(
      {.id = "shared_banks", .label = "shared memory banks", .cache = "shared", .needs = {}, .absorb = absorb::banks});
  // The page: N past the first TLB level's coverage (every level whose reach is
  // the page then misses at the largest strides), at least the spec's 1 GiB.
  plan.push_back({.id = "page_size",
                  .label = "page size",
                  .sizes_from = [](const TopologyResult& r) -> StepSizing {
                    return page_sweep(r);
                  },
                  .needs = {"l2_size", "tlb"},
                  .absorb = absorb::page_size});
  // The page itself: the same sweep over scattered frames, where no entry can
  // coalesce pages (the reach above is then told from the page).
  plan.push_back({.id = "page_size_scattered",
                  .label = "page size (scattered frames)",
                  .sizes_from = [](const TopologyResult& r) -> StepSizing {
                    return page_sweep(r);
                  },
                  .needs = {"l2_size", "tlb", "page_size"},
                  .absorb = absorb::page_size_scattered});
  plan.push_back({.id = "tlb_entries",
                  .label = "TLB coverage (narrowed)",
                  .sizes_from = [](const TopologyResult& r) -> StepSizing {
                    const auto ranges = tlb_sweeps::entry_ranges(r);
                    if (ranges.empty())
                      return SkipStep{r.tlb && r.tlb->levels ? "every level's coverage is bracketed narrowly already"
                                                             : "no TLB level was found"};
                    return tlb_sweeps::range_sweep(ranges, tlb_sweeps::limits(r));
                  },
                  .needs = {"l2_size", "tlb", "page_size", "page_size_scattered"},
                  .absorb = absorb::tlb_entries});
  // Bandwidth, read and write of each level: after every step over ordinary frames, so
  // that what they allocate cannot move the arrays of the steps above (the one-SM L2 steps
  // depend on where their arrays lie: results/h100/README.md); the reads before the
  // writes, so that no read starts with an L2 of lines a write step left dirty. Between
  // them the stage sweep, whose slots lie in aliased frames of their own: the reads are
  // measured while tlb_entries is analysed, the writes while tlb_sets is.
  plan.push_back(bandwidth_step("shared", {1}));
  plan.push_back(dram_bandwidth_step("global"));
  plan.push_back(bandwidth_step("l1", {1}));
  plan.push_back(l2_bandwidth_step("l2"));
  plan.push_back({.id = "tlb_sets",
                  .label = "TLB entries and sets",
                  .sizes_from = [](const TopologyResult& r) -> StepSizing {
                    const auto ranges = tlb_sweeps::stage_ranges(r);
                    if (ranges.empty()) return SkipStep{"no TLB level was found"};
                    return tlb_sweeps::stage_sweep(ranges, tlb_sweeps::limits(r));
                  },
                  .needs = {"l2_size", "tlb", "page_size", "page_size_scattered", "tlb_entries"},
                  .absorb = absorb::tlb_sets});
  plan.push_back(bandwidth_step("shared_write", {1}));
  plan.push_back(l2_bandwidth_step("l2_write"));
  plan.push_back(bandwidth_step("l1_write", {1}));
  {
    // The same stores without the L1: what tells write-through from write-back.
    TopologyStep control = bandwidth_step("l1_write", {1});
    control.id = "bandwidth_l1_write_control";
    control.label = "L1 write control (no L1)";
    control.absorb = absorb::l1_write_control;
    plan.push_back(std::move(control));
  }
  plan.push_back(dram_bandwidth_step("global_write"));
  // After the bandwidth writes, which the GPU measures while the stage sweep's analysis, on
  // which these two wait, runs; their arrays lie in aliased frames of their own (as the
  // stage sweep's do). One set or several: slots spread over
  // every set at a stride just above each open level's span (one set of entries of the
  // span and S sets of span / S run out at the same slots at the span itself).
  plan.push_back({.id = "tlb_spread",
                  .label = "TLB sets (slots spread over them)",
                  .sizes_from = [](const TopologyResult& r) -> StepSizing {
                    const auto ranges = tlb_sweeps::spread_ranges(r);
                    if (ranges.empty())
                      return SkipStep{r.tlb && r.tlb->levels && !r.tlb->levels->empty()
                                          ? "no level with a span and open (or one) set fits the slot limits"
                                          : "no TLB level was found"};
                    return tlb_sweeps::spread_sweep(ranges);
                  },
                  .needs = {"l2_size", "tlb", "page_size", "page_size_scattered", "tlb_entries", "tlb_sets"},
                  .absorb = absorb::tlb_spread});
  // A reach below the span: where slots spread over the sets fit more entries than the span
  // held, strides of half and a quarter of the span tell whether strides of the span fill
  // only some of the sets (tlb_sweeps.hpp).
  // Not in --fast: the spread step's bounds stand there.
  plan.push_back({.id = "tlb_reach",
                  .label = "TLB reach (strides below the span)",
                  .in_fast_mode = false,
                  .sizes_from = [](const TopologyResult& r) -> StepSizing {
                    const auto ranges = tlb_sweeps::reach_ranges(r);
                    if (ranges.empty())
                      return SkipStep{r.tlb && r.tlb->levels && !r.tlb->levels->empty()
                                          ? "no level holds more slots spread over its sets than at its span"
                                          : "no TLB level was found"};
                    return tlb_sweeps::reach_sweep(ranges);
                  },
                  .needs = {"l2_size", "tlb", "page_size", "page_size_scattered", "tlb_entries", "tlb_sets", "tlb_spread"},
                  .absorb = absorb::tlb_reach});
  // Per SM or shared: B SMs at once (up to every SM), each chasing 3/4 of a level's entries
  // over slots of its own; a level the B share runs out, private ones do not.
  plan.push_back({.id = "tlb_scope",
                  .label = "TLB scope (SMs at once)",
                  .sizes_from = [](const TopologyResult& r) -> StepSizing {
                    const auto ranges = tlb_sweeps::scope_ranges(r);
                    if (ranges.empty())
                      return SkipStep{r.tlb && r.tlb->levels && !r.tlb->levels->empty()
                                          ? "no level's entries fit two SMs' chases within the slot and memory limits"
                                          : "no TLB level was found"};
                    return tlb_sweeps::scope_sweep(ranges);
                  },
                  .needs = {"l2_size", "tlb", "page_size", "page_size_scattered", "tlb_entries", "tlb_sets", "tlb_spread"},
                  .absorb = absorb::tlb_scope});
  return plan;
}

}  // namespace dissect
