// The worker's GPU stages: correctness over every shape x seed x distribution, timing of
// candidate and baseline interleaved on the timed shapes, and the evidence run under ncu.
// Results go out as protocol messages.
#pragma once

#include <cuda_runtime.h>

#include <nlohmann/json.hpp>

#include "tasks/spec.hpp"
#include "worker/gpu_candidate_scope.hpp"
#include "worker/implementation.hpp"
#include "worker/protocol.hpp"
#include "worker/result_channel.hpp"

namespace ptxb {

/// Sends one "case" message per shape x seed x distribution; returns true when every case passed.
/// Throws CandidateFault when a candidate call leaves a CUDA error behind.
/// With `quick`, only the smallest visible and the smallest hidden shape, the first seed and the
/// first distribution.
bool run_correctness(const TaskSpec& task, Implementation& candidate, StageContext& ctx,
                     bool quick = false);

/// Sends one "timing" message per timed shape. Every sample round runs on freshly generated
/// inputs, and the candidate's output of the last timed round is checked ("verified").
void run_timing(const TaskSpec& task, Implementation& candidate, Implementation& baseline,
                const WorkerJob& job, StageContext& ctx);

/// The evidence stage, meant to run under Nsight Compute with profiling off at start: the positive
/// and negative control each in a profiler range ("evidence_control" messages), then one call per
/// timed shape in its own range followed by a marker kernel whose grid size is the nonce of its
/// "evidence_call" message (which also says whether that call's output was correct).
void run_evidence(const TaskSpec& task, Implementation& candidate, StageContext& ctx);

}  // namespace ptxb
