#include "llm/run_loop.hpp"

#include <atomic>
#include <exception>
#include <future>
#include <map>
#include <mutex>

#include "core/error.hpp"
#include "llm/bounded_pool.hpp"
#include "llm/code_extract.hpp"
#include "llm/feedback.hpp"
#include "llm/prompt.hpp"

namespace ptxb {
namespace {

using Reporter = std::function<void(const AttemptDone&)>;

const TaskSpec& task_of(const std::vector<TaskSpec>& tasks, const std::string& id) {
  for (const TaskSpec& t : tasks)
    if (t.id == id) return t;
  throw InputError("the run holds attempts of task '" + id + "', which is not loaded");
}

AttemptRecord attempt_from(const ChatResult& r, int64_t run_id, const std::string& task_id,
                           int sample, int turn) {
  AttemptRecord a;
  a.run_id = run_id;
  a.task_id = task_id;
  a.sample = sample;
  a.turn = turn;
  a.request = r.request;
  a.response = r.response;
  a.response_text = r.content;
  a.reasoning_text = r.reasoning;
  a.prompt_tokens = r.prompt_tokens;
  a.completion_tokens = r.completion_tokens;
  a.latency_s = r.latency_s;
  a.retries = r.retries;
  if (!r.ok()) {
    a.status = GenerationStatus::kFailed;
    a.error = r.error;
    return a;
  }
  a.code = extract_code(r.content);
  a.status = a.code ? GenerationStatus::kOk : GenerationStatus::kNoCode;
  return a;
}

/// Shared by the chains of one run.
struct RunContext {
  Model* model = nullptr;
  ResultStore* store = nullptr;
  int64_t run_id = 0;
  Judge* judge = nullptr;
  RunLoopOptions options;
  Reporter on_done;
  std::mutex report_mutex;
  std::atomic<int64_t> generated{0};

  void report(const AttemptRecord& a, const EvaluationRecord* e) {
    if (!on_done) return;
    std::lock_guard<std::mutex> lock(report_mutex);
    on_done({&a, e});
  }
};

/// Judges `a`, stores the evaluation and the feedback the next turn gets; returns the evaluation.
EvaluationRecord judge_and_store(RunContext& ctx, const TaskSpec& task, AttemptRecord& a) {
  EvaluationRecord e = a.code ? ctx.judge->judge(task, a) : evaluation_without_code(a);
  ctx.store->insert_evaluation(e);
  a.feedback = render_feedback(task, e.verdict);
  ctx.store->set_feedback(a.id, a.feedback);
  ctx.report(a, &e);
  return e;
}

void run_chain(RunContext& ctx, const TaskSpec& task, int sample,
               const std::vector<AttemptRecord>& stored) {
  std::vector<PastTurn> past;
  for (int turn = 0; turn < ctx.options.turns; ++turn) {
    AttemptRecord a;
    std::optional<EvaluationRecord> e;
    if (static_cast<size_t>(turn) < stored.size()) {
      a = stored[static_cast<size_t>(turn)];
      PTXB_ASSERT(a.turn == turn, "stored turns of " + task.id + " sample " +
                                      std::to_string(sample) + " are not contiguous");
      e = ctx.store->evaluation(a.id);
    } else {
      const ChatResult r = ctx.model->answer({&task, sample, turn, conversation(task, past)});
      a = attempt_from(r, ctx.run_id, task.id, sample, turn);
      a.id = ctx.store->insert_attempt(a);
      ++ctx.generated;
    }
    if (ctx.judge == nullptr) {
      ctx.report(a, nullptr);
      return;  // generate only: later turns need verdicts
    }
    if (!e) {
      e = judge_and_store(ctx, task, a);
    } else if (a.feedback.empty()) {
      a.feedback = render_feedback(task, e->verdict);
    }
    if (a.status == GenerationStatus::kFailed) return;  // no answer to build a next turn on
    past.push_back({a.response_text, a.feedback});
    if (e->success && !ctx.options.keep_optimizing) return;
  }
}

/// Waits for every future, then rethrows the first exception any of them holds.
void wait_all(std::vector<std::future<void>>& futures) {
  std::exception_ptr first;
  for (auto& f : futures) {
    try {
      f.get();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace

int64_t run_loop(Model& model, ResultStore& store, int64_t run_id,
                 const std::vector<TaskSpec>& tasks, Judge* judge, const RunLoopOptions& options,
                 const Reporter& on_done) {
  if (options.samples < 1 || options.turns < 1)
    throw InputError("run: --samples and --turns must be at least 1");
  if (options.shards < 1 || options.shard < 0 || options.shard >= options.shards)
    throw InputError("run: --shard I/N needs 0 <= I < N");
  if (judge == nullptr && options.turns != 1)
    throw InputError("generate: only one turn without judging (repair turns need verdicts)");
  RunContext ctx;
  ctx.model = &model;
  ctx.store = &store;
  ctx.run_id = run_id;
  ctx.judge = judge;
  ctx.options = options;
  ctx.on_done = on_done;

  std::map<std::pair<std::string, int>, std::vector<AttemptRecord>> stored;
  for (AttemptRecord& a : store.attempts(run_id))
    stored[{a.task_id, a.sample}].push_back(std::move(a));  // ordered by turn

  std::vector<std::future<void>> futures;
  {
    BoundedPool pool(static_cast<size_t>(std::max(1, options.concurrency)));
    size_t chain = 0;
    for (const TaskSpec& task : tasks)
      for (int sample = 0; sample < options.samples; ++sample) {
        if (!in_shard(chain++, options)) continue;
        const std::vector<AttemptRecord>& turns = stored[{task.id, sample}];
        futures.push_back(
            pool.submit([&ctx, &task, sample, &turns] { run_chain(ctx, task, sample, turns); }));
      }
    pool.shutdown();
  }
  wait_all(futures);
  return ctx.generated.load();
}

int64_t judge_pending(ResultStore& store, int64_t run_id, const std::vector<TaskSpec>& tasks,
                      Judge& judge, int concurrency, const Reporter& on_done) {
  RunContext ctx;
  ctx.store = &store;
  ctx.run_id = run_id;
  ctx.judge = &judge;
  ctx.on_done = on_done;
  std::vector<AttemptRecord> pending = store.attempts_without_evaluation(run_id);
  std::vector<std::future<void>> futures;
  {
    BoundedPool pool(static_cast<size_t>(std::max(1, concurrency)));
    for (AttemptRecord& a : pending) {
      const TaskSpec& task = task_of(tasks, a.task_id);
      futures.push_back(pool.submit([&ctx, &task, &a] { judge_and_store(ctx, task, a); }));
    }
    pool.shutdown();
  }
  wait_all(futures);
  return static_cast<int64_t>(pending.size());
}

}  // namespace ptxb
