#pragma once
// Whether an L2 in P partitions holds copies of far lines, read from the sizes the
// topology measured: what one SM fills (O) and what every SM fills with lines of its own
// (W), against the driver's L2 (L) where there is one. Three ways a partitioned L2 can
// hold a line read by an SM whose partition is not the line's home:
//
//   shared    at home only; one SM fills the whole L2 (far hits are hits): O = L, W = L
//   copies    at home and, copied, in the reader's partition; one SM's lines all take
//             room in its own partition: O = L / P. Every SM's far lines held twice would
//             give W = L P / (2P - 1) (P = 2: two thirds); a home copy that is not read
//             again may be dropped first, so W lies anywhere from that up to L
//   private   in the reader's partition only: O = L / P, W = L
//
// Near L the copies and private models give the same sizes (a partition that drops every
// stale home line holds what a private one does): both fit, and the verdict says so; the
// private model is never the only one to fit, and is kept for that overlap.
// Without the driver's L, the ratio W / O decides: 1, from P^2 / (2P - 1) up to P, and
// P. The share of the lines held twice is L / W - 1 (P O / W - 1 without L). Both sizes
// are first-miss knees, which read at or below a capacity (an uneven spread over the sets
// fills some of them first), never far above it: a figure fits a prediction where it lies
// within kBelow under or kAbove over it. One model fitting gives the verdict; none or two,
// "undetermined".
#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

namespace dissect {

struct PartitionCopiesInput {
  std::optional<std::uint64_t> one_sm_bytes;    // O: the l2_size step
  std::optional<std::uint64_t> whole_gpu_bytes; // W: the l2_whole_size step
  std::optional<std::uint64_t> partitions;      // P: the l2_partition_map step's groups
  std::optional<std::uint64_t> driver_bytes;    // L, where the device reports it
  // The size analyzer's confidence in O and W (the lower is kept beside the verdict).
  std::optional<double> one_sm_confidence, whole_gpu_confidence;
};

// How far below / above its prediction a knee may read and still fit a model.
inline constexpr double kPartitionCopiesBelow = 0.15;
inline constexpr double kPartitionCopiesAbove = 0.06;

// {verdict: "copies" | "shared" | "private" | "undetermined", summary, ratio, partitions,
// held_twice_share (copies), sizes_confidence (where given), models: [{name, ratio or
// ratio_range, one_sm_bytes and whole_gpu_bytes or whole_gpu_range_bytes (with L), fits}]};
// nullopt where O, W or P is missing, or P < 2 (one partition: nothing to copy).
std::optional<nlohmann::json> read_partition_copies(const PartitionCopiesInput& in);

}  // namespace dissect
