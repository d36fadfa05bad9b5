#include "eval/tier.hpp"

namespace ptxb {

std::string_view tier_name(Tier tier) { return tier == Tier::kQuick ? "quick" : "full"; }

std::optional<Tier> tier_from_name(std::string_view name) {
  if (name == "full") return Tier::kFull;
  if (name == "quick") return Tier::kQuick;
  return std::nullopt;
}

TaskSpec quick_task(const TaskSpec& task) {
  TaskSpec out = task;
  bool kept_visible = false, kept_hidden = false;
  for (ShapeCase& sc : out.shapes) {
    if (!sc.timed) continue;
    bool& kept = sc.hidden ? kept_hidden : kept_visible;
    sc.timed = !kept;
    kept = true;
  }
  return out;
}

EvalConfig quick_tier(EvalConfig config) {
  config.tier = Tier::kQuick;
  config.timing_warmup = 2;
  config.timing_samples = 10;
  config.timing_max_samples = 10;
  config.timing_block = 5;  // two rounds
  config.timing_min_ms = 0;
  config.timing_ci_permille = 0;
  config.sustained_calls = 0;
  return config;
}

}  // namespace ptxb
