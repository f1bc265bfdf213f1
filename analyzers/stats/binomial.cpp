#include "analyzers/stats/binomial.hpp"

#include <algorithm>
#include <cmath>

namespace dissect::stats {

double log_gamma(double x) {
  int sign = 0;
  return ::lgamma_r(x, &sign);
}

double binomial_sf(std::uint64_t k, std::uint64_t n, double p) {
  if (k == 0) return 1.0;
  if (k > n) return 0.0;
  p = std::clamp(p, 0.0, 1.0);
  if (p <= 0) return 0.0;
  if (p >= 1) return 1.0;
  const double nn = static_cast<double>(n);
  if (n <= 5000) {
    const double lp = std::log(p), lq = std::log1p(-p);
    double sum = 0;
    const double base = log_gamma(nn + 1);
    for (std::uint64_t i = k; i <= n; ++i) {
      const double ii = static_cast<double>(i);
      const double term = std::exp(base - log_gamma(ii + 1) - log_gamma(nn - ii + 1) + ii * lp + (nn - ii) * lq);
      sum += term;
      if (ii > nn * p && term < 1e-18 * sum) break;
    }
    return std::clamp(sum, 0.0, 1.0);
  }
  const double mu = nn * p, sd = std::sqrt(nn * p * (1 - p));
  const double z = (static_cast<double>(k) - 0.5 - mu) / sd;
  return 0.5 * std::erfc(z / std::sqrt(2.0));
}

double binomial_z(std::uint64_t k, std::uint64_t n, double p) {
  if (n == 0) return 0;
  const double nn = static_cast<double>(n);
  const double pp = std::clamp(p, 0.0, 1.0);
  const double var = std::max(nn * pp * (1 - pp), 1.0);
  return (static_cast<double>(k) - nn * pp) / std::sqrt(var);
}

}  // namespace dissect::stats
