#include "timing/stats.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace ptxb {

MedianCI median_ci(std::vector<double> samples) {
  PTXB_ASSERT(!samples.empty(), "median_ci needs samples");
  std::sort(samples.begin(), samples.end());
  const int n = static_cast<int>(samples.size());
  MedianCI out;
  out.count = n;
  out.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  const double half_width = 0.98 * std::sqrt(static_cast<double>(n));  // 1.96 * sqrt(n) / 2
  const int lo = std::max(0, static_cast<int>(std::floor(n / 2.0 - half_width)));
  const int hi = std::min(n - 1, static_cast<int>(std::ceil(n / 2.0 + half_width)) - 1);
  out.low = samples[lo];
  out.high = samples[std::max(hi, lo)];
  return out;
}

std::vector<double> paired_ratios(const std::vector<double>& numerator,
                                  const std::vector<double>& denominator) {
  PTXB_ASSERT(numerator.size() == denominator.size(), "paired_ratios: length mismatch");
  std::vector<double> out(numerator.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = numerator[i] / denominator[i];
  return out;
}

}  // namespace ptxb
