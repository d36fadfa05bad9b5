// The run loop of `ptxbench run` (DESIGN.md "LLM loop"): for every task x sample a chain of turns
// — ask the model, extract the code, judge it, feed the verdict back — stored attempt by attempt
// so that a killed run resumes where it stopped: stored turns are not asked again, unjudged ones
// are judged first, nothing is judged twice. Samples run concurrently (model calls overlap with
// compiling and judging); each chain is sequential.
// NOTE: llm depends on store here (records, resume state): the loop is where both meet.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "llm/judge.hpp"
#include "llm/model.hpp"
#include "store/store.hpp"

namespace ptxb {

struct RunLoopOptions {
  int samples = 1;               ///< samples per task (sample indices 0..samples-1)
  int turns = 1;                 ///< turns per sample (1: no repair)
  bool keep_optimizing = false;  ///< keep asking after a success (until `turns`)
  int concurrency = 8;           ///< sample chains (and so model calls) in flight at once
  /// This process runs the sample chains whose index (tasks in order, then samples) is
  /// `shard` modulo `shards` (`ptxbench run --shard I/N`; `ptxbench merge` joins the stores).
  int shard = 0;
  int shards = 1;
};

/// Whether chain `index` belongs to `options`' shard.
inline bool in_shard(size_t index, const RunLoopOptions& options) {
  return static_cast<int>(index % static_cast<size_t>(options.shards)) == options.shard;
}

/// What a finished attempt reports to the progress display.
struct AttemptDone {
  const AttemptRecord* attempt = nullptr;
  const EvaluationRecord* evaluation = nullptr;  ///< null when the run does not judge
};

/// Runs (or resumes) run `run_id` of `store` over `tasks`. `judge` null: generate only (turn 0 of
/// every sample; more turns need verdicts, so options.turns must be 1). `on_done` is called from
/// worker threads, one call at a time. Returns the number of attempts generated now.
/// Throws PTXBench errors (ApiError, InternalError) after the running chains stopped.
int64_t run_loop(Model& model, ResultStore& store, int64_t run_id,
                 const std::vector<TaskSpec>& tasks, Judge* judge, const RunLoopOptions& options,
                 const std::function<void(const AttemptDone&)>& on_done);

/// Judges every stored attempt of run `run_id` that has no evaluation yet (`ptxbench evaluate`),
/// without model calls. Returns the number judged.
int64_t judge_pending(ResultStore& store, int64_t run_id, const std::vector<TaskSpec>& tasks,
                      Judge& judge, int concurrency,
                      const std::function<void(const AttemptDone&)>& on_done);

}  // namespace ptxb
