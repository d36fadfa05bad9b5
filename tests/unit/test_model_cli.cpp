// The model-run commands end to end on a fixed small database: `ptxbench report` computes the
// hand-checked numbers from the stored records, `ptxbench export` writes one line per attempt.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "store/export.hpp"
#include "store/store.hpp"
#include "sys/files.hpp"

namespace ptxb {
namespace {

const std::string kBin = (std::filesystem::path(PTXB_BINARY_DIR) / "ptxbench").string();

/// Run "fixed" (model "m"): task sm90/gemm/bf16-wgmma sample 0 fails turn 1 (incorrect) and
/// succeeds in turn 2 with shape speedups 0.5 and 2.0 (geomean 1.0); sample 1 has no code.
void fill(ResultStore& store) {
  RunRecord run;
  run.name = "fixed";
  run.model = "m";
  run.settings = {{"turns", 2}};
  const int64_t run_id = store.create_run(run);
  auto attempt = [&](int sample, int turn, bool code) {
    AttemptRecord a;
    a.run_id = run_id;
    a.task_id = "sm90/gemm/bf16-wgmma";
    a.sample = sample;
    a.turn = turn;
    a.status = code ? GenerationStatus::kOk : GenerationStatus::kNoCode;
    if (code) a.code = "// kernel";
    a.prompt_tokens = 100;
    a.completion_tokens = 50;
    return store.insert_attempt(a);
  };
  EvaluationRecord wrong;
  wrong.attempt_id = attempt(0, 0, true);
  wrong.outcome = "incorrect";
  wrong.compiled = true;
  store.insert_evaluation(wrong);
  EvaluationRecord right;
  right.attempt_id = attempt(0, 1, true);
  right.outcome = "passed";
  right.compiled = right.correct = right.targets_executed = right.success = true;
  right.speedups = {{"M=1 N=1 K=8", false, 0.5, 100, 200}, {"M=2 N=2 K=8", true, 2.0, 300, 150}};
  store.insert_evaluation(right);
  EvaluationRecord none;
  none.attempt_id = attempt(1, 0, false);
  none.outcome = "no_code";
  store.insert_evaluation(none);
}

TEST(ModelCli, ReportAndExportReadTheStoredRun) {
  TempDir dir("ptxbench-model-cli");
  const std::filesystem::path db = dir.path() / "runs.db";
  {
    ResultStore store(db);
    fill(store);
  }
  const std::filesystem::path out = dir.path() / "report";
  ASSERT_EQ(
      std::system((kBin + " report --db " + db.string() + " --out " + out.string() + " > /dev/null")
                      .c_str()),
      0);
  for (const char* file :
       {"report.md", "report.csv", "report.json", "speedup.svg", "success_by_turn.svg"})
    EXPECT_TRUE(std::filesystem::exists(out / file)) << file;
  const nlohmann::json report = nlohmann::json::parse(read_file(out / "report.json"));
  ASSERT_EQ(report["entries"].size(), 1u);
  const nlohmann::json& all = report["entries"][0]["all"];
  EXPECT_EQ(all["samples"], 2);
  EXPECT_EQ(all["success"]["k"], 1);
  EXPECT_EQ(all["success"]["n"], 2);
  EXPECT_NEAR(all["speedup"]["geomean"].get<double>(), 1.0, 1e-12) << "sqrt(0.5 * 2.0)";
  EXPECT_NEAR(all["success_by_turn"][0]["rate"].get<double>(), 0.0, 1e-12) << all.dump();
  EXPECT_NEAR(all["success_by_turn"][1]["rate"].get<double>(), 0.5, 1e-12) << all.dump();

  const std::filesystem::path lines = dir.path() / "attempts.jsonl";
  ASSERT_EQ(std::system((kBin + " export --db " + db.string() + " --run fixed -o " +
                         lines.string() + " 2> /dev/null")
                            .c_str()),
            0);
  std::ifstream in(lines);
  std::vector<AttemptExport> exported;
  read_attempt_export(in, [&](AttemptExport&& e) { exported.push_back(std::move(e)); });
  ASSERT_EQ(exported.size(), 3u);
  EXPECT_EQ(exported[1].evaluation->outcome, "passed");
  EXPECT_EQ(exported[2].attempt.status, GenerationStatus::kNoCode);
}

TEST(ModelCli, UnknownRunIsAClearError) {
  TempDir dir("ptxbench-model-cli");
  const std::string db = (dir.path() / "runs.db").string();
  { ResultStore store(db); }
  const std::string log = (dir.path() / "err.txt").string();
  const int status =
      std::system((kBin + " export --db " + db + " --run nope > /dev/null 2> " + log).c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_NE(read_file(log).find("no run named 'nope'"), std::string::npos) << read_file(log);
}

TEST(ModelCli, ExtraBodyMustBeAJsonObject) {
  TempDir dir("ptxbench-model-cli");
  const std::string db = (dir.path() / "runs.db").string();
  const std::string log = (dir.path() / "err.txt").string();
  auto generate = [&](const std::string& extra_body) {
    const std::string cmd = kBin + " generate --model m --endpoint http://127.0.0.1:9/v1 --db " +
                            db + " --extra-body '" + extra_body + "' > /dev/null 2> " + log;
    return WEXITSTATUS(std::system(cmd.c_str()));
  };
  EXPECT_EQ(generate("{not json"), 2);
  EXPECT_NE(read_file(log).find("--extra-body: not valid JSON"), std::string::npos)
      << read_file(log);
  EXPECT_EQ(generate("[1, 2]"), 2);
  EXPECT_NE(read_file(log).find("extra_body must be a JSON object"), std::string::npos)
      << read_file(log);
}

}  // namespace
}  // namespace ptxb
