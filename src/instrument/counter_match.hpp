// Ties the runtime evidence to the timed calls (docs/evidence.md, "Counters from the timed
// process"): the hardware counters of every candidate call the worker made at a timed shape
// (CUPTI range profiler) against the same counters of the call Nsight Compute profiled at that
// shape. Pure: no process, no GPU.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "instrument/ncu_csv.hpp"
#include "tasks/catalog.hpp"

namespace ptxb {

/// Calls of one shape whose counters were identical (values in the order of the counters list).
struct CountedCalls {
  std::vector<double> values;
  int64_t count = 0;
  std::vector<int64_t> calls;  ///< indices of the first few such calls (worker call order)
};

/// The worker's counts at one timed shape.
struct TimedShapeCounts {
  std::string label;  ///< "M=4096 N=4096 K=4096" or "hidden shape #2"
  std::vector<CountedCalls> groups;
};

struct CounterMismatch {
  std::string label;
  std::string metric;
  double timed = 0;
  double profiled = 0;
  std::vector<int64_t> calls;  ///< the timed calls with this value
  int64_t count = 0;           ///< how many calls had it
};

struct CounterMatch {
  int64_t calls_compared = 0;
  int64_t calls_mismatched = 0;
  std::vector<CounterMismatch> mismatches;  ///< one per (group, metric) off tolerance
  /// What could not be compared, one line per (shape, metric): a counter the profiled call lacks
  /// or a timed group with fewer values than counters. Non-empty: the check is unavailable.
  std::vector<std::string> unmeasured;
  /// Two or more mismatching calls: the evidence does not describe the timed calls.
  bool confirmed() const { return calls_mismatched >= 2; }
  /// "at M=...: sm__...gmma.sum 0 in timed calls 17 and 18, 1048576 in the profiled call"
  std::string reason() const;
  nlohmann::json to_json() const;
};

/// True when `timed` and `profiled` differ by more than `tolerance` relative to the larger.
bool counts_differ(double timed, double profiled, double tolerance);

/// The first counter ncu did not report for a kernel of one profiled call, as "METRIC for kernel
/// NAME"; "" when every kernel has every counter. Such a call's counters cannot be compared with
/// the timed calls' (docs/evidence.md: unmeasured is unavailable, never passed).
std::string missing_counter(const std::vector<ProfiledKernel>& call_kernels,
                            const std::vector<CounterSpec>& counters);

/// Sums each counter over the kernels of one profiled call (ncu rows). Counters ncu did not report
/// are absent from the map.
std::map<std::string, double> profiled_counts(const std::vector<ProfiledKernel>& call_kernels,
                                              const std::vector<CounterSpec>& counters);

/// Compares every group of `timed` with `profiled` (by label). A label missing from `profiled`
/// is skipped (that shape had no profiled call).
CounterMatch match_counters(const std::vector<CounterSpec>& counters,
                            const std::vector<TimedShapeCounts>& timed,
                            const std::map<std::string, std::map<std::string, double>>& profiled);

}  // namespace ptxb
