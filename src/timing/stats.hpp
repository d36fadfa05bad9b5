// Robust summary statistics for timing samples (host code; see docs/timing.md).
#pragma once

#include <vector>

namespace ptxb {

/// Median of samples with a distribution-free 95% confidence interval for the median, taken
/// from order statistics (binomial(n, 1/2), normal approximation): ranks n/2 -+ 0.98*sqrt(n).
struct MedianCI {
  double median = 0;
  double low = 0;
  double high = 0;
  int count = 0;
};

/// Requires at least one sample; throws InternalError on an empty vector.
MedianCI median_ci(std::vector<double> samples);

/// Per-pair ratios numerator[i] / denominator[i] (both vectors the same length).
std::vector<double> paired_ratios(const std::vector<double>& numerator,
                                  const std::vector<double>& denominator);

}  // namespace ptxb
