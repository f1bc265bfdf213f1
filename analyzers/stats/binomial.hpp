#pragma once
// Binomial tail probabilities, for "more misses than noise explains" tests.
#include <cstdint>

namespace dissect::stats {

// P(X >= k) for X ~ Binomial(n, p). Exact (log-space sum) for small n, normal
// approximation with continuity correction beyond.
double binomial_sf(std::uint64_t k, std::uint64_t n, double p);

// ln Gamma(x), as std::lgamma, without writing the sign to the process-wide `signgam`
// that std::lgamma writes (analyzers run on several threads at once).
double log_gamma(double x);

// One-sided z score of observing k successes in n trials against rate p
// (variance floored so that p = 0 does not divide by zero).
double binomial_z(std::uint64_t k, std::uint64_t n, double p);

}  // namespace dissect::stats
