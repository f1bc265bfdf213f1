// End-to-end runs of specs on the simulated GPU, checked against what the seed
// documents report (miss patterns of the fine-grained P-chase, latencies of
// Mei et al. Tables 3 and 5, Meltzer et al.'s C2070 averages, MT4G's caches per
// SM) and against the profiles' ground truth.
#include "engine/device/sim/sim_kernels.hpp"
#include "engine/device/sim/memory_system.hpp"

#include <doctest/doctest.h>

#include <map>
#include <set>

#include "tests/engine/device/sim/sim_test_support.hpp"

using namespace dissect;
using namespace dissect::test;

namespace {

std::string chase(const std::string& path, const std::string& size, const std::string& stride,
                  const std::string& extra = "") {
  std::string s = "dissect: 1\nname: t\nkernel: pchase\nelement: u32\npath: " + path + "\narray: {size: " + size +
                  ", stride: " + stride + "}\n";
  if (extra.find("iterations:") == std::string::npos) s += "iterations: 4096\n";
  if (extra.find("warmup:") == std::string::npos) s += "warmup: 1\n";
  return s + extra;
}

// Element index (u32) -> latency, for the first timed visit of each element.
std::map<std::uint64_t, double> by_element(const PointTrace& t) {
  std::map<std::uint64_t, double> m;
  for (const auto& s : t.samples)
    if (s.thread == 0) m.emplace(s.offset_bytes / 4, s.latency);
  return m;
}

}  // namespace

TEST_CASE("Fermi texture L1, stage 1: N = C + 1 element, s = 1 element gives one miss in eight (seed 000)") {
  auto dev = sim_device("fermi-gtx560ti");
  const PointTrace t = run_spec_point(dev, chase("tex", "3073 elements", "1 element"));
  REQUIRE(t.samples.size() == 4096);
  CHECK(t.accesses_per_pass == 3073);
  CHECK(t.timer_overhead_cycles == 20);
  const auto lat = by_element(t);
  // Seed 000, fermi-3073element-stride1.txt: elements 1024..1040 (Next_id 1025..1041):
  // 488, then seven hits, 488, seven hits, 488.
  for (std::uint64_t e = 1024; e <= 1040; ++e) {
    CAPTURE(e);
    if (e % 8 == 0) CHECK(lat.at(e) == 470);  // seed 003 Table 5: texture L1 miss, L2 hit
    else CHECK(lat.at(e) == 240);             // seed 003 Table 5: texture L1 hit
  }
  // Stage 1's deduction: the misses are the first word of each line of the first set,
  // and the pattern repeats every pass (LRU).
  std::uint64_t misses = 0;
  for (const auto& s : t.samples) {
    const std::uint64_t line = s.offset_bytes / 32;
    const bool first_set = (line / 4) % 4 == 0;
    const bool first_word = s.offset_bytes % 32 == 0;
    CHECK((s.latency > 300) == (first_set && first_word));
    misses += s.latency > 300;
  }
  CHECK(misses == 97 + 32);  // 97 lines of set 0 in the first pass, 32 in the 1023 loads after it
}

TEST_CASE("Fermi texture L1, stage 2-1: s = 32 B, N = C + 32 B gives four misses then twelve hits (seed 000)") {
  auto dev = sim_device("fermi-gtx560ti");
  const auto lat = by_element(run_spec_point(dev, chase("tex", "3080 elements", "8 elements")));
  // fermi-3080element-8stride.txt: elements 1024..1152 step 8.
  for (std::uint64_t e = 1024; e <= 1152; e += 8) {
    CAPTURE(e);
    const bool miss = e < 1056 || e == 1152;
    CHECK((lat.at(e) > 300) == miss);
  }
}

TEST_CASE("Fermi texture L1, stage 2-2: N = 3112 elements misses the second set too (seed 000)") {
  auto dev = sim_device("fermi-gtx560ti");
  const auto lat = by_element(run_spec_point(dev, chase("tex", "3112 elements", "8 elements")));
  for (std::uint64_t e = 1024; e <= 1152; e += 8) {
    CAPTURE(e);
    CHECK((lat.at(e) > 300) == (e < 1088 || e == 1152));
  }
  // "When N is equal to or larger than 3176 and s is 8, all the memory loading are cache misses."
  const PointTrace all = run_spec_point(dev, chase("tex", "3176 elements", "8 elements"));
  for (const auto& s : all.samples) CHECK(s.latency > 300);
  // And up to C = 3072 elements nothing misses after the warm-up.
  const PointTrace fits = run_spec_point(dev, chase("tex", "3072 elements", "1 element"));
  for (const auto& s : fits.samples) CHECK(s.latency == 240);
}

TEST_CASE("Maxwell texture L1 is 24 KB: misses start at N = 6145 elements (seed 000)") {
  auto dev = sim_device("maxwell-gtx980");
  auto misses = [&](const std::string& n) {
    int m = 0;
    for (const auto& s : run_spec_point(dev, chase("tex", n, "1 element")).samples) m += s.latency > 150;
    return m;
  };
  CHECK(misses("6144 elements") == 0);
  CHECK(misses("6145 elements") > 0);
}

TEST_CASE("Fermi L1: non-LRU replacement makes the miss pattern aperiodic (seed 003 Sec. 4.2)") {
  auto dev = sim_device("fermi-gtx560ti");
  // N = C + b, s = b on the 16 KB configuration (48 KB of shared memory).
  const std::string spec = chase("ca", "16512 B", "128 B", "carveout: max_shared\n");
  const PointTrace t = run_spec_point(dev, std::string(spec).replace(spec.find("iterations: 4096"), 16, "iterations: 12900"));
  const std::uint64_t app = t.accesses_per_pass;
  REQUIRE(app == 129);
  std::vector<std::set<std::uint64_t>> missed(t.samples.size() / app);
  for (const auto& s : t.samples) {
    if (s.latency > 200) {
      // Only lines of the first set (every 32nd line) ever miss...
      CHECK((s.offset_bytes / 128) % 32 == 0);
      // ... at Table 5's "L1 miss, L2 hit" latency; hits at Table 3's L1 hit latency.
      CHECK(s.latency == 404);
      missed[s.seq / app].insert(s.offset_bytes);
    } else {
      CHECK(s.latency == 116);
    }
  }
  // Aperiodic: not every pass misses the same lines (an LRU cache would miss all five each pass).
  std::set<std::set<std::uint64_t>> patterns(missed.begin(), missed.end());
  CHECK(patterns.size() > 10);
  std::size_t total = 0;
  for (const auto& m : missed) total += m.size();
  CHECK(total < missed.size() * 5);  // fewer misses than LRU's five per pass
  // With the default carveout for an L1 test (max L1 = 48 KB) the same array fits.
  const PointTrace big = run_spec_point(dev, chase("ca", "16512 B", "128 B"));
  for (const auto& s : big.samples) CHECK(s.latency == 116);
}

TEST_CASE("Fermi TLBs: 16-entry L1 TLB, 65-entry L2 TLB with a 17-entry set (seed 003 Table 3, Fig. 11)") {
  auto dev = sim_device("fermi-gtx560ti");
  auto pass_latencies = [&](int pages) {
    const PointTrace t =
        run_spec_point(dev, chase("cg", std::to_string(2 * pages) + " MiB", "2 MiB", "target: tlb\n"));
    std::map<double, int> count;  // latency -> accesses in the first timed pass
    for (const auto& s : t.samples)
      if (s.seq < static_cast<std::uint64_t>(pages)) ++count[s.latency];
    return count;
  };
  // Table 3, L1 disabled: pattern 1 (L2 hit, TLB hit) 371, pattern 2 (L1 TLB miss) 398,
  // pattern 3 (L2 TLB miss too) 482.
  CHECK(pass_latencies(16) == std::map<double, int>{{371, 16}});      // 32 MB: fits the L1 TLB
  CHECK(pass_latencies(17) == std::map<double, int>{{398, 17}});      // 34 MB: L1 TLB misses
  CHECK(pass_latencies(65) == std::map<double, int>{{398, 65}});      // 130 MB: fits the L2 TLB
  // 132 MB: the big set overflows: its 18 pages miss each pass under LRU.
  CHECK(pass_latencies(66) == std::map<double, int>{{398, 48}, {482, 18}});
  // Each further 2 MB overflows one of the six 8-entry sets: 9 more misses.
  CHECK(pass_latencies(67) == std::map<double, int>{{398, 40}, {482, 27}});
  CHECK(pass_latencies(68) == std::map<double, int>{{398, 32}, {482, 36}});
}

TEST_CASE("coalesced TLB entries: one entry holds 16 consecutive 2 MiB pages (tlb-coalesced profile)") {
  auto dev = sim_device("tlb-coalesced");
  const double l1_miss = library_profile("tlb-coalesced").tlb[0].miss_penalty;
  // Latencies of the first timed pass of a chase over `slots` slots `stride` apart.
  auto pass = [&](int slots, const std::string& stride_bytes, std::uint64_t stride) {
    const PointTrace t = run_spec_point(
        dev, chase("cg", std::to_string(static_cast<std::uint64_t>(slots) * stride) + " B", stride_bytes,
                   "target: tlb\n"));
    std::map<double, int> count;
    for (const auto& s : t.samples)
      if (s.seq < static_cast<std::uint64_t>(slots)) ++count[s.latency];
    return count;
  };
  const std::uint64_t page = 2u << 20;
  // 256 pages are 16 entries: the 16-entry first level holds them all (one
  // latency: an L2 hit, no TLB miss).
  const auto fit = pass(256, "2 MiB", page);
  REQUIRE(fit.size() == 1);
  const double hit = fit.begin()->first;
  CHECK(fit.begin()->second == 256);
  // One page more is a 17th entry: under LRU every entry misses once a pass,
  // on the first of its 16 pages; the other 15 find it.
  const auto over = pass(257, "2 MiB", page);
  CHECK(over.at(hit + l1_miss) == 17);
  CHECK(over.at(hit) == 240);
  // At a stride of the reach every slot is an entry: 16 fit, 17 miss all.
  CHECK(pass(16, "32 MiB", 16 * page) == std::map<double, int>{{hit, 16}});
  CHECK(pass(17, "32 MiB", 16 * page) == std::map<double, int>{{hit + l1_miss, 17}});
}

TEST_CASE("C2070 chain averages: L1 ~80, L2 ~350, global ~580 cycles; L2 lower with L1 off (seed 002)") {
  auto dev = sim_device("tesla-c2070");
  const std::string base = "timing: {mode: chain}\ncarveout: max_shared\n";
  auto avg = [&](const std::string& path, const std::string& size) {
    const PointTrace t = run_spec_point(dev, chase(path, size, "128 B", base));
    REQUIRE(t.samples.size() == 1);
    CHECK(t.samples[0].seq == 0);
    return t.samples[0].latency;
  };
  CHECK(avg("ca", "8 KiB") == doctest::Approx(80).epsilon(0.01));
  CHECK(avg("ca", "256 KiB") == doctest::Approx(350).epsilon(0.01));
  CHECK(avg("ca", "8 MiB") == doctest::Approx(580).epsilon(0.01));
  const double l2_off = avg("cg", "256 KiB");
  CHECK(avg("ca", "256 KiB") - l2_off >= 6);
  CHECK(avg("ca", "256 KiB") - l2_off <= 11);
}

TEST_CASE("chain mode: one sample per chaser per repeat; per-access mode agrees with it") {
  auto dev = sim_device("fermi-gtx560ti");
  const PointTrace chain = run_spec_point(dev, chase("tex", "3080 elements", "8 elements", "timing: {mode: chain}\nrepeats: 3\n"));
  REQUIRE(chain.samples.size() == 3);
  CHECK(chain.samples[2].seq == 2);
  const PointTrace fine = run_spec_point(dev, chase("tex", "3080 elements", "8 elements"));
  double sum = 0;
  for (const auto& s : fine.samples) sum += s.latency - fine.timer_overhead_cycles;
  CHECK(chain.samples[0].latency == doctest::Approx(sum / 4096).epsilon(0.001));
  // Two chasers: samples ordered by repeat, then chaser.
  const PointTrace two = run_spec_point(
      dev, chase("tex", "3080 elements", "8 elements",
                 "timing: {mode: chain}\nrepeats: 2\nlayout: {threads: 2, chasers: all, thread_offset: 1 KiB}\n"));
  REQUIRE(two.samples.size() == 4);
  CHECK(two.samples[0].thread == 0);
  CHECK(two.samples[1].thread == 1);
  CHECK(two.samples[1].offset_bytes == 1024);
  CHECK(two.samples[2].seq == 1);
}

TEST_CASE("on_chip mode: the per-access samples as the kernel keeps them (2-cycle units, saturating at 510)") {
  auto dev = sim_device("fermi-gtx560ti");
  // Fermi texture L1 stage 2-1: four misses then twelve hits, as in per-access mode.
  const PointTrace fine = run_spec_point(dev, chase("tex", "3080 elements", "8 elements"));
  const PointTrace on_chip = run_spec_point(dev, chase("tex", "3080 elements", "8 elements", "timing: {mode: on_chip}\n"));
  REQUIRE(on_chip.samples.size() == fine.samples.size());
  for (std::size_t i = 0; i < fine.samples.size(); ++i) {
    CAPTURE(i);
    CHECK(on_chip.samples[i].offset_bytes == fine.samples[i].offset_bytes);
    const double want = std::min(2.0 * std::floor(fine.samples[i].latency / 2 + 0.5), 510.0);
    CHECK(on_chip.samples[i].latency == want);
  }
  // A DRAM access of the C2070 (~580 cycles) saturates at 510.
  auto c2070 = sim_device("tesla-c2070");
  const PointTrace far = run_spec_point(c2070, chase("cg", "64 MiB", "1 MiB", "timing: {mode: on_chip}\nwarmup: 0\niterations: 16\n"));
  double top = 0;
  for (const auto& x : far.samples) top = std::max(top, x.latency);
  CHECK(top == 510.0);
  // timing.unit 4: 4-cycle units, up to 1020 cycles: the DRAM access is recorded, not saturated.
  const PointTrace wide =
      run_spec_point(c2070, chase("cg", "64 MiB", "1 MiB", "timing: {mode: on_chip, unit: 4}\nwarmup: 0\niterations: 16\n"));
  REQUIRE(wide.samples.size() == far.samples.size());
  double widest = 0;
  for (const auto& x : wide.samples) {
    CHECK(std::fmod(x.latency, 4.0) == 0);
    widest = std::max(widest, x.latency);
  }
  CHECK(widest > 510.0);
  CHECK(widest < 1020.0);
}

TEST_CASE("Fermi shared memory: latency over stride follows the bank conflict degree (seed 003 Fig. 5)") {
  auto dev = sim_device("fermi-gtx560ti");
  auto lat = [&](int stride_elements) {
    const PointTrace t = run_spec_point(dev, "dissect: 1\nname: s\nkernel: shared_stride\nelement: u32\n"
                                             "array: {size: 8 KiB, stride: " + std::to_string(stride_elements) +
                                                 " elements}\nlayout: {threads: 32, chasers: all}\n"
                                                 "iterations: 64\nrepeats: 2\n");
    REQUIRE(t.samples.size() == 64);  // one per lane per repeat
    for (const auto& s : t.samples) CHECK(s.latency == t.samples[0].latency);
    CHECK(t.samples[31].offset_bytes == 31u * stride_elements * 4);
    return t.samples[0].latency - 20.0 / 64;  // one timer overhead over 64 reads
  };
  CHECK(lat(0) == doctest::Approx(50));    // broadcast
  CHECK(lat(1) == doctest::Approx(50));    // no conflict
  CHECK(lat(2) == doctest::Approx(88));    // 2-way
  CHECK(lat(6) == doctest::Approx(88));    // gcd(6, 32) = 2
  CHECK(lat(3) == doctest::Approx(50));    // odd strides: no conflict
  CHECK(lat(32) == doctest::Approx(50 + 31 * 38));  // 32-way: ~1210 reported
}

TEST_CASE("caches per SM: Maxwell has two texture caches, Kepler four (seed 004 Sec. 4.6)") {
  auto measure = [](const std::string& profile, const std::string& size, int test_thread) {
    auto dev = sim_device(profile);
    const std::string spec = "dissect: 1\nname: amount\nkernel: phases\ntarget: texture\nelement: u32\n"
                             "layout: {threads: 1024}\n"
                             "arrays:\n  base: {path: tex, size: " + size + ", stride: 32 B}\n"
                             "  test: {path: tex, size: " + size + ", stride: 32 B}\n"
                             "phases:\n  - {thread: 0, array: base, action: warm}\n"
                             "  - {thread: " + std::to_string(test_thread) + ", array: test, action: warm}\n"
                             "  - {thread: 0, array: base, action: measure}\n";
    const PointTrace t = run_spec_point(dev, spec);
    int misses = 0;
    for (const auto& s : t.samples) {
      CHECK(s.phase == 0);
      misses += s.latency > 150;
    }
    return misses;
  };
  // Maxwell: warps 0, 2, 4, ... share thread 0's cache.
  CHECK(measure("maxwell-gtx980", "16 KiB", 32) == 0);
  CHECK(measure("maxwell-gtx980", "16 KiB", 64) > 0);
  CHECK(measure("maxwell-gtx980", "16 KiB", 96) == 0);
  // Kepler: warps 4, 8, ... share it.
  CHECK(measure("kepler-gtx780", "8 KiB", 32) == 0);
  CHECK(measure("kepler-gtx780", "8 KiB", 64) == 0);
  CHECK(measure("kepler-gtx780", "8 KiB", 96) == 0);
  CHECK(measure("kepler-gtx780", "8 KiB", 128) > 0);
}

TEST_CASE("cache sharing: Kepler's L1 is apart from texture, Maxwell's is the same cache (seed 004 Sec. 4.5)") {
  auto misses = [](const std::string& profile) {
    auto dev = sim_device(profile);
    const std::string spec = "dissect: 1\nname: share\nkernel: phases\ntarget: l1\nelement: u32\n"
                             "layout: {threads: 2}\n"
                             "arrays:\n  data: {path: ca, size: 8 KiB, stride: 32 B}\n"
                             "  tex: {path: tex, size: 8 KiB, stride: 32 B}\n"
                             "phases:\n  - {thread: 0, array: data, action: warm}\n"
                             "  - {thread: 1, array: tex, action: warm}\n"
                             "  - {thread: 0, array: data, action: measure}\n"
                             "  - {thread: 1, array: tex, action: measure}\n";
    const PointTrace t = run_spec_point(dev, spec);
    std::map<std::uint32_t, int> by_phase;
    for (const auto& s : t.samples) by_phase[s.phase] += 0;
    CHECK(by_phase.size() == 2);
    int m = 0;
    for (const auto& s : t.samples) m += s.latency > 150;
    return m;
  };
  CHECK(misses("kepler-gtx780") == 0);
  // Maxwell: 16 KiB of two arrays in one 24 KiB cache of 4 sets... both fit: use bigger arrays.
  auto dev = sim_device("maxwell-gtx980");
  const std::string spec = "dissect: 1\nname: share\nkernel: phases\ntarget: l1\nelement: u32\n"
                           "layout: {threads: 2}\n"
                           "arrays:\n  data: {path: ca, size: 16 KiB, stride: 32 B}\n"
                           "  tex: {path: tex, size: 16 KiB, stride: 32 B}\n"
                           "phases:\n  - {thread: 0, array: data, action: warm}\n"
                           "  - {thread: 1, array: tex, action: warm}\n"
                           "  - {thread: 0, array: data, action: measure}\n";
  int m = 0;
  for (const auto& s : run_spec_point(dev, spec).samples) m += s.latency > 150;
  CHECK(m > 0);
}

TEST_CASE("H100: L2 hits near, on copies of far data, and far; DRAM near and far (PITFALLS: L2 is split)") {
  auto dev = sim_device("h100-sxm");
  const sim::Profile& p = dev.profile();
  const auto l2 = p.find_cache("l2");
  REQUIRE(l2);
  const sim::CacheSpec& c = p.caches[*l2];
  auto levels_of = [&](const std::string& size) {
    const PointTrace t = run_spec_point(
        dev, "dissect: 1\nname: l2\nkernel: pchase\npath: cg\ntarget: l2\n"
             "array: {size: " + size + ", stride: 128 B, pattern: random, seed: 7}\nwarmup: 2\niterations: 8192\n");
    std::map<double, int> levels;
    for (const auto& s : t.samples) ++levels[s.latency - t.timer_overhead_cycles];
    return levels;
  };
  // 8 MiB fits one partition: after warm-up every load hits the SM's own partition, at the
  // near latency for data homed there and a little more for copies of the other's data.
  const auto small = levels_of("8 MiB");
  REQUIRE(small.size() == 2);
  const double spread = small.begin()->first - c.latency;  // this SM's fixed offset
  CHECK(spread >= 0);
  CHECK(spread <= c.partitions.sm_spread);
  CHECK(small.rbegin()->first - small.begin()->first == c.partitions.copy_latency - c.latency);
  CHECK(small.begin()->second > 3000);
  CHECK(small.rbegin()->second > 3000);
  // 32 MiB fits the L2 but not one partition: far-homed lines come from the far
  // partition, near-homed lines that fell out come from DRAM.
  const auto big = levels_of("32 MiB");
  CHECK(big.count(c.partitions.far_latency + spread) == 1);
  CHECK(big.count(p.dram_latency) == 1);
  // Under LRU the 32 MiB cycle thrashes the SM's own partition (the probe saw no near hits either).
  CHECK(big.at(c.partitions.far_latency + spread) > 3000);
  CHECK(big.at(p.dram_latency) > 3000);
}

TEST_CASE("warmup_by block leaves the caches as a chased warm-up does, sooner") {
  // H100: a sequential .cg chase over the L2 seen from one SM, just inside it and just
  // past it: the timed pass hits or misses alike after either warm-up, and the block's
  // 256 threads take a fraction of the chased pass's cycles.
  auto dev = sim_device("h100-sxm");
  const sim::Profile& p = dev.profile();
  const auto l2 = p.find_cache("l2");
  REQUIRE(l2);
  const std::uint64_t c = p.caches[*l2].geometry.capacity_bytes();
  for (const std::uint64_t n : {c / 4, c / 2 - c / 16, c / 2 + c / 8, 2 * c}) {
    CAPTURE(n);
    const std::string size = std::to_string(n / 4096 * 4096) + " B";
    const std::string extra = "target: l2\niterations: 16384\nlayout: {threads: 256}\n";
    const PointTrace chased = run_spec_point(dev, chase("cg", size, "64 B", extra));
    const PointTrace by_block = run_spec_point(dev, chase("cg", size, "64 B", extra + "warmup_by: block\n"));
    REQUIRE(chased.samples.size() == by_block.samples.size());
    std::size_t same = 0;
    double slow_chased = 0, slow_block = 0;
    for (std::size_t i = 0; i < chased.samples.size(); ++i) {
      same += chased.samples[i].offset_bytes == by_block.samples[i].offset_bytes;
      slow_chased += chased.samples[i].latency > p.caches[*l2].partitions.far_latency;
      slow_block += by_block.samples[i].latency > p.caches[*l2].partitions.far_latency;
    }
    CHECK(same == chased.samples.size());  // the timed chase itself is unchanged
    CHECK(slow_block == doctest::Approx(slow_chased).epsilon(0.02));
    CHECK(by_block.kernel_ms < chased.kernel_ms / 8);
  }
}

TEST_CASE("H100: L1, texture and read-only paths share one unified L1 with 32 B sectors") {
  auto dev = sim_device("h100-sxm");
  // A 32 B stride over 128 B lines: the first timed pass after warm-up hits everywhere.
  const PointTrace t = run_spec_point(dev, chase("tex", "16 KiB", "32 B"));
  for (const auto& s : t.samples) CHECK(s.latency < 100);
  const sim::Profile& p = dev.profile();
  CHECK(p.path(LoadPath::ca).steps[1].cache == p.path(LoadPath::tex).steps[1].cache);
  CHECK(p.path(LoadPath::ca).steps[1].cache == p.path(LoadPath::ldg).steps[1].cache);
  // Cold: every sector misses once although lines are 128 B (fetch granularity 32 B).
  const PointTrace cold = run_spec_point(dev, chase("ca", "16 KiB", "32 B", "warmup: 0\n"));
  int misses = 0;
  for (std::size_t i = 0; i < 512; ++i) misses += cold.samples[i].latency > 100;
  CHECK(misses == 512);
}

TEST_CASE("coalescing: latency grows with the sectors and lines one warp request touches") {
  auto dev = sim_device("h100-sxm");
  const sim::Profile& p = dev.profile();
  auto lat = [&](const std::string& stride) {
    const PointTrace t = run_spec_point(dev, "dissect: 1\nname: c\nkernel: coalescing\npath: cg\ntarget: l2\n"
                                             "array: {size: 64 KiB, stride: " + stride + "}\n"
                                             "layout: {threads: 32, chasers: all}\niterations: 8\n");
    REQUIRE(t.samples.size() == 8);
    return t.samples.back().latency;
  };
  const double near_or_far = lat("0 B");
  CHECK(lat("4 B") == near_or_far + 3 * p.coalesce_sector_cycles);  // 1 line, 4 sectors
  CHECK(lat("128 B") >= near_or_far + 31 * p.coalesce_line_cycles);  // 32 lines
  CHECK(lat("8 B") <= lat("16 B"));
  CHECK(lat("16 B") <= lat("32 B"));
}

TEST_CASE("throughput: bandwidth grows with ILP until the memory's limit") {
  auto dev = sim_device("fermi-gtx560ti");
  auto rate = [&](int ilp) {
    const PointTrace t = run_spec_point(dev, "dissect: 1\nname: bw\nkernel: throughput\npath: cg\ntarget: dram\n"
                                             "array: {size: 1 GiB, stride: 4 B}\n"
                                             "layout: {blocks: 8, threads: 64, chasers: all}\niterations: 64\n"
                                             "ilp: " + std::to_string(ilp) + "\n");
    REQUIRE(t.samples.size() == 8 * 2);  // one per warp
    CHECK(t.samples[0].offset_bytes == 32u * 64 * ilp * 4);
    return static_cast<double>(t.samples[0].offset_bytes) / t.samples[0].latency;
  };
  CHECK(rate(2) > rate(1));
  CHECK(rate(8) >= rate(4));
  CHECK(rate(64) == doctest::Approx(rate(32)).epsilon(0.02));  // saturated
}

TEST_CASE("determinism: the same profile and seed give the same trace, noise included") {
  const std::string spec = chase("ca", "16512 B", "128 B", "carveout: max_shared\n");
  auto a = sim_device("fermi-gtx560ti", true);
  auto b = sim_device("fermi-gtx560ti", true);
  const PointTrace ta = run_spec_point(a, spec), tb = run_spec_point(b, spec);
  REQUIRE(ta.samples.size() == tb.samples.size());
  bool same = true;
  for (std::size_t i = 0; i < ta.samples.size(); ++i)
    same = same && ta.samples[i].latency == tb.samples[i].latency && ta.samples[i].offset_bytes == tb.samples[i].offset_bytes;
  CHECK(same);
  // Running it again on the same device (warm model) gives the same trace too.
  const PointTrace again = run_spec_point(a, spec);
  bool same_again = true;
  for (std::size_t i = 0; i < ta.samples.size(); ++i) same_again = same_again && ta.samples[i].latency == again.samples[i].latency;
  CHECK(same_again);
  // Noise is there (hit latencies spread around 116) and depends on its seed.
  std::set<double> hits;
  for (const auto& s : ta.samples)
    if (s.latency < 200) hits.insert(s.latency);
  CHECK(hits.size() > 3);
  sim::Profile p = library_profile("fermi-gtx560ti", true);
  p.noise.seed = 99;
  sim::SimDevice c(p, "sim:x");
  const PointTrace tc = run_spec_point(c, spec);
  bool differs = false;
  for (std::size_t i = 0; i < ta.samples.size(); ++i) differs = differs || ta.samples[i].latency != tc.samples[i].latency;
  CHECK(differs);
}

TEST_CASE("repeats: later launches keep L2 and TLB contents, not L1") {
  auto dev = sim_device("fermi-gtx560ti");
  const PointTrace t = run_spec_point(dev, chase("ca", "8 KiB", "128 B", "warmup: 0\niterations: 64\nrepeats: 2\n"));
  REQUIRE(t.samples.size() == 128);
  CHECK(t.samples[0].latency > 600);   // cold: DRAM
  CHECK(t.samples[64].seq == 0);       // the second launch starts its own sequence
  CHECK(t.samples[64].latency == 404); // L1 cold again, L2 warm
}

TEST_CASE("a load path the profile does not describe is a run error naming it") {
  auto dev = sim_device("fermi-gtx560ti");
  CHECK_THROWS_WITH_AS(run_spec_point(dev, chase("ldg", "4 KiB", "4 B")),
                       doctest::Contains("does not describe load path 'ldg'"), RunError);
}

// Stores end in the first write-back cache that holds the array, pass write-through
// caches, and are limited by the store bandwidths of the levels they pass.
TEST_CASE("throughput stores: the write path and its bandwidths") {
  sim::Profile p = library_profile("h100-sxm");
  // Distinct store figures, so that a store limited by a load figure shows.
  p.caches[*p.find_cache("l1")].write_bandwidth = 40;
  p.caches[*p.find_cache("l2")].write_bandwidth = 1320;  // 10 B/cycle per SM over 132 SMs
  p.dram_bandwidth = 1320;
  p.dram_write_bandwidth = 660;
  p.shared.write_bandwidth = 64;
  sim::SimDevice dev(p, "sim:h100-rw");
  // Bytes per cycle of one SM (one block per SM: every SM alike).
  auto rate = [&](const std::string& access, const std::string& path, const std::string& target,
                  const std::string& size) {
    const PointTrace t = run_spec_point(
        dev, "dissect: 1\nname: bw\nkernel: throughput\naccess: " + access + "\npath: " + path + "\ntarget: " + target +
                 "\narray: {size: " + size + "}\nlayout: {blocks: 132, threads: 1024, chasers: all}\nilp: 16\n"
                 "iterations: 4096\nelement: u64\n");
    REQUIRE(t.samples.size() == 132 * 32);
    double cycles = 0;
    for (const auto& s : t.samples)
      if (s.sm_id == t.samples[0].sm_id) cycles = std::max(cycles, s.latency);
    return 32.0 * static_cast<double>(t.samples[0].offset_bytes) / cycles;
  };
  // Saturated (32 warps x ILP 16 x 256 B in flight): the store limit, within the
  // latency's share of the SM's cycles (latency / cycles < 1 %).
  CHECK(rate("store", "cg", "l2", "8 MiB") == doctest::Approx(10).epsilon(0.01));
  CHECK(rate("load", "cg", "l2", "8 MiB") == doctest::Approx(2500.0 / 132).epsilon(0.01));
  // ca: the L1 writes through, so an L1-sized array's stores end in the L2, and the
  // L1's store bandwidth (40) does not limit them below the L2's (10).
  CHECK(rate("store", "ca", "l1", "32 KiB") == doctest::Approx(10).epsilon(0.01));
  CHECK(rate("store", "cg", "dram", "1 GiB") == doctest::Approx(5).epsilon(0.01));
  CHECK(rate("load", "cg", "dram", "1 GiB") == doctest::Approx(10).epsilon(0.01));
  CHECK(rate("store", "shared", "shared", "32 KiB") == doctest::Approx(64).epsilon(0.01));
  CHECK(rate("load", "shared", "shared", "32 KiB") == doctest::Approx(128).epsilon(0.01));
}

TEST_CASE("layout.array per_block: each block chases a copy of its own, placed apart") {
  // tlb-three's L2 holds 8 MiB: two blocks over one 6 MiB array hit it, two blocks over
  // 6 MiB each (12 MiB in all) miss it.
  auto dev = sim_device("tlb-three");
  const std::string extra = "target: l2\nlayout: {blocks: 2}\niterations: 2048\n";
  const PointTrace one = run_spec_point(dev, chase("cg", "6 MiB", "128 B", extra));
  const PointTrace own =
      run_spec_point(dev, chase("cg", "6 MiB", "128 B", "target: l2\nlayout: {blocks: 2, array: per_block}\n"
                                                        "iterations: 2048\n"));
  CHECK(own.params.at("block_arrays") == "per_block");
  CHECK(one.params.count("block_arrays") == 0);
  auto mean_of = [](const PointTrace& t, std::uint32_t thread) {
    double sum = 0;
    std::size_t n = 0;
    for (const auto& s : t.samples)
      if (s.thread == thread) sum += s.latency, ++n;
    return n > 0 ? sum / static_cast<double>(n) : 0.0;
  };
  CHECK(mean_of(one, 0) < 320);  // L2 hits, near or far
  CHECK(mean_of(own, 0) > 500);  // DRAM: the copies do not fit together
  // Both blocks record offsets in their own copy, from the same start, on SMs of their own.
  std::set<std::uint64_t> first0, first1;
  std::set<std::int32_t> sms;
  for (const auto& s : own.samples) {
    (s.thread == 0 ? first0 : first1).insert(s.offset_bytes);
    sms.insert(s.sm_id);
  }
  CHECK(first0 == first1);
  CHECK(sms.size() == 2);
  // More blocks than SMs cannot all run at once.
  CHECK_THROWS_WITH_AS(
      run_spec_point(dev, chase("cg", "1 MiB", "128 B", "target: l2\nlayout: {blocks: 9, array: per_block}\n")),
      doctest::Contains("every block must run on an SM of its own"), RunError);
}

TEST_CASE("layout.copy_stride: copies a power of two apart crowd a modulo-indexed L2, packed copies fill it") {
  // An L2 of 8 MiB, 16 ways, 4096 sets by address modulo: the index sees bits 7-18, so
  // lines 512 KiB apart share a set. 24 SMs over 192 KiB each (4.5 MiB in all): packed one
  // after the other, at most 10 lines fall into a set, and every pass hits; 512 KiB apart,
  // each copy's lines take the first 1536 sets only, 24 lines a set for 16 ways, and LRU
  // under a cyclic chase misses every one.
  sim::Profile p = library_profile("tlb-three");
  p.sm_count = 24;
  sim::CacheSpec& l2 = p.caches[*p.find_cache("l2")];
  l2.geometry = sim::CacheGeometry::uniform(8ull << 20, 128, 16);
  l2.partitions = sim::PartitionSpec{};
  sim::SimDevice dev(p, "sim:l2-modulo");
  const auto mean_latency = [&](const std::string& copy_stride) {
    const PointTrace t = run_spec_point(
        dev, chase("cg", "192 KiB", "128 B",
                   "target: l2\nwarmup: 2\niterations: 3072\nlayout: {blocks: 24, array: per_block, copy_stride: " +
                       copy_stride + "}\n"));
    CHECK(t.params.at("copy_stride_bytes") == std::to_string(copy_stride == "auto" ? 192 * 1024 : 512 * 1024));
    double sum = 0;
    for (const auto& s : t.samples) sum += s.latency;
    return sum / static_cast<double>(t.samples.size());
  };
  CHECK(mean_latency("auto") < 320);     // L2 hits
  CHECK(mean_latency("512 KiB") > 500);  // DRAM
}

TEST_CASE("aliased frames: TLBs see every page of the range, the caches see one block") {
  // The simulated H100: a load 5 GiB + 64 B into an aliased array reaches the caches at
  // 64 B into its block; a contiguous array's load stays where it is.
  const sim::Profile prof = library_profile("h100-sxm");
  sim::MemorySystem mem(prof, kCarveoutDriverDefault);  // keeps a reference to the profile
  const std::uint64_t base = 1ull << 40;
  const sim::BoundPath aliased = mem.bind(LoadPath::cg, 0, 0, Frames::aliased, base);
  const sim::BoundPath contiguous = mem.bind(LoadPath::cg, 0, 0, Frames::contiguous, base);
  CHECK(aliased.frame_address(base + 5 * kAliasedBlockBytes + 64) == base + 64);
  CHECK(aliased.frame_address(base + 64) == base + 64);
  CHECK(contiguous.frame_address(base + 5 * kAliasedBlockBytes + 64) == base + 5 * kAliasedBlockBytes + 64);
  // 2048 slots of 256 MiB + 32 B over 512 GiB: the same TLB levels run out, while the
  // data of the aliased chase lie 32 B apart in one block: it runs, and every slot is
  // visited in its order.
  auto dev = sim_device("h100-sxm");
  const PointTrace t = run_spec_point(dev, "dissect: 1\nname: t\npath: cg\nelement: u64\niterations: 4096\nwarmup: 1\n"
                                           "array: {size: 549755879424 B, stride: 268435488 B, frames: aliased}\n");
  CHECK(t.params.at("frames") == "aliased");
  REQUIRE(t.samples.size() == 4096);
  for (std::size_t i = 0; i < t.samples.size(); ++i) CHECK(t.samples[i].offset_bytes == (i % 2048) * 268435488ull);
}
