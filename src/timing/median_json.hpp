// A median with its confidence interval as it appears in verdicts and bench records:
// {"median", "low", "high", "count"}.
#pragma once

#include <nlohmann/json.hpp>

#include "timing/stats.hpp"

namespace ptxb {

inline nlohmann::json median_json(const MedianCI& m) {
  return {{"median", m.median}, {"low", m.low}, {"high", m.high}, {"count", m.count}};
}

}  // namespace ptxb
