// Worker protocol round trips and the verdict JSON schema.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "protocol/protocol.hpp"
#include "verdict/verdict.hpp"

namespace ptxb {
namespace {

TEST(Protocol, JobRoundTrip) {
  WorkerJob job;
  job.task = {{"id", "sm90/gemm/x"}};
  job.counters = {{{"metric", "sm__x.sum"}}};
  job.shared_object = "/c/cand.so";
  job.run_timing = false;
  job.own_device_code_rule = false;
  job.timing_samples = 7;
  job.timing_min_ms = 30;
  job.timing_max_samples = 90;
  job.timing_ci_permille = 15;
  job.timing_noisy_cap_ms = 900;
  job.sustained_rounds = 6;
  job.sustained_min_ms = 250;
  job.sustained_ci_permille = 20;
  job.baseline = "self";
  job.library_choices = nlohmann::json::array({{{"problem", "8x8x8"}, {"index", 1}}});
  const WorkerJob back = worker_job_from_json(to_json(job));
  EXPECT_EQ(back.library_choices, job.library_choices);
  EXPECT_EQ(back.task, job.task);
  EXPECT_EQ(back.counters, job.counters);
  EXPECT_EQ(back.shared_object, job.shared_object);
  EXPECT_FALSE(back.run_timing);
  EXPECT_FALSE(back.own_device_code_rule);
  EXPECT_TRUE(WorkerJob{}.own_device_code_rule);  // on unless a run turns it off
  EXPECT_EQ(back.timing_samples, 7);
  EXPECT_EQ(back.timing_min_ms, 30);
  EXPECT_EQ(back.timing_max_samples, 90);
  EXPECT_EQ(back.timing_ci_permille, 15);
  EXPECT_EQ(back.timing_noisy_cap_ms, 900);
  EXPECT_EQ(back.sustained_rounds, 6);
  EXPECT_EQ(back.sustained_min_ms, 250);
  EXPECT_EQ(back.sustained_ci_permille, 20);
  EXPECT_EQ(back.baseline, "self");
}

TEST(Protocol, JobErrorsNameTheField) {
  auto j = to_json(WorkerJob{});
  j["protocol"] = 99;
  EXPECT_THROW(worker_job_from_json(j), InputError);
  j = to_json(WorkerJob{});
  j.erase("shared_object");
  try {
    worker_job_from_json(j);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("shared_object"), std::string::npos);
  }
  j = to_json(WorkerJob{});
  j["baseline"] = "cudnn";
  EXPECT_THROW(worker_job_from_json(j), InputError);
  j = to_json(WorkerJob{});
  j["library_choices"] = {{"problem", "8x8x8"}};  // an object, not an array of them
  EXPECT_THROW(worker_job_from_json(j), InputError);
}

TEST(Protocol, MessagesStopAtPartialOrCorruptLine) {
  bool truncated = false;
  auto msgs = parse_worker_messages("{\"type\":\"hello\"}\n{\"type\":\"case\"}\n", &truncated);
  EXPECT_EQ(msgs.size(), 2u);
  EXPECT_FALSE(truncated);
  msgs = parse_worker_messages("{\"type\":\"hello\"}\n{\"type\":\"ca", &truncated);
  EXPECT_EQ(msgs.size(), 1u);
  EXPECT_TRUE(truncated);
  msgs = parse_worker_messages("{\"type\":\"hello\"}\nnot json\n{\"type\":\"done\"}\n", &truncated);
  EXPECT_EQ(msgs.size(), 1u);
  EXPECT_TRUE(truncated);
  msgs = parse_worker_messages("[1,2]\n", &truncated);
  EXPECT_TRUE(msgs.empty());
}

Verdict minimal_verdict() {
  Verdict v;
  v.outcome = Outcome::kIncorrect;
  v.reason = "mismatch";
  v.record = {{"task", "sm90/gemm/bf16-wgmma"},
              {"source", {{"path", "x.cu"}, {"sha256", "00"}}},
              {"compile",
               {{"ok", true},
                {"cached", false},
                {"seconds", 1.0},
                {"resources", nlohmann::json::array()},
                {"quality_flags", nlohmann::json::array()},
                {"log", ""}}}};
  return v;
}

TEST(Verdict, JsonCarriesSchemaOutcomeAndReason) {
  const auto j = minimal_verdict().to_json();
  EXPECT_EQ(j["schema"], kVerdictSchemaVersion);
  EXPECT_EQ(j["outcome"], "incorrect");
  EXPECT_EQ(validate_verdict_json(j), "");
}

TEST(Verdict, ValidatorRejectsBrokenRecords) {
  auto j = minimal_verdict().to_json();
  j["outcome"] = "mostly_passed";
  EXPECT_NE(validate_verdict_json(j).find("unknown outcome"), std::string::npos);
  j = minimal_verdict().to_json();
  j.erase("compile");
  EXPECT_NE(validate_verdict_json(j).find("missing compile"), std::string::npos);
  j = minimal_verdict().to_json();
  j["schema"] = 0;
  EXPECT_NE(validate_verdict_json(j).find("schema version"), std::string::npos);
}

TEST(Verdict, TextNamesOutcomeReasonAndCompile) {
  const std::string text = render_text(minimal_verdict());
  EXPECT_NE(text.find("outcome: incorrect"), std::string::npos);
  EXPECT_NE(text.find("reason:  mismatch"), std::string::npos);
  EXPECT_NE(text.find("compile: ok"), std::string::npos);
}

TEST(Outcome, NamesRoundTrip) {
  for (Outcome o :
       {Outcome::kPassed, Outcome::kCompileError, Outcome::kLoadError, Outcome::kCrashed,
        Outcome::kTimeout, Outcome::kIncorrect, Outcome::kInstructionMissing,
        Outcome::kLowInstructionShare, Outcome::kRejectedCheat, Outcome::kUnavailable})
    EXPECT_EQ(outcome_from_string(to_string(o)), o);
  EXPECT_FALSE(outcome_from_string("nope"));
}

}  // namespace
}  // namespace ptxb
