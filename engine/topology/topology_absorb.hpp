#pragma once
// What each kind of topology step contributes to the result: its findings
// (read through topology_findings.hpp) folded into the typed TopologyResult.
#include <string>

#include "engine/topology/topology_findings.hpp"
#include "engine/topology/topology_result.hpp"

namespace dissect {

using findings::Findings;

namespace absorb {

// The table states a finding only when its analyzer is this confident of it; a
// weak one is kept as a note, never shown as a measured figure.
constexpr double kTableConfidence = 0.7;

void latency(TopologyResult& r, const std::string& cache, const Findings& fs);
void fetch(TopologyResult& r, const std::string& cache, const Findings& fs);
void size(CacheResult& c, const Findings& fs);
void line(TopologyResult& r, const std::string& cache, const Findings& fs);
// The occupancy method names the allocation line itself (a sectored cache's
// small-stride chase shows only the sector): it wins over the miss spacing.
void line_blocks(TopologyResult& r, const std::string& cache, const Findings& fs);
void sets(TopologyResult& r, const std::string& cache, const Findings& fs);
void replacement(TopologyResult& r, const std::string& cache, const Findings& fs);
// The stage_profile finding of a sets step: its details, summary and value
// (clean_bytes), or {summary, determined: false}.
void stage_profile(TopologyResult& r, const std::string& cache, const Findings& fs);
// The conflict step's stage_profile findings, one per stride: how many lines s apart fit.
// Equal exact counts W at every stride (all of them above C / 2), W below C / b, and a
// periodic stage sweep whose first overflow missed W + 1 lines per pass: the lines share
// one set of W ways, and the cache has C / (W b) sets; these become sets x ways where the
// stage method gave none (sets_source says which), and are compared with its figures
// where it did. Without that stage sweep: W ways if the set count is a power of two, no
// sets. Otherwise a summary says what the strides showed.
void conflict(TopologyResult& r, const std::string& cache, const Findings& fs);
void sharing(TopologyResult& r, const std::string& a, const std::string& b, const Findings& fs);

void constant_l15_size(TopologyResult& r, const Findings& fs);
void texture_amount(TopologyResult& r, const Findings& fs);
void l2_levels(TopologyResult& r, const Findings& fs);
void banks(TopologyResult& r, const Findings& fs);
// 'l2_size': what one SM fills, as one_sm_bytes and (until l2_whole) size_bytes.
void l2_one_sm(TopologyResult& r, const Findings& fs);
// 'l2_whole_size': the per-SM knee of `sms` SMs at once, times `sms`: the L2's size_bytes
// (and whole_gpu_bytes); undetermined, size_bytes goes and size_note says why (one_sm_bytes
// stays).
void l2_whole(TopologyResult& r, const Findings& fs, std::uint64_t sms);
// 'l2_partition_map': the SM groups near each partition, the lines' granularity and
// function (the partition_map finding), or why not.
void l2_partition_map(TopologyResult& r, const Findings& fs);
// 'tlb': the levels, their entries (or a range), reach, coverage and penalties.
void tlb_levels(TopologyResult& r, const Findings& fs);
// 'tlb_entries' narrows a level's entries; 'tlb_sets' gives its entries, sets
// and penalty from one slot at a time (findings matched to levels by the
// ranges the steps swept: tlb_sweeps.hpp).
void tlb_entries(TopologyResult& r, const Findings& fs);
void tlb_sets(TopologyResult& r, const Findings& fs);
// 'tlb_spread': one set or S sets for each level it swept (slots spread over every set),
// with the entries, ways and reach that follow; a reading that contradicts the earlier
// steps leaves the associativity undetermined, saying why.
void tlb_spread(TopologyResult& r, const Findings& fs);
// 'tlb_reach': a tighter reach (and more entries) for the levels whose slots at the span
// fill only some of their sets, or why the step could not tell.
void tlb_reach(TopologyResult& r, const Findings& fs);
// 'tlb_scope': each level's scope (sm, shared, group), or why it was not read.
void tlb_scope(TopologyResult& r, const Findings& fs);
// The page, or why none; pages per entry where a level's reach is known.
void page_size(TopologyResult& r, const Findings& fs);
void page_size_scattered(TopologyResult& r, const Findings& fs);
void bandwidth(TopologyResult& r, const std::string& memory, const Findings& fs);
// The L1 write's control (the same stores without the L1), beside bandwidth.l1_write:
// write-through, write-back or not determined.
void l1_write_control(TopologyResult& r, const Findings& fs);

}  // namespace absorb
}  // namespace dissect
