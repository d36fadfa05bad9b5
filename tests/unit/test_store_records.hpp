// Test helpers shared by the store tests: records with every field set, and field-by-field
// comparisons that name the field that differs.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "store/records.hpp"

namespace ptxb::store_test {

inline RunRecord sample_run(const std::string& name) {
  RunRecord run;
  run.name = name;
  run.model = "qwen3-27b";
  run.endpoint = "http://127.0.0.1:8000/v1";
  run.prompt_version = "prompt-3";
  run.ptxbench_version = "0.4.0+g1234abc";
  run.created_at = "2026-11-29T10:00:00Z";
  run.settings = {{"temperature", 0.6}, {"top_p", 0.95}, {"max_tokens", 32768},    {"seed", 7},
                  {"samples", 4},       {"turns", 3},    {"stop_on_success", true}};
  run.environment = {{"gpu", "NVIDIA H200"},
                     {"driver", "580.65.06"},
                     {"clocks", {{"sm_mhz", 1980}, {"mem_mhz", 3201}}},
                     {"cuda_runtime", 12090},
                     {"cublaslt", "12.9.1"}};
  return run;
}

/// An attempt with every field set to a value that differs from its default.
inline AttemptRecord sample_attempt(int64_t run_id, const std::string& task, int sample, int turn) {
  AttemptRecord a;
  a.run_id = run_id;
  a.task_id = task;
  a.sample = sample;
  a.turn = turn;
  a.status = GenerationStatus::kOk;
  a.error = "";
  a.request = {{"model", "qwen3-27b"},
               {"temperature", 0.6},
               {"messages",
                {{{"role", "system"}, {"content", "You write PTX."}},
                 {{"role", "user"}, {"content", "Task " + task + " — write a kernel (µs ✓)"}}}}};
  a.response = {
      {"id", "chatcmpl-1"},
      {"choices", {{{"message", {{"role", "assistant"}, {"content", "```cuda ...```"}}}}}},
      {"usage", {{"prompt_tokens", 1234}, {"completion_tokens", 5678}}}};
  a.response_text = "Here is the kernel:\n```cuda\n__global__ void k() {}\n```\n";
  a.reasoning_text = "Use wgmma.mma_async with a 64x128 tile; TMA for loads.";
  a.code = "// turn " + std::to_string(turn) + "\n__global__ void k() { /* \"quoted\" */ }\n";
  a.feedback = "";
  a.prompt_tokens = 1234;
  a.completion_tokens = 5'000'000'000LL;  // beyond 32 bits
  a.latency_s = 12.345678901234567;
  a.retries = 2;
  a.created_at = "2026-11-29T10:01:02Z";
  return a;
}

inline EvaluationRecord sample_evaluation(int64_t attempt_id, bool success) {
  EvaluationRecord e;
  e.attempt_id = attempt_id;
  e.outcome = success ? "passed" : "incorrect";
  e.reason = success ? "all checks passed" : "output C mismatched at (3, 17)";
  e.compiled = true;
  e.correct = success;
  e.targets_executed = true;
  e.success = success;
  e.audit = !success;
  e.speedups = {{"M=4096 N=4096 K=4096", false, 1.0312345678901234, 701.25, 680.5, 0.96875},
                {"hidden shape #1", true, 0.875, 512.0, 585.1428571428571, std::nullopt}};
  e.judge_seconds = 17.25;
  e.stage_seconds = {{"compile", 3.5}, {"worker", 9.25}, {"evidence", 4.5}};
  e.verdict = {{"schema", 2},
               {"outcome", e.outcome},
               {"correctness", {{"passed", 11}, {"total", 12}}},
               {"timing", {{{"shape", "M=4096"}, {"candidate_us", {101.5, 102.25}}}}},
               {"max_rel_error", "NaN"}};
  e.created_at = "2026-11-29T10:02:03Z";
  return e;
}

/// NaN equals NaN here: a stored NaN must come back as NaN.
inline void expect_same_real(double got, double want, const char* field) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << field;
  } else {
    EXPECT_EQ(got, want) << field;
  }
}

inline void expect_same(const RunRecord& got, const RunRecord& want) {
  EXPECT_EQ(got.id, want.id);
  EXPECT_EQ(got.name, want.name);
  EXPECT_EQ(got.model, want.model);
  EXPECT_EQ(got.endpoint, want.endpoint);
  EXPECT_EQ(got.prompt_version, want.prompt_version);
  EXPECT_EQ(got.ptxbench_version, want.ptxbench_version);
  EXPECT_EQ(got.created_at, want.created_at);
  EXPECT_EQ(got.settings, want.settings);
  EXPECT_EQ(got.environment, want.environment);
}

inline void expect_same(const AttemptRecord& got, const AttemptRecord& want) {
  EXPECT_EQ(got.id, want.id);
  EXPECT_EQ(got.run_id, want.run_id);
  EXPECT_EQ(got.task_id, want.task_id);
  EXPECT_EQ(got.sample, want.sample);
  EXPECT_EQ(got.turn, want.turn);
  EXPECT_EQ(got.status, want.status);
  EXPECT_EQ(got.error, want.error);
  EXPECT_EQ(got.request, want.request);
  EXPECT_EQ(got.response, want.response);
  EXPECT_EQ(got.response_text, want.response_text);
  EXPECT_EQ(got.reasoning_text, want.reasoning_text);
  EXPECT_EQ(got.code, want.code);
  EXPECT_EQ(got.feedback, want.feedback);
  EXPECT_EQ(got.prompt_tokens, want.prompt_tokens);
  EXPECT_EQ(got.completion_tokens, want.completion_tokens);
  expect_same_real(got.latency_s, want.latency_s, "latency_s");
  EXPECT_EQ(got.retries, want.retries);
  EXPECT_EQ(got.created_at, want.created_at);
}

inline void expect_same(const EvaluationRecord& got, const EvaluationRecord& want) {
  EXPECT_EQ(got.attempt_id, want.attempt_id);
  EXPECT_EQ(got.outcome, want.outcome);
  EXPECT_EQ(got.reason, want.reason);
  EXPECT_EQ(got.compiled, want.compiled);
  EXPECT_EQ(got.correct, want.correct);
  EXPECT_EQ(got.targets_executed, want.targets_executed);
  EXPECT_EQ(got.success, want.success);
  EXPECT_EQ(got.audit, want.audit);
  ASSERT_EQ(got.speedups.size(), want.speedups.size());
  for (size_t i = 0; i < want.speedups.size(); ++i) {
    EXPECT_EQ(got.speedups[i].shape, want.speedups[i].shape);
    EXPECT_EQ(got.speedups[i].hidden, want.speedups[i].hidden);
    expect_same_real(got.speedups[i].speedup, want.speedups[i].speedup, "speedup");
    expect_same_real(got.speedups[i].candidate_tflops, want.speedups[i].candidate_tflops,
                     "candidate_tflops");
    expect_same_real(got.speedups[i].baseline_tflops, want.speedups[i].baseline_tflops,
                     "baseline_tflops");
    ASSERT_EQ(got.speedups[i].sustained_speedup.has_value(),
              want.speedups[i].sustained_speedup.has_value());
    if (want.speedups[i].sustained_speedup)
      expect_same_real(*got.speedups[i].sustained_speedup, *want.speedups[i].sustained_speedup,
                       "sustained_speedup");
  }
  expect_same_real(got.judge_seconds, want.judge_seconds, "judge_seconds");
  EXPECT_EQ(got.stage_seconds, want.stage_seconds);
  EXPECT_EQ(got.verdict, want.verdict);
  EXPECT_EQ(got.created_at, want.created_at);
}

}  // namespace ptxb::store_test
