#pragma once
// Where a miss share that grows gradually with N crosses a level. Each point of a
// size sweep misses some share of its accesses; near a gradual onset those shares
// scatter from point to point (where each array lies), so "the largest N whose
// point stays under the level" moves with the points a search happened to visit.
// The monotone curve closest to the shares (isotonic regression, pool adjacent
// violators) interpolated linearly between its sizes crosses the level at an N
// that every point of the onset informs.
#include <cstdint>
#include <optional>
#include <vector>

namespace dissect::stats {

// `sizes` ascending (ties allowed), `shares` the points' shares. The smallest N where
// the fitted share reaches `level`, interpolated between the fitted values of adjacent
// distinct sizes; nullopt where the fit never reaches it or already does at the first size.
std::optional<double> share_crossing(const std::vector<std::uint64_t>& sizes, const std::vector<double>& shares,
                                     double level);

}  // namespace dissect::stats
