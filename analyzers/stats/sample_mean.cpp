#include "analyzers/stats/sample_mean.hpp"

#include <cmath>

namespace dissect::stats {

SampleMean sample_mean(const std::vector<double>& values) {
  SampleMean m;
  m.n = values.size();
  if (values.empty()) return m;
  double sum = 0, ss = 0;
  for (const double x : values) sum += x;
  m.mean = sum / static_cast<double>(values.size());
  for (const double x : values) ss += (x - m.mean) * (x - m.mean);
  if (values.size() > 1)
    m.se = std::sqrt(ss / static_cast<double>(values.size() - 1) / static_cast<double>(values.size()));
  return m;
}

}  // namespace dissect::stats
