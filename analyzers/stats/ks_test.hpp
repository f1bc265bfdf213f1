#pragma once
// Two-sample Kolmogorov-Smirnov test (seed 004 §3.3.4): do two samples come
// from the same distribution?
#include <cstddef>
#include <vector>

namespace dissect::stats {

struct KsResult {
  double d = 0;         // max |F(x) - G(x)| of the two empirical CDFs
  double p_value = 1;   // asymptotic (Kolmogorov distribution, Stephens' small-sample correction)
  std::size_t n = 0, m = 0;
  double x_at_d = 0;    // where the CDFs differ most
  // Critical value d_alpha = sqrt(-ln(alpha/2) * (n+m) / (2 n m)) (seed 004 eq. 3.3).
  [[nodiscard]] double critical(double alpha) const;
  [[nodiscard]] bool rejects(double alpha) const { return d > critical(alpha); }
};

// NaNs are ignored. Empty samples give d = 0, p = 1.
KsResult ks_two_sample(std::vector<double> a, std::vector<double> b);
// Same test with the effective sample sizes capped (samples of a pointer chase
// are not independent: cap them to what the data can honestly claim).
KsResult ks_two_sample_capped(const std::vector<double>& a, const std::vector<double>& b, std::size_t cap);

// Survival function of the Kolmogorov distribution: P(K > lambda).
double kolmogorov_q(double lambda);

}  // namespace dissect::stats
