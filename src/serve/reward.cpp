#include "serve/reward.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace ptxb::serve {

std::optional<double> reward_of(const nlohmann::json& verdict) {
  const std::string outcome = verdict.value("outcome", std::string("unavailable"));
  if (outcome == "rejected_cheat") return -1.0;
  if (outcome == "unavailable") return std::nullopt;
  if (outcome == "incorrect") return 0.1;
  if (outcome == "instruction_missing" || outcome == "low_instruction_share") return 0.3;
  if (outcome != "passed") return 0.0;
  double log_sum = 0;
  int count = 0;
  for (const nlohmann::json& row : verdict.value("timing", nlohmann::json::array())) {
    const nlohmann::json median =
        row.value("speedup", nlohmann::json::object()).value("median", nlohmann::json());
    if (median.is_number() && median.get<double>() > 0) {
      log_sum += std::log(median.get<double>());
      ++count;
    }
  }
  if (count == 0) return 0.5;
  const double s = std::exp(log_sum / count);
  return 0.5 + 0.5 * std::min(s, 2.0) / 2.0;
}

}  // namespace ptxb::serve
