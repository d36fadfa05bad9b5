#include "llm/judge.hpp"

#include <chrono>
#include <cstdio>

#include "compile/static_stage.hpp"
#include "core/error.hpp"
#include "eval/pipeline.hpp"
#include "eval/tier.hpp"
#include "tasks/task_json.hpp"

namespace ptxb {

using nlohmann::json;

EvaluationRecord evaluation_from_verdict(const TaskSpec& task, const Verdict& verdict,
                                         int64_t attempt_id, double judge_seconds) {
  const json& record = verdict.record;
  EvaluationRecord e;
  e.attempt_id = attempt_id;
  e.outcome = std::string(to_string(verdict.outcome));
  e.reason = verdict.reason;
  e.compiled = record.value("compile", json::object()).value("ok", false);
  e.correct = verdict.correctness && verdict.correctness->total.value_or(0) > 0 &&
              verdict.correctness->passed == verdict.correctness->total;
  e.targets_executed = all_targets_met(verdict.targets);
  e.success = verdict.outcome == Outcome::kPassed;
  e.audit = !record.value("audit", json::array()).empty();
  for (const ShapeTiming& t : verdict.timing) {
    if (!t.error.empty()) continue;
    const ShapeCase* sc = find_shape(task, t.shape);
    ShapeSpeedup s;
    s.shape = sc != nullptr ? sc->shape.to_string() : t.shape.dump();
    s.hidden = sc != nullptr && sc->hidden;
    if (sc != nullptr) s.regime = sc->regime;
    s.speedup = t.speedup.median;
    s.candidate_tflops = t.candidate_tflops();
    s.baseline_tflops = t.baseline_tflops();
    if (t.sustained && t.sustained->error.empty())
      s.sustained_speedup = t.sustained->speedup.median;
    e.speedups.push_back(std::move(s));
  }
  e.judge_seconds = judge_seconds;
  e.stage_seconds = record.value("stage_seconds", json::object());
  e.verdict = verdict.to_json();
  return e;
}

EvaluationRecord evaluation_without_code(const AttemptRecord& attempt) {
  EvaluationRecord e;
  e.attempt_id = attempt.id;
  const bool failed = attempt.status == GenerationStatus::kFailed;
  e.outcome = failed ? "generation_failed" : "no_code";
  e.reason = failed ? attempt.error : "the answer holds no code block";
  e.verdict = {{"outcome", e.outcome}, {"reason", e.reason}};
  return e;
}

std::optional<bool> worker_had_gpu(const Verdict& verdict) {
  const json worker = verdict.record.value("worker", json::object());
  if (worker.contains("no_gpu"))
    return worker["no_gpu"].value("cause", "") == "cuda" ? std::optional(false) : std::nullopt;
  if (verdict.record.contains("environment")) return true;
  return std::nullopt;
}

Judge::Judge(EvalConfig config, std::vector<int> gpus)
    : config_(std::move(config)), gpus_(std::move(gpus)) {}

EvaluationRecord Judge::judge(const TaskSpec& task, const AttemptRecord& attempt, Tier tier) {
  PTXB_ASSERT(attempt.code.has_value(), "judge: attempt " + std::to_string(attempt.id) +
                                            " has no code (use evaluation_without_code)");
  const auto start = std::chrono::steady_clock::now();
  // NOTE: the same source, options and arch as evaluate() uses: its compile is then a cache hit.
  CompileOptions co = config_.compile;
  co.arch = task.arch;
  compile_submission(*attempt.code, co);
  const auto compiled = std::chrono::steady_clock::now();

  std::optional<Verdict> judged;
  std::chrono::steady_clock::time_point got_gpu;
  while (!judged) {
    const int device = gpus_.acquire();  // GpuLost once every device is lost
    got_gpu = std::chrono::steady_clock::now();
    // Gives the GPU back however the evaluation ends; an exception tells nothing about it.
    struct GpuRelease {
      GpuPool* pool;
      int device;
      bool done = false;
      ~GpuRelease() {
        if (!done) pool->release(device, std::nullopt);
      }
    } release{&gpus_, device};
    EvalConfig config = tier == Tier::kQuick ? quick_tier(config_) : config_;
    config.device = device;
    // Workers on different GPUs must not share a sandbox user: each run ends by killing every
    // process of its user.
    config.sandbox_uid =
        config_.sandbox_uid - static_cast<uint32_t>(config_.device) + static_cast<uint32_t>(device);
    Verdict verdict =
        evaluate({*attempt.code, "attempt-" + std::to_string(attempt.id) + ".cu", task.id}, config);
    release.done = true;
    if (gpus_.release(device, worker_had_gpu(verdict), verdict.reason)) {
      std::fprintf(stderr,
                   "ptxbench: GPU %d had judged before and its worker now finds no CUDA device "
                   "(%s): it is retired, and attempt %lld is judged again on another\n",
                   device, verdict.reason.c_str(), static_cast<long long>(attempt.id));
      continue;
    }
    judged = std::move(verdict);
  }
  const Verdict& verdict = *judged;
  auto seconds = [](auto from, auto to) {
    return std::chrono::duration<double>(to - from).count();
  };
  EvaluationRecord e = evaluation_from_verdict(task, verdict, attempt.id,
                                               seconds(start, std::chrono::steady_clock::now()));
  // The compile before the GPU is taken is a stage of the judgement (the pipeline's own compile
  // is then a cache hit); waiting for a free GPU is queueing, reported apart.
  e.stage_seconds["compile_before_gpu"] = seconds(start, compiled);
  e.stage_seconds["gpu_wait"] = seconds(compiled, got_gpu);
  return e;
}

}  // namespace ptxb
