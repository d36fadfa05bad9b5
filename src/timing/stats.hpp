// Robust summary statistics for timing samples (host code; see docs/timing.md).
#pragma once

#include <cstddef>
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

/// Which of several library algorithms (or plans) to keep, given each one's median time on the
/// same data; a negative median marks one that failed. The library's own first choice (index 0)
/// is kept unless the fastest other one beats it by more than `margin` (a fraction, e.g. 0.02):
/// near-ties then resolve the same way in every run instead of flipping with timing noise.
/// Without a working index 0, the fastest working one. -1 when none works.
int choose_algorithm(const std::vector<double>& median_us, double margin);

/// Rounds to time: at least `min_samples`; beyond that, rounds continue until the timed calls
/// of the rounds so far add up to `min_total_us` of device time, but never past `max_samples`
/// (`max_samples` below `min_samples` counts as `min_samples`). Short calls thus get more
/// samples: their medians otherwise move by percents between runs.
bool want_more_samples(int rounds_done, double timed_us_so_far, int min_samples,
                       double min_total_us, int max_samples);

/// Order-balanced pairs below which speedup_too_uncertain calls a speedup uncertain whatever
/// their spread: the interval of two pairs is the two values.
constexpr std::size_t kMinBalancedPairs = 3;

/// Whether the paired speedup (library / candidate, per round) is still too uncertain: its 95%
/// interval (median_ci) reaches further than `max_relative_halfwidth` times its median from the
/// median on either side. False with fewer than 2 rounds or unequal lengths. Long shapes whose
/// calls swing by percents from round to round (attention forward at B 1 S 16384 on the H200:
/// 3276-3616 us within 7 rounds, power-bound) then take more rounds than the device-time rule
/// gives them.
/// `balanced_pairs`: the interval of the order-balanced pair ratios instead (below); with fewer
/// than kMinBalancedPairs pairs true (still uncertain), so the rule's cap decides.
bool speedup_too_uncertain(const std::vector<double>& candidate_us,
                           const std::vector<double>& library_us, double max_relative_halfwidth,
                           bool balanced_pairs = false);

/// Order-balanced ratios: rounds 2k and 2k+1 ran the two sides in opposite orders
/// (timing/interleaved.hpp), so each pair's ratio sum(numerator) / sum(denominator) over its two
/// rounds cancels what running first or second does to a side. Where a side's batch heats the GPU
/// for the next one (8192^3 GEMM on the H200, 30 ms batches: whichever side ran first took
/// ~1380 us a call and the second 1430-1575 us), the per-round ratios fall in two clusters, one
/// per order, and their median sits on the edge of one of them (docs/timing.md). A trailing odd
/// round is left out.
std::vector<double> balanced_pair_ratios(const std::vector<double>& numerator,
                                         const std::vector<double>& denominator);

/// The round loop's rule (time_interleaved), in rounds: want_more_samples over `min_rounds`,
/// `min_total_us` and `max_rounds`; then, with a candidate and a library timed, more rounds while
/// speedup_too_uncertain(.., `max_speedup_halfwidth`, `whole_pairs`), up to `noisy_max_rounds`
/// and while the timed calls stay under `noisy_cap_us`; and with `whole_pairs` never an odd count.
struct RoundRule {
  int min_rounds = 0;
  int max_rounds = 0;
  double min_total_us = 0;
  double max_speedup_halfwidth = 0;  ///< 0: no noisy-shape rule
  double noisy_cap_us = 0;
  int noisy_max_rounds = 0;
  bool whole_pairs = false;
};
/// `us` holds every side's samples so far (us[0] the candidate, us[1] the library when there are
/// two sides); `timed_us` their device time together.
bool another_round(const RoundRule& rule, double timed_us,
                   const std::vector<std::vector<double>>& us);

constexpr int kSustainedMinRounds = 4;
/// Where the noisy-shape rule stops adding sustained rounds at the latest (its device-time cap
/// usually comes first: 8192^3 GEMM, 30 ms batches, reaches 1500 ms after about 26 rounds).
constexpr int kSustainedNoisyRounds = 40;
/// The sustained regime's rule (docs/timing.md), a round being one batch a side: `max_rounds`
/// rounds, or fewer once the timed batches of both sides add up to `min_total_ms`, but never
/// fewer than kSustainedMinRounds (two order-balanced pairs); whole pairs always. A sample there
/// averages a whole batch (20 calls), so a few rounds give a stable median where a batch is long
/// (attention backward: 0.23 s a side at B=1 S=16384). The noisy-shape rule adds pairs while
/// their interval is wider than `ci_permille` tenths of a percent of the median (0: off), up to
/// `noisy_cap_ms` of timed batches and max(`max_rounds`, kSustainedNoisyRounds) rounds.
/// min_total_ms 0: always `max_rounds` by the device-time rule.
RoundRule sustained_round_rule(int max_rounds, int min_total_ms, int ci_permille, int noisy_cap_ms);

/// A slow candidate's timing stops early ("coarse", docs/timing.md): true once at least
/// `after_rounds` paired samples exist and the median of library / candidate is below
/// `min_speedup`. More rounds would refine a speedup that is far from mattering, at the cost of
/// the slow candidate's time. `after_rounds` <= 0 never stops.
bool coarse_enough(const std::vector<double>& candidate_us, const std::vector<double>& library_us,
                   int after_rounds, double min_speedup);

}  // namespace ptxb
