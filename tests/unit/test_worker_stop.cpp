// A worker that stopped at its first violation (status 6, no "done") is judged rejected_cheat on
// that violation, and the record says where it stopped; a CUDA fault's message stays in the
// record beside the outcome it caused; a worker without a GPU leaves the cause for the judge's
// GPU pool (docs/threat-model.md, docs/result-schema.md).
#include <gtest/gtest.h>

#include "eval/worker_fold.hpp"
#include "llm/judge.hpp"
#include "protocol/protocol.hpp"
#include "verdict/verdict.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

ProcessResult ended_worker(int exit_code, const std::vector<json>& messages) {
  ProcessResult p;
  p.exit_code = exit_code;
  for (const json& m : messages) p.result_bytes += m.dump() + "\n";
  return p;
}

const json kHello = {{"type", "hello"}, {"protocol", kWorkerProtocolVersion}};

TEST(WorkerStop, AStoppedWorkerIsJudgedOnItsFirstViolation) {
  const std::string during = "ptxb_run at M=1024 N=1024 K=1024";
  Verdict v;
  const WorkerOutcome out = fold_worker(
      ended_worker(6, {kHello,
                       {{"type", "candidate_violation"},
                        {"during", during},
                        {"finding", "started 1 host thread still running (tid 7)"}},
                       {{"type", "stopped"}, {"during", during}, {"reason", "a violation"}}}),
      "", v);
  EXPECT_EQ(out.outcome, Outcome::kRejectedCheat);
  EXPECT_EQ(out.reason, "started 1 host thread still running (tid 7) (during " + during + ")");
  EXPECT_EQ(v.record["worker"]["stopped"], "a violation during " + during);
  EXPECT_EQ(v.record["worker"]["end"], "exit 6");
  EXPECT_FALSE(v.record["worker"].contains("fault"));
}

TEST(WorkerStop, AFaultsMessageIsKeptWhenAViolationDecides) {
  Verdict v;
  const WorkerOutcome out = fold_worker(
      ended_worker(3, {kHello,
                       {{"type", "candidate_violation"},
                        {"during", "ptxb_run at M=8 N=8 K=8"},
                        {"finding", "called cudaMalloc x1, which the ABI forbids"}},
                       {{"type", "candidate_fault"},
                        {"message", "ptxb_run at M=8 N=8 K=8: cudaErrorIllegalAddress"}}}),
      "", v);
  EXPECT_EQ(out.outcome, Outcome::kRejectedCheat);
  EXPECT_EQ(v.record["worker"]["fault"], "ptxb_run at M=8 N=8 K=8: cudaErrorIllegalAddress");
  EXPECT_FALSE(v.record["worker"].contains("stopped"));
}

TEST(WorkerStop, AFaultAloneIsACrash) {
  Verdict v;
  const WorkerOutcome out = fold_worker(
      ended_worker(3,
                   {kHello, {{"type", "candidate_fault"}, {"message", "cudaErrorLaunchFailure"}}}),
      "", v);
  EXPECT_EQ(out.outcome, Outcome::kCrashed);
  EXPECT_EQ(out.reason, "CUDA fault after candidate code: cudaErrorLaunchFailure");
  EXPECT_EQ(v.record["worker"]["fault"], "cudaErrorLaunchFailure");
}

TEST(WorkerStop, NoGpuIsUnavailableAndTheRecordKeepsItsCause) {
  Verdict v;
  const WorkerOutcome out =
      fold_worker(ended_worker(4, {kHello,
                                   {{"type", "no_gpu"},
                                    {"cause", "cuda"},
                                    {"message",
                                     "no CUDA device is available to this process: "
                                     "cudaErrorNoDevice, no CUDA-capable device"}}}),
                  "", v);
  EXPECT_EQ(out.outcome, Outcome::kUnavailable);
  EXPECT_EQ(v.record["worker"]["no_gpu"]["cause"], "cuda") << "what the judge's GPU pool reads";
  EXPECT_NE(v.record["worker"]["no_gpu"]["message"].get<std::string>().find("cudaErrorNoDevice"),
            std::string::npos);
}

TEST(WorkerStop, ANoGpuMessageAfterTheDeviceRecordIsForged) {
  // Candidate code that read the message key could claim the GPU is gone, so that the judge
  // retires a working one (llm/gpu_pool.hpp); the worker finds no device before reporting one.
  Verdict v;
  const WorkerOutcome out = fold_worker(
      ended_worker(0, {kHello,
                       {{"type", "environment"}, {"device", {{"gpu", "NVIDIA H200"}}}},
                       {{"type", "no_gpu"}, {"cause", "cuda"}, {"message", "cudaErrorNoDevice"}}}),
      "", v);
  EXPECT_EQ(out.outcome, Outcome::kRejectedCheat);
  EXPECT_FALSE(v.record["worker"].contains("no_gpu"));
  EXPECT_EQ(worker_had_gpu(v), true);
}

}  // namespace
}  // namespace ptxb
