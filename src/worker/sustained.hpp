// The sustained timing regime at one timed shape (docs/timing.md, "Two regimes"): batches of R
// back-to-back candidate calls on R distinct fresh input sets writing R output buffers, no L2
// flush inside a batch, interleaved batch by batch with the library's batch on its own,
// independently drawn sets; every candidate output of every timed batch checked after the batch
// (worker/round_check.hpp), outside the timed events; each batch counted as one hardware-counter
// range whose counts must be R times the profiled call's.
#pragma once

#include "protocol/protocol.hpp"
#include "tasks/spec.hpp"
#include "timing/implementation.hpp"
#include "verdict/verdict_parts.hpp"
#include "worker/candidate_scope.hpp"
#include "worker/stage_helpers.hpp"  // Planned

namespace ptxb {

/// Measures shape `shape_index` of `task` with job.sustained_calls calls per batch and at most
/// job.sustained_rounds timed rounds, fewer for long batches (sustained_round_rule), after one
/// warm-up batch per side. `library` is false for the self-timing check (no library to check
/// outputs with: inputs and guards only). Returns a SustainedTiming with `error` set when the
/// device lacks the memory for the input sets or a batch returned non-zero; throws CandidateFault
/// for a CUDA fault during candidate code.
/// `candidate` and `baseline` are planned for this shape already (the cold regime's plans, whose
/// workspaces `cand_plan` and `base_plan` are): a plan sees sizes only, so the regime reuses them
/// instead of planning (and the library autotuning) again.
SustainedTiming run_sustained(const TaskSpec& task, size_t shape_index, Implementation& candidate,
                              Implementation& baseline, bool library, const WorkerJob& job,
                              StageContext& ctx, const Planned& cand_plan,
                              const Planned& base_plan);

}  // namespace ptxb
