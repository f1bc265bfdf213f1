#pragma once
// Sorting latencies fast. The level models sort every pooled sample (two million of a
// set sweep), and latencies take few distinct values (whole cycles, a few hundred
// apart at most): counting them is linear, where a comparison sort is n log n. The
// result is what std::sort gives, element for element, so that every statistic read
// from it (quantiles, a sum in ascending order) is unchanged.
#include <vector>

namespace dissect::stats {

// Sorts ascending, as std::sort does. Linear when the values take few distinct values
// (counted in a hash table); otherwise a radix sort on the values' bits; std::sort for
// short inputs and for inputs with a NaN or a negative zero (whose places std::sort
// leaves open).
void sort_values(std::vector<double>& values);

}  // namespace dissect::stats
