// The judge of a model run: turns an attempt's code into an EvaluationRecord through the
// evaluation pipeline (eval/pipeline.hpp), one worker per GPU at a time. Compilation runs before
// a GPU is taken (it fills the compile cache the pipeline then hits), so compiling one attempt
// overlaps judging another on the GPU.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "eval/config.hpp"
#include "llm/gpu_pool.hpp"
#include "store/records.hpp"
#include "tasks/spec.hpp"
#include "verdict/verdict.hpp"

namespace ptxb {

/// The summary fields of an EvaluationRecord from a verdict (docs/result-schema.md); `task`
/// labels the timed shapes. The verdict is kept whole, as JSON, in `verdict`.
EvaluationRecord evaluation_from_verdict(const TaskSpec& task, const Verdict& verdict,
                                         int64_t attempt_id, double judge_seconds);

/// The evaluation of an attempt without code: outcome "no_code" (no code block) or
/// "generation_failed" (no answer), with the reason.
EvaluationRecord evaluation_without_code(const AttemptRecord& attempt);

/// Whether the verdict's worker found a CUDA device: false when it reported none at all (the
/// worker's "no_gpu" with cause "cuda"), true when it sent its device record, nullopt when the
/// evaluation ended before the worker could tell (a compile error, a missing worker).
std::optional<bool> worker_had_gpu(const Verdict& verdict);

class Judge {
 public:
  /// `gpus`: device indices, one concurrent evaluation per device (at least one).
  Judge(EvalConfig config, std::vector<int> gpus);

  /// Judges `attempt` (which must carry code) as task `task`. Thread-safe; blocks while every GPU
  /// is busy. Never throws for a bad candidate; PTXBench errors (ApiError, InternalError)
  /// propagate. A GPU lost during the evaluation (llm/gpu_pool.hpp) is retired and the attempt
  /// judged again on another; GpuLost once none is left.
  /// `tier`: the full judgement or the quick one (eval/tier.hpp).
  EvaluationRecord judge(const TaskSpec& task, const AttemptRecord& attempt,
                         Tier tier = Tier::kFull);

  /// The devices this judge lost, with the worker's words.
  std::vector<std::string> lost_gpus() const { return gpus_.lost_reasons(); }

 private:
  EvalConfig config_;
  GpuPool gpus_;
};

}  // namespace ptxb
