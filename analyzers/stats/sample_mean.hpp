#pragma once
// The mean of a sample and its standard error (the spread over sqrt(n)).
#include <cstddef>
#include <vector>

namespace dissect::stats {

struct SampleMean {
  double mean = 0, se = 0;
  std::size_t n = 0;
};

// n = 0 and zeros for an empty sample; se = 0 for one value.
SampleMean sample_mean(const std::vector<double>& values);

}  // namespace dissect::stats
