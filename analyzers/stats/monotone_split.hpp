#pragma once
// Where a noisy clean/missing series over growing N turns from clean to
// missing. Near the capacity of a cache with random replacement, or one whose
// usable capacity differs a little from SM to SM (the H100's L1), the points
// of a size sweep do not switch at one N: inside a band of a few KiB some
// points miss and some do not. "The largest N before the first missing
// point" then lands anywhere in that band, wherever the first stray miss
// fell, and two runs disagree by the band's width. The split that agrees with
// the most points (the monotone clean-then-missing step closest to the data,
// i.e. isotonic regression thresholded at one half) lands in the band's
// middle, where half the points miss: the same place run after run. For a
// sharp knee it is the knee itself.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dissect::stats {

struct MonotoneSplit {
  // Points [0, first_missing) are on the clean side, the rest on the missing
  // side (size() when every point is clean, 0 when none is).
  std::size_t first_missing = 0;
  std::size_t disagreements = 0;  // points on the wrong side of the split
  // The band where clean and missing points mix: from the first missing
  // point to the last clean one (indices; band_begin > band_end when the
  // series switches cleanly).
  std::size_t band_begin = 0, band_end = 0;
};

// `missing` is ordered by `keys` (non-decreasing, e.g. the array size); the
// split never separates two points with the same key. Among equally good
// splits, the middle one.
MonotoneSplit monotone_split(const std::vector<std::uint64_t>& keys, const std::vector<bool>& missing);

}  // namespace dissect::stats
