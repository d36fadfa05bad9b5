// The worker's phase times reach the verdict: a "phases" message becomes
// stage_seconds.worker_phases, and the text verdict shows the stages with the worker's phases
// (parts, named with a dot, left out).
#include <gtest/gtest.h>

#include "eval/worker_fold.hpp"
#include "protocol/protocol.hpp"
#include "verdict/verdict.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

ProcessResult finished_worker(const std::vector<json>& messages) {
  ProcessResult p;
  p.exit_code = 0;
  for (const json& m : messages) p.result_bytes += m.dump() + "\n";
  return p;
}

TEST(WorkerPhases, PhasesMessageBecomesStageSeconds) {
  const json phases = {{"setup", 1.25},
                       {"correctness", 3.5},
                       {"correctness.references", 2.0},
                       {"timing", 4.0},
                       {"timing.rounds.checks", 0.75}};
  Verdict v;
  v.record["stage_seconds"] = {{"compile", 2.5}, {"worker", 9.0}};
  fold_worker(finished_worker({{{"type", "hello"}, {"protocol", kWorkerProtocolVersion}},
                               {{"type", "phases"}, {"seconds", phases}},
                               {{"type", "done"}}}),
              "", v);
  EXPECT_EQ(v.record["stage_seconds"]["worker_phases"], phases);
  EXPECT_EQ(v.record["stage_seconds"]["worker"], 9.0);  // the stage's own time stays

  const std::string text = render_text(v);
  const auto line = text.find("time:");
  ASSERT_NE(line, std::string::npos) << text;
  const std::string time_line = text.substr(line, text.find('\n', line) - line);
  EXPECT_EQ(time_line,
            "time:    compile 2.5 s, worker 9.0 s (correctness 3.5, setup 1.2, timing 4.0)");
}

TEST(WorkerPhases, NoPhasesNoWorkerParenthesis) {
  Verdict v;
  v.record["stage_seconds"] = {{"compile", 0.5}};
  const std::string text = render_text(v);
  EXPECT_NE(text.find("time:    compile 0.5 s\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace ptxb
