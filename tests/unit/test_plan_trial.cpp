// The early stop of a library plan's trial (src/baselines/plan_trial.hpp): no stop without a best
// so far or before the minimum of runs, a stop exactly when the fastest run is past the cut, and a
// stopped plan's recorded median always loses to the best.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "baselines/plan_trial.hpp"

namespace ptxb {
namespace {

TEST(PlanTrial, NoBestSoFarNeverStops) {
  EXPECT_FALSE(plan_cannot_win({5000, 5000, 5000, 5000}, std::nullopt));
}

TEST(PlanTrial, FewerRunsThanTheMinimumNeverStop) {
  EXPECT_FALSE(plan_cannot_win({}, 100.0));
  EXPECT_FALSE(plan_cannot_win({13000, 13000}, 900.0));
}

TEST(PlanTrial, AFarSlowerPlanStopsAfterTheMinimumOfRuns) {
  // The variable-length forward's runtime-compiled eng1 plan against eng2 (H100, 2026-12-05).
  EXPECT_TRUE(plan_cannot_win({13569, 13480, 13612}, 918.7));
}

TEST(PlanTrial, OneFastRunKeepsThePlanInTheTrial) {
  EXPECT_FALSE(plan_cannot_win({5000, 1500, 5000}, 918.7));
}

// Property over many trials: a stopped trial's recorded median (of the runs it took) is more than
// the cut ratio times the best, so the stopped plan is never chosen; and a trial is stopped exactly
// when its fastest run is past that bound.
TEST(PlanTrial, AStoppedTrialsRecordedMedianLosesToTheBest) {
  const double best = 1000.0;
  for (double fastest = 500.0; fastest <= 5000.0; fastest += 125.0) {
    for (double spread : {0.0, 10.0, 400.0}) {
      std::vector<double> runs = {fastest + spread, fastest, fastest + 2 * spread};
      const bool stopped = plan_cannot_win(runs, best);
      EXPECT_EQ(stopped, fastest > kPlanTrialCutRatio * best) << fastest;
      if (!stopped) continue;
      std::sort(runs.begin(), runs.end());
      EXPECT_GT(runs[runs.size() / 2], kPlanTrialCutRatio * best) << fastest;
    }
  }
}

}  // namespace
}  // namespace ptxb
