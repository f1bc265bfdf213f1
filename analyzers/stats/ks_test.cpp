#include "analyzers/stats/ks_test.hpp"

#include <algorithm>
#include <cmath>

namespace dissect::stats {

double kolmogorov_q(double lambda) {
  if (lambda < 1e-3) return 1.0;
  if (lambda < 0.3) {
    // The alternating series converges slowly here; use the theta-function form.
    const double x = std::exp(-M_PI * M_PI / (8 * lambda * lambda));
    double s = 0;
    for (int k = 1; k <= 7; k += 2) s += std::pow(x, k * k);
    return std::clamp(1 - std::sqrt(2 * M_PI) / lambda * s, 0.0, 1.0);
  }
  double sum = 0, sign = 1;
  for (int j = 1; j <= 100; ++j) {
    const double term = sign * std::exp(-2.0 * j * j * lambda * lambda);
    sum += term;
    if (std::fabs(term) < 1e-16 * std::fabs(sum)) break;
    sign = -sign;
  }
  return std::clamp(2 * sum, 0.0, 1.0);
}

double KsResult::critical(double alpha) const {
  if (n == 0 || m == 0) return 1.0;
  const double nn = static_cast<double>(n), mm = static_cast<double>(m);
  return std::sqrt(-std::log(alpha / 2) * (nn + mm) / (2 * nn * mm));
}

namespace {
KsResult ks_core(std::vector<double> a, std::vector<double> b, double ne_cap) {
  KsResult r;
  auto nan = [](double x) { return std::isnan(x); };
  a.erase(std::remove_if(a.begin(), a.end(), nan), a.end());
  b.erase(std::remove_if(b.begin(), b.end(), nan), b.end());
  r.n = a.size();
  r.m = b.size();
  if (a.empty() || b.empty()) return r;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::size_t i = 0, j = 0;
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  while (i < a.size() && j < b.size()) {
    const double x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] <= x) ++i;
    while (j < b.size() && b[j] <= x) ++j;
    const double diff = std::fabs(static_cast<double>(i) / na - static_cast<double>(j) / nb);
    if (diff > r.d) {
      r.d = diff;
      r.x_at_d = x;
    }
  }
  double ne = na * nb / (na + nb);
  if (ne_cap > 0) ne = std::min(ne, ne_cap);
  const double sq = std::sqrt(ne);
  r.p_value = kolmogorov_q((sq + 0.12 + 0.11 / sq) * r.d);
  return r;
}
}  // namespace

KsResult ks_two_sample(std::vector<double> a, std::vector<double> b) {
  return ks_core(std::move(a), std::move(b), 0);
}

KsResult ks_two_sample_capped(const std::vector<double>& a, const std::vector<double>& b, std::size_t cap) {
  KsResult r = ks_core(a, b, 0);
  if (cap == 0 || r.n == 0 || r.m == 0) return r;
  const double na = static_cast<double>(std::min(r.n, cap)), nb = static_cast<double>(std::min(r.m, cap));
  const double sq = std::sqrt(na * nb / (na + nb));
  r.p_value = kolmogorov_q((sq + 0.12 + 0.11 / sq) * r.d);
  return r;
}

}  // namespace dissect::stats
