// The repair loop on a machine without a GPU: feedback text (hidden shapes never named), the
// conversation of a repair turn, the run loop with a scripted model, the real compiler and the
// real worker (verdicts end `unavailable` after the static stage), and resuming a killed run.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <thread>

#include "llm/feedback.hpp"
#include "llm/prompt.hpp"
#include "llm/run_loop.hpp"
#include "sys/files.hpp"
#include "tasks/catalog.hpp"
#include "tasks/task_json.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

const std::filesystem::path kRoot = PTXB_SOURCE_DIR;

TaskSpec task(const std::string& id) {
  const std::filesystem::path root = kRoot / "tasks";
  return find_task(root, load_catalog(root / "catalog"), id);
}

TEST(Feedback, HiddenShapesAreNeverNamed) {
  const TaskSpec t = task("sm90/attention/fwd-bf16");
  const ShapeCase* hidden = t.hidden_shapes().front();
  const json shape = shape_json(hidden->shape);
  const json verdict = {
      {"outcome", "incorrect"},
      {"reason", "at " + shape.dump() + " seed 1 normal: O 3 mismatches"},
      {"correctness",
       {{"passed", 0},
        {"total", 1},
        {"cases",
         {{{"shape", shape},
           {"hidden", true},
           {"seed", 1},
           {"distribution", "normal"},
           {"passed", false},
           {"outputs",
            {{{"name", "O"},
              {"passed", false},
              {"count", 100},
              {"mismatches", 3},
              {"first_mismatch",
               {{"row", 7}, {"col", 2}, {"index", 898}, {"got", 1.5}, {"want", 0.25}}}}}}}}}}},
      {"timing",
       {{{"shape", shape},
         {"hidden", true},
         {"flops", 2e9},
         {"candidate", {{"median", 10.0}, {"low", 9.9}, {"high", 10.1}, {"count", 10}}},
         {"baseline", {{"median", 8.0}, {"low", 7.9}, {"high", 8.1}, {"count", 10}}},
         {"speedup", {{"median", 0.8}, {"low", 0.79}, {"high", 0.81}, {"count", 10}}}}}}};
  const std::string text = render_feedback(t, verdict);
  EXPECT_NE(text.find("hidden shape #1"), std::string::npos) << text;
  EXPECT_EQ(text.find(hidden->shape.to_string()), std::string::npos) << text;
  EXPECT_EQ(text.find("1000"), std::string::npos) << "S of the hidden shape leaked:\n" << text;
  EXPECT_EQ(text.find("row 7"), std::string::npos) << "coordinates bound a hidden shape's sizes";
  EXPECT_EQ(text.find(" us"), std::string::npos) << "times give a hidden shape's FLOPs away";
  EXPECT_NE(text.find("O: wrong"), std::string::npos) << text;
  EXPECT_NE(text.find("speedup 0.800"), std::string::npos) << text;
}

TEST(Feedback, CompileErrorsLoseTheJudgesFolders) {
  const TaskSpec t = task("sm90/gemm/bf16-wgmma");
  const json verdict = {{"outcome", "compile_error"},
                        {"reason", "cand.cu(3): error: identifier \"x\" is undefined"},
                        {"compile",
                         {{"log",
                           "/tmp/ptxbench-xyz/work/cand.cu(3): error: identifier \"x\" is "
                           "undefined\nsome note\n1 error detected\n"}}}};
  const std::string text = render_feedback(t, verdict);
  EXPECT_NE(text.find("  cand.cu(3): error: identifier"), std::string::npos) << text;
  EXPECT_EQ(text.find("/tmp/ptxbench-xyz"), std::string::npos) << text;
  EXPECT_EQ(text.find("some note"), std::string::npos) << "only diagnostic lines are kept";
}

TEST(Feedback, NoCodeAsksForACodeBlock) {
  const std::string text = render_feedback(task("sm90/gemm/bf16-wgmma"), {{"outcome", "no_code"}});
  EXPECT_NE(text.find("no code block"), std::string::npos);
}

TEST(Prompt, RepairTurnsCarryEveryAnswerAndItsFeedback) {
  const TaskSpec t = task("sm90/gemm/bf16-wgmma");
  const auto first = conversation(t, {});
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].role, ChatRole::kSystem);
  EXPECT_EQ(first[1].content, t.prompt);
  const auto third = conversation(t, {{"answer one", "feedback one"}, {"answer two", "fb two"}});
  ASSERT_EQ(third.size(), 6u);
  EXPECT_EQ(third[2].role, ChatRole::kAssistant);
  EXPECT_EQ(third[2].content, "answer one");
  EXPECT_EQ(third[3].role, ChatRole::kUser);
  EXPECT_NE(third[3].content.find("feedback one"), std::string::npos);
  EXPECT_NE(third[5].content.find("fb two"), std::string::npos);
}

/// Answers by turn from a script, and remembers the conversations it was sent.
class ScriptedModel final : public Model {
 public:
  explicit ScriptedModel(std::vector<std::string> answers) : answers_(std::move(answers)) {}
  std::string name() const override { return "scripted"; }
  ChatResult answer(const ModelQuery& q) override {
    std::lock_guard<std::mutex> lock(mutex_);
    seen_.push_back(q.messages);
    ChatResult r;
    r.status = ChatStatus::kOk;
    r.content = answers_.at(static_cast<size_t>(q.turn));
    r.request = {{"turn", q.turn}};
    return r;
  }
  std::vector<std::vector<ChatMessage>> seen_;

 private:
  std::mutex mutex_;
  std::vector<std::string> answers_;
};

EvalConfig cpu_config(const std::filesystem::path& cache) {
  EvalConfig c = EvalConfig::from_environment();
  c.worker = std::filesystem::path(PTXB_BINARY_DIR) / "ptxbench-worker";
  c.compile.cache_dir = cache;
  c.worker_deadline = std::chrono::seconds(60);
  return c;
}

TEST(RunLoop, ThreeTurnsAreStoredJudgedAndFedBack) {
  if (std::system("nvidia-smi -L > /dev/null 2>&1") == 0) GTEST_SKIP() << "needs a GPU-less host";
  TempDir cache("ptxbench-loop-cache");
  ResultStore store = ResultStore::in_memory();
  RunRecord run;
  run.name = "loop";
  run.model = "scripted";
  const int64_t run_id = store.create_run(run);
  const std::vector<TaskSpec> tasks = {task("sm90/gemm/bf16-wgmma")};
  ScriptedModel model(
      {"I cannot write that.", "```cuda\nint broken(\n```",
       "```cuda\n" + read_file(kRoot / "kernels/reference/sm90_gemm_bf16_wgmma.cu") + "```"});
  Judge judge(cpu_config(cache.path()), {0});
  RunLoopOptions options;
  options.turns = 3;
  int reports = 0;
  EXPECT_EQ(run_loop(model, store, run_id, tasks, &judge, options,
                     [&](const AttemptDone& d) { reports += d.evaluation != nullptr; }),
            3);
  EXPECT_EQ(reports, 3);
  const auto attempts = store.attempts(run_id);
  ASSERT_EQ(attempts.size(), 3u);
  EXPECT_EQ(attempts[0].status, GenerationStatus::kNoCode);
  EXPECT_EQ(store.evaluation(attempts[0].id)->outcome, "no_code");
  EXPECT_EQ(store.evaluation(attempts[1].id)->outcome, "compile_error");
  EXPECT_EQ(store.evaluation(attempts[2].id)->outcome, "unavailable") << "no GPU here";
  EXPECT_TRUE(store.evaluation(attempts[2].id)->compiled);
  EXPECT_NE(attempts[1].feedback.find("error"), std::string::npos) << attempts[1].feedback;
  // Turn 2 was told about turn 1's compiler error, after turn 0's missing code block.
  ASSERT_EQ(model.seen_.size(), 3u);
  ASSERT_EQ(model.seen_[2].size(), 6u);
  EXPECT_NE(model.seen_[2][3].content.find("no code block"), std::string::npos);
  EXPECT_NE(model.seen_[2][5].content.find("compile_error"), std::string::npos);
  // Running it again asks nothing and judges nothing: every turn is stored and judged.
  EXPECT_EQ(run_loop(model, store, run_id, tasks, &judge, options, nullptr), 0);
  EXPECT_EQ(model.seen_.size(), 3u);
  EXPECT_EQ(store.evaluations(run_id).size(), 3u);
}

// The real CLI killed in the middle of a run and started again with the same run name: every
// sample ends with exactly one judged attempt, none twice.
TEST(RunLoop, AKilledRunResumesWithNothingLostAndNothingTwice) {
  if (std::system("nvidia-smi -L > /dev/null 2>&1") == 0) GTEST_SKIP() << "needs a GPU-less host";
  TempDir dir("ptxbench-resume");
  const std::string db = (dir.path() / "runs.db").string();
  const std::string bin = (std::filesystem::path(PTXB_BINARY_DIR) / "ptxbench").string();
  setenv("PTXBENCH_CACHE_DIR", (dir.path() / "cache").c_str(), 1);
  setenv("PTXBENCH_WORKER", (std::filesystem::path(PTXB_BINARY_DIR) / "ptxbench-worker").c_str(),
         1);
  std::vector<std::string> args = {
      bin,         "run",        "--model",
      "reference", "--tasks",    "sm90/gemm/bf16-wgmma,sm90/gemm/bf16-wgmma-tma",
      "--samples", "3",          "--concurrency",
      "1",         "--run-name", "resume",
      "--db",      db,           "--no-evidence"};
  auto spawn = [&] {
    const pid_t pid = fork();
    if (pid == 0) {
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      const int null_fd = open("/dev/null", O_WRONLY);
      dup2(null_fd, 1);
      dup2(null_fd, 2);
      execv(argv[0], argv.data());
      _exit(127);
    }
    return pid;
  };
  const pid_t first = spawn();
  ASSERT_GT(first, 0);
  // Kill it once the first evaluation is stored (the database is shared through WAL).
  bool judged_one = false;
  for (int i = 0; i < 600 && !judged_one; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!std::filesystem::exists(db)) continue;
    ResultStore peek(db);
    if (const auto run = peek.find_run("resume")) judged_one = !peek.evaluations(run->id).empty();
  }
  kill(first, SIGKILL);
  int status = 0;
  waitpid(first, &status, 0);
  ASSERT_TRUE(judged_one) << "the first run stored no evaluation within 60 s";
  {
    ResultStore peek(db);
    ASSERT_LT(peek.evaluations(peek.find_run("resume")->id).size(), 6u)
        << "killed too late to test resuming";
  }
  const pid_t second = spawn();
  waitpid(second, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ResultStore store(db);
  EXPECT_EQ(store.integrity_check(), "ok");
  const int64_t run_id = store.find_run("resume")->id;
  const auto attempts = store.attempts(run_id);
  EXPECT_EQ(attempts.size(), 6u) << "2 tasks x 3 samples, one turn each";
  std::set<std::tuple<std::string, int, int>> keys;
  for (const AttemptRecord& a : attempts) keys.insert({a.task_id, a.sample, a.turn});
  EXPECT_EQ(keys.size(), attempts.size());
  EXPECT_EQ(store.evaluations(run_id).size(), 6u);
  EXPECT_TRUE(store.attempts_without_evaluation(run_id).empty());
  unsetenv("PTXBENCH_CACHE_DIR");
  unsetenv("PTXBENCH_WORKER");
}

}  // namespace
}  // namespace ptxb
