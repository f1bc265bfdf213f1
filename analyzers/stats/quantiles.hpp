#pragma once
// Order statistics of a sample: quantiles, median, robust spread. Everything
// here ignores NaNs the caller did not filter (they are removed first).
#include <cstddef>
#include <span>
#include <vector>

namespace dissect::stats {

// Linear-interpolation quantile (type 7) of an ascending sequence; NaN if empty.
double quantile_sorted(std::span<const double> sorted, double q);
// Same, on an unsorted copy.
double quantile(std::vector<double> values, double q);
double median(std::vector<double> values);
// Median absolute deviation, scaled to estimate a normal sigma (x 1.4826).
double mad_sigma(const std::vector<double>& values);
// Mean of the values between the q and 1-q quantiles (q = 0.1: the 10% trimmed mean).
double trimmed_mean(std::vector<double> values, double q);
double mean(std::span<const double> values);

// The same figures from an ascending sequence without NaNs, in linear time and without a
// copy, equal to what median and mad_sigma return for the values in any order.
double median_sorted(std::span<const double> sorted);
double mad_sigma_sorted(std::span<const double> sorted);

}  // namespace dissect::stats
