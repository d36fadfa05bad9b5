// The records of a model run (docs/model-runs.md), shared by the store (SQLite), the exporter, the
// report and the run loop: a run, one attempt per (task, sample, turn) with the model's full
// request and response, and the evaluation of an attempt's code. Plain data, no I/O; JSON fields
// hold what the model server or the judge returned, unchanged.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ptxb {

/// One `ptxbench run` (or `generate`): which model, with which settings, on what machine.
struct RunRecord {
  int64_t id = 0;                ///< assigned by the store
  std::string name;              ///< unique, chosen by the user or derived ("qwen3-27b-2026-11-29")
  std::string model;             ///< model name sent to the server, or "reference" / "replay"
  std::string endpoint;          ///< base URL ("" for offline models)
  std::string prompt_version;    ///< version of the prompt text (llm/prompt.hpp)
  std::string ptxbench_version;  ///< version and commit of PTXBench
  std::string created_at;        ///< UTC, ISO 8601
  nlohmann::json settings;       ///< temperature, top_p, max_tokens, seed, samples, turns, ...
  nlohmann::json environment;    ///< GPU, driver, clocks, CUDA/cuBLAS/cuDNN versions (judge side)
};

/// How the generation of one attempt ended.
enum class GenerationStatus {
  kOk,      ///< the server answered and code was extracted
  kNoCode,  ///< the server answered without a code block: the attempt's verdict is `no_code`
  kFailed,  ///< no usable answer after every retry (HTTP errors, timeouts, malformed JSON)
};

/// One model call: turn `turn` (0-based) of sample `sample` of `task_id` in run `run_id`.
struct AttemptRecord {
  int64_t id = 0;  ///< assigned by the store
  int64_t run_id = 0;
  std::string task_id;
  int sample = 0;
  int turn = 0;
  GenerationStatus status = GenerationStatus::kOk;
  std::string error;                ///< why generation failed (kFailed), else ""
  nlohmann::json request;           ///< the full request body sent (messages included)
  nlohmann::json response;          ///< the full response body received (null if none)
  std::string response_text;        ///< the assistant message's content
  std::string reasoning_text;       ///< reasoning returned by the server, if any
  std::optional<std::string> code;  ///< the extracted source file
  std::string feedback;  ///< what the next turn was told about this attempt (repair loop)
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  double latency_s = 0;  ///< wall time of the successful request
  int retries = 0;       ///< requests retried before the answer
  std::string created_at;
};

/// Speed of one timed shape of a judged attempt.
struct ShapeSpeedup {
  std::string shape;  ///< "M=4096 N=4096 K=4096"
  bool hidden = false;
  double speedup = 0;  ///< library time / candidate time (median of paired ratios)
  double candidate_tflops = 0;
  double baseline_tflops = 0;
  /// The sustained regime's speedup (docs/timing.md), when it was measured.
  std::optional<double> sustained_speedup;
  std::string regime;  ///< the task's regime of the shape ("decode"); "" when it has none
};

/// The judgement of one attempt's code (absent for attempts without code).
struct EvaluationRecord {
  int64_t attempt_id = 0;
  std::string outcome;  ///< an Outcome name (core/outcome.hpp) or "no_code"
  std::string reason;
  bool compiled = false;          ///< the static stage succeeded
  bool correct = false;           ///< every correctness case passed
  bool targets_executed = false;  ///< every target reached its required evidence level
  bool success = false;           ///< outcome == passed
  bool audit = false;             ///< the verdict carries audit flags for a person
  std::vector<ShapeSpeedup> speedups;
  double judge_seconds = 0;      ///< wall time of the whole judgement
  nlohmann::json stage_seconds;  ///< per stage (compile, worker, evidence)
  nlohmann::json verdict;        ///< the full verdict JSON (docs/result-schema.md)
  std::string created_at;
};

}  // namespace ptxb
