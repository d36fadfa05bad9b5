// When the trial of one library plan may stop early: the baseline times every plan the library
// offers and keeps the fastest (by median), and a plan far behind the best so far cannot become
// it. Plain C++: the rule is tested on the CPU (tests/unit/test_plan_trial.cpp).
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

namespace ptxb {

/// Timed runs a trial takes before plan_cannot_win may stop it.
inline constexpr int kPlanTrialMinRuns = 3;
/// How far behind the best median a trial's fastest run must be for plan_cannot_win.
inline constexpr double kPlanTrialCutRatio = 2.0;

/// True when the trial with timed runs `runs_us` (warm-ups excluded) may stop as a loser against
/// `best_median_us`, the best plan's median so far: at least kPlanTrialMinRuns runs, and even the
/// fastest of them more than kPlanTrialCutRatio times the best median, so the median of the runs
/// taken is too. It assumes what the trial's warm-ups give it, a plan's time steady from run to
/// run; a margin of 2x leaves clock drift (up to 12% between machine starts, docs/timing.md) far
/// behind. False without a best so far.
inline bool plan_cannot_win(const std::vector<double>& runs_us,
                            std::optional<double> best_median_us) {
  if (!best_median_us || static_cast<int>(runs_us.size()) < kPlanTrialMinRuns) return false;
  const double fastest = *std::min_element(runs_us.begin(), runs_us.end());
  return fastest > kPlanTrialCutRatio * *best_median_us;
}

}  // namespace ptxb
