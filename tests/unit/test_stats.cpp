// Median and confidence-interval logic of the timing statistics, and the timing rounds' seeds.
#include <gtest/gtest.h>
#include <numeric>
#include <set>

#include <random>

#include "core/error.hpp"
#include "timing/round_seeds.hpp"
#include "timing/stats.hpp"

namespace ptxb {
namespace {

TEST(Stats, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median_ci({3, 1, 2}).median, 2);
  EXPECT_DOUBLE_EQ(median_ci({4, 1, 3, 2}).median, 2.5);
  EXPECT_DOUBLE_EQ(median_ci({7}).median, 7);
}

TEST(Stats, IntervalBracketsMedianAndUsesOrderStatistics) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  const MedianCI m = median_ci(v);
  EXPECT_DOUBLE_EQ(m.median, 50.5);
  // ranks 50 -+ 0.98*sqrt(100) = 40.2 .. 59.8 -> values 41 and 60 (1-based: floor/ceil).
  EXPECT_DOUBLE_EQ(m.low, 41);
  EXPECT_DOUBLE_EQ(m.high, 60);
  EXPECT_EQ(m.count, 100);
}

TEST(Stats, IntervalCoversTrueMedianAbout95Percent) {
  std::mt19937 rng(1);
  std::lognormal_distribution<double> dist(0.0, 0.5);  // true median exp(0) = 1
  int covered = 0;
  const int trials = 2000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> v(50);
    for (double& x : v) x = dist(rng);
    const MedianCI m = median_ci(v);
    covered += (m.low <= 1.0 && 1.0 <= m.high);
  }
  EXPECT_GT(covered, trials * 0.93);
  EXPECT_LT(covered, trials * 0.995);
}

TEST(Stats, EmptySamplesAreOurBug) { EXPECT_THROW(median_ci({}), InternalError); }

TEST(Stats, PairedRatios) {
  const auto r = paired_ratios({2, 9}, {1, 3});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_DOUBLE_EQ(r[0], 2);
  EXPECT_DOUBLE_EQ(r[1], 3);
  EXPECT_THROW(paired_ratios({1}, {1, 2}), InternalError);
}

TEST(Stats, AlgorithmChoiceKeepsTheLibraryFirstOnNearTies) {
  EXPECT_EQ(choose_algorithm({50.0, 49.5, 52.0}, 0.02), 0);  // 1% faster: noise, keep index 0
  EXPECT_EQ(choose_algorithm({50.0, 48.0, 47.0}, 0.02), 2);  // 6% faster: the fastest wins
  EXPECT_EQ(choose_algorithm({50.0, 49.0}, 0.0), 1);         // no margin: plain minimum
  EXPECT_EQ(choose_algorithm({-1.0, 49.0, 48.0}, 0.02), 2);  // index 0 failed: fastest working
  EXPECT_EQ(choose_algorithm({-1.0, -1.0}, 0.02), -1);
  EXPECT_EQ(choose_algorithm({}, 0.02), -1);
}

TEST(Stats, ShortCallsGetMoreSamplesUpToTheCap) {
  // At least the minimum, whatever the time.
  EXPECT_TRUE(want_more_samples(49, 1e9, 50, 100e3, 1000));
  // Past the minimum: only while the device time is short of the target, and under the cap.
  EXPECT_TRUE(want_more_samples(50, 50e3, 50, 100e3, 1000));
  EXPECT_FALSE(want_more_samples(50, 100e3, 50, 100e3, 1000));
  EXPECT_FALSE(want_more_samples(1000, 1e3, 50, 100e3, 1000));
  // A cap below the minimum is the minimum.
  EXPECT_FALSE(want_more_samples(50, 0, 50, 100e3, 10));
  // No time target: exactly the minimum.
  EXPECT_FALSE(want_more_samples(50, 0, 50, 0, 1000));
}

TEST(Stats, ANoisySpeedupIsTooUncertainUntilItsIntervalIsNarrow) {
  // The H200's attention forward at B 1 S 16384 (7 rounds, microseconds): the paired speedups
  // run from 0.921 to 1.028 around a median of 1.021; the interval reaches 1% past it.
  const std::vector<double> cand = {3351.2, 3515.9, 3282.9, 3275.7, 3308.9, 3616.4, 3446.2};
  const std::vector<double> lib = {3436.0, 3314.3, 3373.4, 3282.2, 3377.8, 3331.9, 3532.4};
  EXPECT_TRUE(speedup_too_uncertain(cand, lib, 0.01));
  EXPECT_FALSE(speedup_too_uncertain(cand, lib, 0.20));
  // The same shape's steady neighbour (B 4 S 4096 causal): within 0.2% of the median.
  const std::vector<double> steady_cand = {497.3, 497.8, 497.1, 496.7, 498.0, 497.8, 497.8, 497.3};
  const std::vector<double> steady_lib = {470.5, 470.8, 470.2, 470.3, 470.9, 470.5, 470.7, 470.5};
  EXPECT_FALSE(speedup_too_uncertain(steady_cand, steady_lib, 0.01));
  // Too few rounds, or unpaired samples, decide nothing.
  EXPECT_FALSE(speedup_too_uncertain({1.0}, {2.0}, 0.01));
  EXPECT_FALSE(speedup_too_uncertain({1.0, 1.2}, {2.0}, 0.01));
}

// The sustained regime's rule (worker/sustained.cpp) with the default noisy-shape settings
// (PTXBENCH_SUSTAINED_CI_PERMILLE 20, PTXBENCH_TIMING_NOISY_CAP_MS 1500).
RoundRule sustained_rule(int max_rounds, int min_total_ms) {
  return sustained_round_rule(max_rounds, min_total_ms, 20, 1500);
}

// Rounds taken for batches of `batch_us` a side whose speedup is steady.
int sustained_rounds_for(double batch_us, int max_rounds, int min_total_ms) {
  const RoundRule rule = sustained_rule(max_rounds, min_total_ms);
  std::vector<std::vector<double>> us(2);
  while (another_round(rule, us[0].size() * 2 * batch_us, us)) {
    us[0].push_back(batch_us / 20);
    us[1].push_back(batch_us / 20);
  }
  return static_cast<int>(us[0].size());
}

TEST(Stats, LongSustainedBatchesTakeFewerRounds) {
  // Batches measured on the H200 (attention backward, 20 calls a side): 232 ms at B=1 S=16384
  // stops at the minimum, 60 ms at B=4 S=4096 after 5 rounds and the pair's second, 1.4 ms
  // keeps all 10.
  EXPECT_EQ(sustained_rounds_for(231.75e3, 10, 500), kSustainedMinRounds);
  EXPECT_EQ(sustained_rounds_for(59.75e3, 10, 500), 6);
  EXPECT_EQ(sustained_rounds_for(1.35e3, 10, 500), 10);
  // No time target: every round, as before the target existed.
  EXPECT_EQ(sustained_rounds_for(231.75e3, 10, 0), 10);
  // Below three pairs the noisy-shape rule takes more, whatever the device-time rule's cap,
  // until its own cap of timed batches (1500 ms: 4 rounds here); whole pairs always.
  EXPECT_EQ(sustained_rounds_for(231.75e3, 2, 500), 4);
  EXPECT_EQ(sustained_rounds_for(231.75e3, 3, 0), 4);
  EXPECT_EQ(sustained_rounds_for(1.35e3, 2, 500), 6);
}

TEST(Stats, BalancedPairRatiosPairRoundsOfOppositeOrder) {
  EXPECT_EQ(balanced_pair_ratios({1, 3, 2, 2, 9}, {2, 2, 1, 1, 1}),
            (std::vector<double>{1.0, 2.0}));  // (1+3)/(2+2), (2+2)/(1+1); round 5 left out
  EXPECT_TRUE(balanced_pair_ratios({1}, {1}).empty());
}

// The TMA GEMM expert's sustained batches at 8192^3 on the H200, us a call, 20-call batches
// (bench/results/2026-12-04d-h200-session-evidence-cost, call 3, evaluation 1): whichever side
// ran first (the candidate in even rounds) took about 1380 us a call, the second 1430-1575.
// Per-round ratios fall in two clusters; the order-balanced pairs do not.
const std::vector<double> kHotCandidate = {
    1392.1, 1537.3, 1372.8, 1436.5, 1404.7, 1549.1, 1371.6, 1515.7, 1384.9, 1531.1, 1387.4, 1531.8,
    1468.9, 1546.3, 1419.9, 1485.3, 1375.6, 1416.0, 1554.1, 1520.9, 1375.6, 1480.2, 1392.7, 1393.4,
    1374.8, 1460.3, 1409.0, 1574.8, 1374.4, 1490.3, 1416.4, 1509.5, 1414.6, 1555.1};
const std::vector<double> kHotLibrary = {
    1432.4, 1366.8, 1514.6, 1358.0, 1458.9, 1357.6, 1469.1, 1368.0, 1424.8, 1358.8, 1497.6, 1356.6,
    1480.6, 1439.7, 1391.8, 1359.3, 1515.4, 1359.3, 1504.8, 1360.7, 1401.3, 1356.7, 1437.1, 1357.7,
    1490.1, 1370.3, 1463.0, 1360.0, 1457.1, 1377.9, 1425.2, 1398.2, 1489.9, 1410.9};

TEST(Stats, SustainedRuleTakesRoundsWhileBatchesSwing) {
  const RoundRule rule = sustained_rule(10, 500);
  std::vector<std::vector<double>> us(2);
  double timed_us = 0;
  while (us[0].size() < kHotCandidate.size() && another_round(rule, timed_us, us)) {
    const size_t r = us[0].size();
    us[0].push_back(kHotCandidate[r]);
    us[1].push_back(kHotLibrary[r]);
    timed_us += 20 * (kHotCandidate[r] + kHotLibrary[r]);
  }
  // Past the device-time rule's 10 rounds, until the pairs' interval is within 2% of their
  // median, before the noisy-shape cap (1500 ms of batches); whole pairs only.
  EXPECT_EQ(us[0].size(), 22u);
  EXPECT_LT(timed_us, 1500e3);
  // Within 1% of the ratio of the 34 rounds' sums (0.974), where the per-round median of the
  // first 9 rounds (the old rule) read 1.029.
  const double total = std::accumulate(kHotLibrary.begin(), kHotLibrary.end(), 0.0) /
                       std::accumulate(kHotCandidate.begin(), kHotCandidate.end(), 0.0);
  EXPECT_NEAR(median_ci(balanced_pair_ratios(us[1], us[0])).median, total, 0.01);
  const std::vector<double> first9c(kHotCandidate.begin(), kHotCandidate.begin() + 9),
      first9l(kHotLibrary.begin(), kHotLibrary.begin() + 9);
  EXPECT_GT(median_ci(paired_ratios(first9l, first9c)).median, 1.02);
}

}  // namespace
}  // namespace ptxb

// ---- no resident answer: the two sides' input seeds ----

namespace ptxb {
namespace {

TEST(RoundSeeds, CandidateAndLibraryNeverShareInputs) {
  std::set<uint64_t> candidate, baseline;
  for (int r = -1; r < 4999; ++r)
    for (int set = 0; set < 16; ++set) {
      candidate.insert(round_seeds(r, set).candidate);
      baseline.insert(round_seeds(r, set).baseline);
    }
  EXPECT_EQ(candidate.size(), 5000u * 16u) << "a fresh draw for every set of every round";
  EXPECT_EQ(baseline.size(), 5000u * 16u);
  for (const uint64_t s : candidate) EXPECT_EQ(baseline.count(s), 0u) << s;
  for (const uint64_t s : {1ull, 2ull, 3ull}) EXPECT_EQ(baseline.count(s), 0u) << "a task seed";
}

}  // namespace
}  // namespace ptxb

namespace ptxb {
namespace {

TEST(RoundSeeds, SustainedSetsAreDistinctFromEachOtherAndFromColdRounds) {
  std::set<uint64_t> cold, candidate, baseline;
  for (int r = -1; r < 5000; ++r)
    for (int set = 0; set < 16; ++set) {
      cold.insert(round_seeds(r, set).candidate);
      cold.insert(round_seeds(r, set).baseline);
    }
  for (int round = -1; round < 100; ++round)
    for (int call = 0; call < 64; ++call) {
      candidate.insert(sustained_seeds(round, call).candidate);
      baseline.insert(sustained_seeds(round, call).baseline);
    }
  EXPECT_EQ(candidate.size(), 101u * 64u) << "every call of every batch its own inputs";
  EXPECT_EQ(baseline.size(), 101u * 64u);
  for (const uint64_t s : candidate) {
    EXPECT_EQ(baseline.count(s), 0u) << s;
    EXPECT_EQ(cold.count(s), 0u) << s;
  }
  for (const uint64_t s : baseline) EXPECT_EQ(cold.count(s), 0u) << s;
}

}  // namespace
}  // namespace ptxb

namespace ptxb {
namespace {

TEST(CoarseTiming, StopsASlowCandidateAfterItsRoundsOnly) {
  const std::vector<double> library(10, 100.0), slow(10, 1100.0), fine(10, 400.0);
  EXPECT_TRUE(coarse_enough(slow, library, 10, 0.1)) << "0.09x after 10 rounds";
  EXPECT_FALSE(coarse_enough(fine, library, 10, 0.1)) << "0.25x: timed in full";
  const std::vector<double> nine_slow(9, 1100.0), nine_library(9, 100.0);
  EXPECT_FALSE(coarse_enough(nine_slow, nine_library, 10, 0.1)) << "not before 10 rounds";
  EXPECT_FALSE(coarse_enough(slow, library, 0, 0.1)) << "off";
  std::vector<double> mostly_fast(10, 400.0);
  mostly_fast[0] = mostly_fast[1] = 5000.0;  // two slow rounds do not make it coarse
  EXPECT_FALSE(coarse_enough(mostly_fast, library, 10, 0.1));
}

}  // namespace
}  // namespace ptxb
