#pragma once
// The sweeps of the topology's TLB steps, from what the earlier steps measured
// (specs/topology/tlb*.yaml say why each is built so):
//   tlb          where each level runs out: strides 4 KiB .. 1 GiB, slots growing
//                by factors of sqrt 2, random order over the slots;
//   tlb_entries  a level whose coverage 'tlb' bracketed widely: about 32 points
//                across the bracket;
//   tlb_sets     every level: one slot at a time from below its coverage to past
//                it (the stage method: entries, reach, sets);
//   tlb_spread   a level of open (or one) set: slots spread over every set at a
//                stride just above its span (one set or several);
//   tlb_scope    a level's entries chased by B SMs at once (per SM or shared).
// tlb_entries and tlb_sets sweep at the granule the page step measured (the page, or
// the reach of coalesced entries), plus the pad: consecutive slots in consecutive
// entries, every set filled alike (a level read as one set, or open above the granule:
// at its span); tlb_spread at span x 17/16, tlb_scope at a level's reach. The absorbing side needs the same ranges to
// tell which level a finding belongs to, hence one place for both.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/spec/spec.hpp"
#include "engine/topology/topology_result.hpp"

namespace dissect::tlb_sweeps {

// Each slot lies a power of two plus this far from the last: every slot in a
// page (or entry) of its own at strides from the page up, while the data spread
// over the sets of a modulo-indexed L2 (a 2 MiB stride fills only 7 of the
// C2070's 1792 L2 sets: its L2 misses from about 96 pages on looked like a TLB
// level).
inline constexpr std::uint64_t kSlotPad = 32;

struct Limits {
  std::uint64_t footprint_cap = 0;        // the largest array of 'tlb', 'tlb_entries', 'tlb_sets'
  std::uint64_t contiguous_cap = 0;  // arrays in contiguous frames (the page-size steps)
  std::uint64_t slot_cap = 0;             // the most slots of one chase
  // The most slots of the spread and scope steps (all SMs' together): over aliased frames a
  // chase's lines lie in dense runs within the one block (consecutive slots a pad apart in
  // each region the stride comes back to), so they crowd no set of the L2; four times the
  // slot cap, at most a quarter of the L2 in lines.
  std::uint64_t aliased_slot_cap = 0;
};

// The virtual footprint of the aliased sweeps (every TLB step but the page size: one
// physical block mapped again and again, Frames::aliased): far past any GPU's memory,
// so that levels whose coverage the memory cannot hold run out inside the sweep, with
// room to spare: a level whose knee a sweep passes at its largest points only gives a
// partial rise there, which misleads the reading of the levels below.
// 1 TiB, plus room for the pads (1024 slots of 1 GiB + 32 B, 4096 of 256 MiB + 32 B).
inline constexpr std::uint64_t kAliasedFootprintCap = (1ull << 40) + (1ull << 20);

// Footprint: kAliasedFootprintCap for the aliased steps (every TLB step but the page
// size); for the page-size steps, over contiguous frames, three quarters of the device memory and at most 32 GiB. Slots: at
// most 8192, and few enough that their lines stay in the L2 (one per 2 KiB of
// the measured L2, the driver's figure where none was measured: a line each,
// with room for strides that crowd a modulo-indexed L2's sets): an array whose
// lines overflow the L2 adds a latency level of its own.
Limits limits(const TopologyResult& r);

// The 'tlb' step: {zip: [{array.size, array.stride, iterations}]}.
std::vector<SpecOverride> footprint_sweep(const Limits& limits);

// A range of N around one TLB level (index into TlbResult::levels).
struct Range {
  std::size_t level = 0;
  std::uint64_t stride = 0;
  std::uint64_t from_slots = 0, to_slots = 0, step_slots = 1;
  double penalty = 0;  // the level's miss penalty (cycles), 0 where none was read
};

// 'tlb_entries': the levels whose coverage 'tlb' left more than 48 slots wide.
std::vector<Range> entry_ranges(const TopologyResult& r);
// 'tlb_sets': every level whose coverage is known to some range.
std::vector<Range> stage_ranges(const TopologyResult& r);
// The sweep of a list of ranges: {zip: [{array.size, array.stride, iterations}]}.
std::vector<SpecOverride> range_sweep(const std::vector<Range>& ranges, const Limits& limits);
// 'tlb_sets': range_sweep, and its analyzers: the tlb analyzer per stride, and
// tlb_overflow with each range's penalty (the pigeonhole count per pass).
std::vector<SpecOverride> stage_sweep(const std::vector<Range>& ranges, const Limits& limits);

// 'tlb_spread': every level whose span the footprint sweep saw and whose sets the steps
// before left open or read as one (fully associative): slots a stride of span x 17/16
// (plus the pad) apart, every slot an entry of its own and the slots spread over up to
// 16 sets. With W the slots that fit at the span (the ways of one set), points a tenth
// below and 15 % above k x W for k = 1, 2, 4, 8, 16: one set runs out past W, S sets past
// S x W.
// Up to the aliased slot cap, the aliased footprint and, below the next level's coverage,
// a tenth short of it (where that level would add misses of its own).
struct SpreadRange {
  std::size_t level = 0;
  std::uint64_t stride = 0;
  std::uint64_t ways_lo = 0, ways_hi = 0;  // slots at the span (the coverage bracket / span)
  std::uint64_t most_sets = 0;             // the largest k whose pair of points fits (a power of two)
  double penalty = 0;                      // the level's miss penalty (cycles)
  std::vector<std::uint64_t> slots;        // ascending
};
std::vector<SpreadRange> spread_ranges(const TopologyResult& r);
// {zip: [{array.size, array.stride, iterations}]} and the analyzer's per-stride penalties.
std::vector<SpecOverride> spread_sweep(const std::vector<SpreadRange>& ranges);
const SpreadRange* spread_range_of(const std::vector<SpreadRange>& ranges, std::uint64_t stride);

// 'tlb_reach': every level the spread step left with more slots than one set of the span
// holds (`entries_at_least` above the ways at the span) and an entry that reaches at most
// the span: is its reach the span, or are strides of the span (and its multiples) using
// only some of its sets? At half the span (plus a pad of its own), an entry that reached
// the span would take two slots, so n slots need at most (n - 1) / 2 + 2 of its entries,
// contiguous ones; a level that holds more than that (the spread step's bound) misses
// none there, if contiguous stretches load its sets evenly. Slots at, 3 and 6 % above twice
// the ways: a first miss below twice the bound shows a reach of half the span at most. At a
// quarter of the span, 1.5 times twice the ways: the same reading one stride down (its
// slots need half as many entries of half the span). Each series starts where the level
// holds its slots whatever the reach (a tenth below twice the ways, and no more than the
// entries bound): the analyzer reads every point against the first.
// Within the aliased slot cap and footprint and a tenth short of the next level's
// coverage; strides of at least the page (or the granule the page step measured).
struct ReachSeries {
  std::uint64_t stride = 0;  // with the pad
  std::uint64_t unit = 0;    // half or a quarter of the span
  std::vector<std::uint64_t> slots;  // ascending
};
struct ReachRange {
  std::size_t level = 0;
  std::uint64_t ways_lo = 0, ways_hi = 0;  // slots at the span
  std::uint64_t entries_at_least = 0;      // the spread step's bound
  double penalty = 0;
  std::vector<ReachSeries> series;  // half the span first
};
std::vector<ReachRange> reach_ranges(const TopologyResult& r);
// {zip: [{array.size, array.stride, iterations}]} and the analyzer's per-stride penalties.
std::vector<SpecOverride> reach_sweep(const std::vector<ReachRange>& ranges);

// 'tlb_scope': per level of E entries, at its reach (else the stride 'tlb_sets' used;
// plus a pad of kSlotPad x (level + 1): one stride per level), 3E/4 slots per SM for
// B = 1, 2, 8, 16, 32 and all SMs at once (as many as the device has, and as fit the
// aliased slot cap and footprint, and a tenth short of the next level's coverage: every
// SM's copy in pages of its own), and 3E/2 slots
// for one SM: the level's penalty on the same first slots, at the footprint two SMs
// sharing the level would give it (a level that does not replace in LRU order misses
// only a share of its accesses there, and two SMs sharing it the same share); a level
// where only B = 1 fits is left out.
struct ScopeRange {
  std::size_t level = 0;
  std::uint64_t stride = 0;
  std::uint64_t entries = 0;
  std::uint64_t hit_slots = 0, miss_slots = 0;  // per SM
  std::vector<std::uint32_t> blocks;            // SMs at once, 1 first
  double penalty = 0;                           // the level's miss penalty (cycles), 0 where none was read
};
std::vector<ScopeRange> scope_ranges(const TopologyResult& r);
// {zip: [{layout.blocks, array.size, array.stride, iterations}]}.
std::vector<SpecOverride> scope_sweep(const std::vector<ScopeRange>& ranges);

// The range (of `ranges`) a level record of a 'tlb_entries' or 'tlb_sets'
// finding was measured in: the same stride, its entries inside the range.
const Range* range_of(const std::vector<Range>& ranges, const nlohmann::json& level);

}  // namespace dissect::tlb_sweeps
