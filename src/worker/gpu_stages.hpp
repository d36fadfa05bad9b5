// The worker's GPU stages: correctness over every shape x seed x distribution, timing of
// candidate and baseline interleaved on the timed shapes, and the evidence run under ncu.
// Results go out as protocol messages.
#pragma once

#include <cuda_runtime.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "tasks/spec.hpp"
#include "worker/implementation.hpp"
#include "worker/protocol.hpp"

namespace ptxb {

/// Writes protocol messages (one JSON object per line) to a file descriptor.
class ResultChannel {
 public:
  explicit ResultChannel(int fd) : fd_(fd) {}
  void send(const nlohmann::json& message) const;

 private:
  int fd_;
};

/// A CUDA error surfaced after candidate code ran: the process's context is unusable.
class CandidateFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Sends one "case" message per shape x seed x distribution; returns true when every case passed.
/// Throws CandidateFault when a candidate call leaves a CUDA error behind.
bool run_correctness(const TaskSpec& task, Implementation& candidate, const ResultChannel& out,
                     cudaStream_t stream);

/// Sends one "timing" message per timed shape.
void run_timing(const TaskSpec& task, Implementation& candidate, Implementation& baseline,
                const WorkerJob& job, const ResultChannel& out, cudaStream_t stream);

/// The evidence stage, meant to run under Nsight Compute with profiling off at start: the positive
/// and negative control each in a profiler range ("evidence_control" messages), then one call per
/// timed shape in its own range followed by a marker kernel whose grid size is the nonce of its
/// "evidence_call" message (which also says whether that call's output was correct).
void run_evidence(const TaskSpec& task, Implementation& candidate, const ResultChannel& out,
                  cudaStream_t stream);

}  // namespace ptxb
