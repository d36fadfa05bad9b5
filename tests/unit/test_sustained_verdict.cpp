// Timed rounds in the verdict: a wrong output in a cold round or a back-to-back batch is a cheat
// naming the round (and the call), never a hidden shape's sizes; the text verdict shows the
// sustained regime under its shape, and for a hidden shape its speedup only.
#include <gtest/gtest.h>

#include "eval/worker_fold.hpp"
#include "protocol/protocol.hpp"
#include "verdict/verdict.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

ShapeTiming timed(bool hidden) {
  ShapeTiming t;
  t.shape = {{"M", 128}, {"N", 8192}, {"K", 8192}};
  t.hidden = hidden;
  t.label = hidden ? "hidden shape #4" : "M=128 N=8192 K=8192";
  t.flops = 2.0 * 128 * 8192 * 8192;
  t.candidate = {85, 84, 86, 700};
  t.baseline = {46, 45, 47, 700};
  t.speedup = {0.54, 0.53, 0.55, 700};
  t.verified = true;
  SustainedTiming s;
  s.calls = 20;
  s.candidate = {80, 79, 81, 10};
  s.baseline = {38, 37, 39, 10};
  s.speedup = {0.47, 0.46, 0.48, 10};
  s.verified = true;
  t.sustained = s;
  return t;
}

Verdict fold(const ShapeTiming& t) {
  json timing = t;
  timing["type"] = "timing";
  std::string bytes;
  for (const json& m : {json{{"type", "hello"}, {"protocol", kWorkerProtocolVersion}}, timing,
                        json{{"type", "done"}}})
    bytes += m.dump() + "\n";
  ProcessResult p;
  p.exit_code = 0;
  p.result_bytes = bytes;
  Verdict v;
  const WorkerOutcome w = fold_worker(p, "", v);
  v.outcome = w.outcome;
  v.reason = w.reason;
  return v;
}

TEST(SustainedVerdict, AWrongBackToBackOutputIsACheatNamingRoundAndCall) {
  ShapeTiming t = timed(false);
  t.sustained->verified = false;
  t.sustained->details["rounds"] = {
      {"failure", {{"round", 3}, {"call", 7}, {"what", "wrong output"}}}};
  const Verdict v = fold(t);
  EXPECT_EQ(v.outcome, Outcome::kRejectedCheat);
  EXPECT_NE(v.reason.find("sustained round 3, call 7 of the batch: wrong output"),
            std::string::npos)
      << v.reason;
  EXPECT_EQ(fold(timed(false)).outcome, Outcome::kPassed);
}

TEST(RoundVerdict, AWrongColdRoundIsACheatNamingTheRoundAndNoHiddenSize) {
  ShapeTiming t = timed(true);
  t.verified = false;
  t.details["rounds"] = {{"rounds_checked", 17},
                         {"failure", {{"round", 17}, {"what", "wrong output at C[3, 5]"}}}};
  const Verdict v = fold(t);
  EXPECT_EQ(v.outcome, Outcome::kRejectedCheat);
  EXPECT_NE(v.reason.find("timed round 17: wrong output at C[3, 5] at hidden shape #4"),
            std::string::npos)
      << v.reason;
  EXPECT_EQ(v.reason.find("8192"), std::string::npos) << "a hidden shape's sizes: " << v.reason;

  t.details["rounds"] = json::object();  // no record of the round: still a cheat
  EXPECT_EQ(fold(t).outcome, Outcome::kRejectedCheat);
  EXPECT_EQ(fold(timed(true)).outcome, Outcome::kPassed);
}

TEST(TimingFailures, TheSubmissionFailingInTimingIsCrashedTheLibrarysIsUnavailable) {
  ShapeTiming cold = timed(true);
  cold.error = "candidate returned 3";
  cold.details["failed_call"] = "candidate";
  cold.sustained.reset();
  Verdict v = fold(cold);
  EXPECT_EQ(v.outcome, Outcome::kCrashed) << "a slow shape cannot be dropped by failing there";
  EXPECT_EQ(v.reason,
            "the submission failed in the cold timing at hidden shape #4: "
            "candidate returned 3");

  ShapeTiming plan = timed(false);
  plan.error = "plan failed";
  plan.details = {{"candidate_plan_status", 7}, {"baseline_plan_status", 0}};
  EXPECT_EQ(fold(plan).outcome, Outcome::kCrashed);
  plan.details = {{"candidate_plan_status", 0}, {"baseline_plan_status", 2}};
  EXPECT_EQ(fold(plan).outcome, Outcome::kUnavailable);

  ShapeTiming sustained = timed(false);
  sustained.sustained->error = "candidate returned 1";
  sustained.sustained->details["failed_call"] = "candidate";
  EXPECT_EQ(fold(sustained).outcome, Outcome::kCrashed);
  sustained.sustained->error = "baseline returned 13";
  sustained.sustained->details["failed_call"] = "baseline";
  EXPECT_EQ(fold(sustained).outcome, Outcome::kUnavailable);
  sustained.sustained->error =
      "not enough device memory for 40 input sets: needs 9 MiB, 1 MiB free";
  sustained.sustained->details.erase("failed_call");
  EXPECT_EQ(fold(sustained).outcome, Outcome::kPassed) << "the cold result stands alone";
}

TEST(SustainedVerdict, TextShowsTheRegimeAndHidesAHiddenShapesTimes) {
  Verdict v;
  v.timing = {timed(false), timed(true)};
  const std::string text = render_text(v);
  EXPECT_NE(text.find("    sustained (20 back to back): candidate 80.0 us  library 38.0 us  "
                      "speedup 0.470 [0.460, 0.480]"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("hidden shape #4: speedup 0.540 [0.530, 0.550]\n"
                      "    sustained (20 back to back): speedup 0.470 [0.460, 0.480]\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace ptxb
