// Pieces shared by the worker's GPU stages (correctness, timing, evidence): fault attribution,
// planning and the JSON forms of shapes and comparison results.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "cuda/device.hpp"
#include "tasks/spec.hpp"
#include "tasks/task_json.hpp"  // shape_json
#include "timing/implementation.hpp"
#include "timing/interleaved.hpp"
#include "verify/compare_stats.hpp"
#include "worker/candidate_scope.hpp"
#include "worker/problem.hpp"

namespace ptxb {

/// Synchronizes after candidate code; any CUDA error now is the candidate's: throws CandidateFault.
void check_after_candidate(cudaStream_t stream, const std::string& what);

/// JSON has no NaN or Inf: such values become the strings "NaN", "Infinity", "-Infinity".
nlohmann::json number_json(double v);
nlohmann::json stats_json(const CompareStats& s);
/// The tolerance of output `output` under distribution `d` (its per-output override if any).
CompareTolerance tolerance_of(const DistributionSpec& d, const std::string& output);

/// Every output of `problem` against the fp32 reference of its current (pristine) inputs, with
/// `dist`'s tolerances: the reference is computed here.
struct OutputCheck {
  bool passed = true;
  nlohmann::json outputs = nlohmann::json::array();  ///< per output: stats_json + name, passed
};
OutputCheck check_against_reference(DeviceProblem& problem, const DistributionSpec& dist,
                                    cudaStream_t stream);

/// The result of ptxb_plan for one problem: status 0 and the workspace it asked for, status -1
/// when it asked for more than PTXB_MAX_WORKSPACE_BYTES, else the non-zero status it returned.
struct Planned {
  int status = 0;
  DeviceBuffer workspace;
};
/// A library's (or the self-check's) plan for `p`, then its tune() on p's buffers.
Planned plan_for(Implementation& impl, const DeviceProblem& p, cudaStream_t stream);
/// The library's plans for every timed shape of `task`, prepared at once
/// (Implementation::prebuild: cuDNN builds its plans in parallel threads); plan_for takes them.
void prebuild_timed_shapes(const TaskSpec& task, Implementation& library);
/// Before any candidate code runs (the worker's start), with library.times_plans(): plans the
/// library for every timed shape of `task`, which times the plans it offers or takes the ones it
/// was told to prefer, then prefers what it chose (plan_for takes those untimed). Returns the
/// choices (an array of plan_choice() values), each with "device": `device` and "source": "timed"
/// (timed here) or "cached" (a preferred one taken untimed). A plan that fails or
/// throws is left out (plan_for meets it again and reports it).
nlohmann::json choose_library_plans(const TaskSpec& task, Implementation& library,
                                    const std::string& device);
/// The elements of `choices` (the job's library_choices) made on `device` (choose_library_plans).
nlohmann::json choices_of_device(const nlohmann::json& choices, const std::string& device);
/// The candidate's side of interleaved timing: `run(call)` (call: the index within the round's
/// sample) with the monitor armed around it only (the scope's watchdog covers the whole timing)
/// and, with hardware counters, every sample in a counter range of its own holding `calls`
/// candidate calls at timed shape `shape` (docs/evidence.md), the counters' host time kept under
/// phase `phase`.
TimedCall counted_candidate_call(StageContext& ctx, CandidateScope& scope, size_t shape, int calls,
                                 std::function<int(int call)> run, std::string phase);

/// time_interleaved of `calls` (the candidate's among them) under phase `phase`; a CUDA failure
/// there is the candidate's: rethrown as CandidateFault("during WHAT: ...").
TimingSamples time_with_candidate(const std::vector<TimedCall>& calls, const TimingOptions& options,
                                  cudaStream_t stream, StageContext& ctx, const char* phase,
                                  const std::string& what);

/// What a candidate-then-library timing says about host time, for the shape's details: the gate
/// holds that expired (`gate_expired`) and the candidate's samples that were its host time
/// (`host_bound`); only the keys that are not 0.
nlohmann::json host_time_details(const TimingSamples& samples);

/// plan_for for candidate code: under a CandidateScope (watchdog, monitor, violations).
Planned plan_candidate(Implementation& candidate, const DeviceProblem& p, StageContext& ctx,
                       const Shape& shape);

}  // namespace ptxb
