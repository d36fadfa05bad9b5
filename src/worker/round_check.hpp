// Checks the candidate's output of every timed round (docs/timing.md, "Every round verified"),
// after the round and outside its timed events. A quick check runs the library on the candidate's
// inputs (an untimed call into the baseline's own output buffers) and compares with twice the
// task's tolerance, since both sides carry rounding; a round that fails it is confirmed against
// the fp32 reference with the task's own tolerance, so a library's rounding can never reject an
// honest candidate. The inputs must also be unchanged. The first wrong round is kept and stops
// further checks. (The last round is also checked against the fp32 reference by run_timing.)
#pragma once

#include <cuda_runtime.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "tasks/spec.hpp"
#include "timing/implementation.hpp"
#include "worker/problem.hpp"

namespace ptxb {

class RoundCheck {
 public:
  /// `library` computes into `scratch`'s outputs with `workspace`; nullptr (the self-timing
  /// check, whose baseline is the candidate) checks the inputs only.
  RoundCheck(const DistributionSpec& dist, DeviceProblem& candidate, DeviceProblem& scratch,
             Implementation* library, void* workspace, uint64_t workspace_bytes,
             cudaStream_t stream);

  /// After round `round` has finished (the stream is synchronized).
  void after_round(int round);

  bool failed() const { return failure_.has_value(); }
  /// {"rounds_checked": n, "quick_check": bool, "failure": {round, what, outputs[]}}
  nlohmann::json report() const;

 private:
  const DistributionSpec& dist_;
  DeviceProblem& candidate_;
  DeviceProblem& scratch_;
  Implementation* library_;
  void* workspace_;
  uint64_t workspace_bytes_;
  cudaStream_t stream_;
  int rounds_checked_ = 0;
  int confirmations_ = 0;
  std::optional<nlohmann::json> failure_;
};

}  // namespace ptxb
