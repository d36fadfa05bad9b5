// The input sets of one timed shape for a regime that makes several candidate calls per counter
// range (docs/timing.md, "Blocks and pools"): the cold regime's blocks of calls, the sustained
// regime's batches. A range's counts only prove the work of all its calls together, so no call
// may be able to do a later call's work early (one launch of many small problems fills the GPU
// where one problem per launch does not). The candidate side therefore draws from a pool of more
// sets than a round uses: every round redraws the inputs and poisons the outputs of every pool
// set, then picks which of them the round's calls get, in a random order. Work done ahead for a
// set the round does not use is extra work the range's counts show; the sets look alike
// beforehand. The baseline side (a library) has one set per call.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "tasks/spec.hpp"
#include "timing/implementation.hpp"
#include "timing/round_seeds.hpp"
#include "worker/problem.hpp"
#include "worker/round_check.hpp"

namespace ptxb {

/// Candidate pool sets for `calls` calls a round: calls + max(kPoolExtraMin, calls /
/// kPoolExtraDivisor), and 1 for a single call (its range counts it alone).
constexpr int kPoolExtraMin = 2;
constexpr int kPoolExtraDivisor = 4;
int pool_size(int calls);

class TimingSets {
 public:
  /// The seeds of set `set` for round `round` (-1: the first draw).
  using Seeds = std::function<RoundSeeds(int round, int set)>;

  /// Allocates the sets for `calls` calls a round, or for fewer (down to `min_calls`) when the
  /// device's free memory does not hold them all; first draws with `seeds(-1, set)`, the
  /// structure from the task's first seed. nullptr with *why_not when not even `min_calls` fit.
  static std::unique_ptr<TimingSets> allocate(const TaskSpec& task, const Shape& shape, int calls,
                                              int min_calls, const DistributionSpec& dist,
                                              Seeds seeds, cudaStream_t stream,
                                              std::string* why_not);

  int calls() const { return static_cast<int>(baseline_.size()); }
  int pool() const { return static_cast<int>(candidate_pool_.size()); }

  /// Round `round`: redraws the free inputs of every set, poisons every candidate output, and
  /// picks the candidate sets of the round's calls.
  void next_round(int round, cudaStream_t stream);
  /// The set of the round's call `call` (0 <= call < calls()).
  DeviceProblem& candidate(int call) { return *candidate_pool_[chosen_[call]]; }
  DeviceProblem& baseline(int call) { return *baseline_[call]; }
  /// The pool index behind call `call` this round.
  int chosen(int call) const { return chosen_[call]; }
  /// Pool set `set` (0 <= set < pool()), chosen or not.
  DeviceProblem& pool_set(int set) { return *candidate_pool_[set]; }

  /// One RoundCheck per pool set (worker/round_check.hpp; scratch: a baseline set), for
  /// check_round.
  void make_checks(const DistributionSpec& dist, Implementation* library, void* workspace,
                   uint64_t workspace_bytes, cudaStream_t stream);
  /// Checks the outputs of the round's calls (their pool sets' checks) until one fails; after a
  /// failure, nothing more is checked.
  void check_round(int round);
  bool failed() const { return failed_call_ >= 0; }
  /// {"rounds_checked" (most of any set), "outputs_checked", "confirmations", "quick_check",
  /// "failure" {round, what, ..., "call" (in its round), "set" (pool set)} once one failed}.
  nlohmann::json report(bool quick_check) const;

 private:
  TimingSets() = default;
  std::vector<std::unique_ptr<DeviceProblem>> candidate_pool_, baseline_;
  std::vector<std::unique_ptr<RoundCheck>> checks_;
  std::vector<int> chosen_;
  int failed_call_ = -1, failed_set_ = -1;
  const DistributionSpec* dist_ = nullptr;
  Seeds seeds_;
  std::mt19937_64 random_{std::random_device{}()};
};

}  // namespace ptxb
