// The fixed small data set of the report tests: two models, two families, several samples and
// turns, a no_code attempt, a failed generation, audit flags and speedups that need clamping.
// Every expected number in test_report.cpp is computed by hand from the table below.
//
// Tasks (arch sm_90a): G1 = sm90/gemm/bf16-a, G2 = sm90/gemm/bf16-b (gemm),
//                      A1 = sm90/attention_fwd/d128 (attention_fwd).
// Run "alpha-run" (model alpha; settings turns 3, prices 2 / 8 USD per Mtok):
//   task s turn  outcome              shape speedups     prompt compl latency judge
//   G1   0  1    passed               1.2, 0.8             1000   400   10     20
//   G1   1  1    compile_error                             1000   300    8      5
//   G1   1  2    incorrect                                 1500   300    9     15
//   G1   1  3    passed (audit, 2 flags) 20 (->10), 0.5    2000   500   12     25
//   G2   0  1    no_code (no evaluation)                   1000   100    4      -
//   G2   0  2    passed               0.05 (->0.1), 1, 1.6 1200   400   10     22
//   A1   0  1    instruction_missing  (correct)            3000   600   15     30
//   A1   0  2    generation failed (no evaluation)            0     0    0      -
//   A1   0  3    incorrect                                 3500   700   16     12
//   A1   1  1    passed               1.5                  3000   800   14     28
// Run "beta-run" (model beta; settings turns 2, no prices):
//   G1   0  1    compile_error                              800   200    5      3
//   G1   0  2    compile_error                              900   250    6      4
//   G1   1  1    passed               0.3, 0.4              800   300    7     18
//   G2   0  1    incorrect                                  700   150    4     10
//   G2   0  2    compile_error                              750   150    4      2
//   A1   0  1    incorrect (audit, no flags in the verdict) 1000  350    9     21
//   A1   0  2    passed               0.9, 1.1             1100   400   10     26
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "report/report.hpp"

namespace ptxb::report_test {

inline constexpr const char* kG1 = "sm90/gemm/bf16-a";
inline constexpr const char* kG2 = "sm90/gemm/bf16-b";
inline constexpr const char* kA1 = "sm90/attention_fwd/d128";

inline EvaluationRecord evaluation(const std::string& outcome, double judge_s,
                                   std::vector<double> speedups = {}) {
  EvaluationRecord e;
  e.outcome = outcome;
  e.reason = outcome + " (test)";
  e.compiled = outcome != "compile_error";
  e.correct = outcome == "passed" || outcome == "instruction_missing";
  e.targets_executed = outcome == "passed";
  e.success = outcome == "passed";
  e.judge_seconds = judge_s;
  for (size_t i = 0; i < speedups.size(); ++i)
    e.speedups.push_back(ShapeSpeedup{"shape " + std::to_string(i), i > 0, speedups[i], 0, 0});
  e.verdict = {{"outcome", outcome}};
  return e;
}

/// Owns the records; rows point into deques, which never move their elements.
struct Dataset {
  std::deque<RunRecord> runs;
  std::deque<AttemptRecord> attempts;
  std::deque<EvaluationRecord> evaluations;
  std::vector<ReportRow> rows;

  const RunRecord* run(const std::string& name, const std::string& model, nlohmann::json settings) {
    RunRecord r;
    r.id = static_cast<int64_t>(runs.size()) + 1;
    r.name = name;
    r.model = model;
    r.prompt_version = "p1";
    r.ptxbench_version = "0.1.0";
    r.created_at = "2026-11-29T12:00:00Z";
    r.settings = std::move(settings);
    runs.push_back(std::move(r));
    return &runs.back();
  }

  /// `turn` is 1-based here, as in the table above; the record stores it 0-based.
  void add(const RunRecord* r, const std::string& task, int sample, int turn, int64_t prompt,
           int64_t completion, double latency_s, std::optional<EvaluationRecord> e,
           GenerationStatus status = GenerationStatus::kOk) {
    AttemptRecord a;
    a.id = static_cast<int64_t>(attempts.size()) + 1;
    a.run_id = r->id;
    a.task_id = task;
    a.sample = sample;
    a.turn = turn - 1;
    a.status = status;
    a.prompt_tokens = prompt;
    a.completion_tokens = completion;
    a.latency_s = latency_s;
    if (status == GenerationStatus::kOk) a.code = "// kernel";
    attempts.push_back(std::move(a));
    const EvaluationRecord* ep = nullptr;
    if (e) {
      e->attempt_id = attempts.back().id;
      evaluations.push_back(std::move(*e));
      ep = &evaluations.back();
    }
    const std::string family = task == kA1 ? "attention_fwd" : "gemm";
    rows.push_back(ReportRow{r, &attempts.back(), ep, family, "sm_90a"});
  }
};

inline Dataset make_dataset() {
  Dataset d;
  const RunRecord* alpha =
      d.run("alpha-run", "alpha",
            {{"turns", 3}, {"price_prompt_per_mtok", 2.0}, {"price_completion_per_mtok", 8.0}});
  const RunRecord* beta = d.run("beta-run", "beta", {{"turns", 2}, {"temperature", 0.6}});

  d.add(alpha, kG1, 0, 1, 1000, 400, 10, evaluation("passed", 20, {1.2, 0.8}));
  d.add(alpha, kG1, 1, 1, 1000, 300, 8, evaluation("compile_error", 5));
  d.add(alpha, kG1, 1, 2, 1500, 300, 9, evaluation("incorrect", 15));
  EvaluationRecord flagged = evaluation("passed", 25, {20, 0.5});
  flagged.audit = true;
  flagged.verdict["audit"] = {"speedup 20.00x above 1.15x the library", "second flag"};
  d.add(alpha, kG1, 1, 3, 2000, 500, 12, flagged);
  d.add(alpha, kG2, 0, 1, 1000, 100, 4, std::nullopt, GenerationStatus::kNoCode);
  d.add(alpha, kG2, 0, 2, 1200, 400, 10, evaluation("passed", 22, {0.05, 1.0, 1.6}));
  d.add(alpha, kA1, 0, 1, 3000, 600, 15, evaluation("instruction_missing", 30));
  d.add(alpha, kA1, 0, 2, 0, 0, 0, std::nullopt, GenerationStatus::kFailed);
  d.add(alpha, kA1, 0, 3, 3500, 700, 16, evaluation("incorrect", 12));
  d.add(alpha, kA1, 1, 1, 3000, 800, 14, evaluation("passed", 28, {1.5}));

  d.add(beta, kG1, 0, 1, 800, 200, 5, evaluation("compile_error", 3));
  d.add(beta, kG1, 0, 2, 900, 250, 6, evaluation("compile_error", 4));
  d.add(beta, kG1, 1, 1, 800, 300, 7, evaluation("passed", 18, {0.3, 0.4}));
  d.add(beta, kG2, 0, 1, 700, 150, 4, evaluation("incorrect", 10));
  d.add(beta, kG2, 0, 2, 750, 150, 4, evaluation("compile_error", 2));
  EvaluationRecord raced = evaluation("incorrect", 21);
  raced.audit = true;
  raced.reason = "output O mismatched at (3, 7)";
  d.add(beta, kA1, 0, 1, 1000, 350, 9, raced);
  d.add(beta, kA1, 0, 2, 1100, 400, 10, evaluation("passed", 26, {0.9, 1.1}));
  return d;
}

}  // namespace ptxb::report_test
