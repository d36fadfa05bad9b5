// A median with its confidence interval as verdicts and bench records hold it: the verdict's
// Interval, whose one serializer writes {"median", "low", "high", "count"}.
#pragma once

#include <nlohmann/json.hpp>

#include "timing/stats.hpp"
#include "verdict/verdict_parts.hpp"

namespace ptxb {

inline Interval interval(const MedianCI& m) {
  return {m.median, m.low, m.high, static_cast<int64_t>(m.count)};
}

inline nlohmann::json median_json(const MedianCI& m) { return interval(m); }

}  // namespace ptxb
