// The worker's GPU stages: correctness over every shape x seed x distribution, timing of
// candidate and baseline interleaved on the timed shapes, and the evidence run under ncu.
// Results go out as protocol messages.
#pragma once

#include <cuda_runtime.h>

#include <nlohmann/json.hpp>

#include "protocol/protocol.hpp"
#include "tasks/spec.hpp"
#include "timing/implementation.hpp"
#include "worker/candidate_scope.hpp"
#include "worker/range_profiler.hpp"
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

/// One "counters" message per timed shape with the hardware counts of every candidate call made
/// there (groups of equal counts), or a "candidate_violation" when the counters broke after
/// candidate code ran.
void send_counters(const TaskSpec& task, CallCounters& counters, const ResultChannel& out);

/// The evidence run's controls, each in its own profiler range ("evidence_control" messages): the
/// evidence control live and dead, then the FLOP control live. Under ncu, run before candidate
/// code is loaded and before the environment is replaced: the profiler sets up its counter
/// collection on the first profiled kernel and reads its own variables then. In-process (`sass`
/// given) each range is a collection and each message carries its "records" ({"functions":
/// [mangled], "pcs": [[function index, PC, warps, threads], ...]}).
void run_evidence_controls(const ResultChannel& out, cudaStream_t stream,
                           SassMetrics* sass = nullptr);

/// The in-process evidence's hardware counters, before its collections: each control, then one
/// call per timed shape on the first seed's inputs, run with `counters` (RangeMode::kPerKernel)
/// counting every kernel launch; one "evidence_counters" message each with the counts summed
/// over the launches ({"launches", "values": {metric: value}}), and for calls the shape,
/// plan_status and run_status ("evidence_shape_start" before each call, as in run_evidence).
void run_evidence_counters(const TaskSpec& task, Implementation& candidate, StageContext& ctx,
                           RangeProfiler& counters);

/// The evidence stage, meant to run under Nsight Compute with profiling off at start, after
/// run_evidence_controls: one call per
/// timed shape in its own range followed by a marker kernel whose grid size is the nonce of its
/// "evidence_call" message (which also says whether that call's output was correct). Before each
/// profiled call, a random number (1 to 32) of unprofiled calls on fresh inputs, so that the
/// profiled call is no first call (docs/evidence.md). In-process (ctx.sass set) the profiled call
/// is a collection of its own, sent as the message's "records", and no marker follows it.
void run_evidence(const TaskSpec& task, Implementation& candidate, StageContext& ctx);

}  // namespace ptxb
