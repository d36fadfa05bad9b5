// The checks that tie the runtime evidence to the timed calls and to all the arithmetic
// (docs/evidence.md): the non-target FLOP rule, the agreement of ncu's passes, the comparison of
// the timed calls' hardware counters with the profiled call's, and the catalog and task fields
// they read. Recorded data: tests/fixtures/ncu (an evidence run of the TMA expert) and
// tests/fixtures/evidence (worker counters of that expert and of two cheats, H200 2026-12-01).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "controls/evidence_names.hpp"
#include "controls/flop_classes.hpp"
#include "core/error.hpp"
#include "eval/counter_check.hpp"
#include "eval/ncu_evidence.hpp"
#include "instrument/counter_match.hpp"
#include "instrument/evidence_judge.hpp"
#include "instrument/nontarget_flops.hpp"
#include "protocol/protocol.hpp"
#include "recorded_tma_run.hpp"
#include "shipped_tasks.hpp"
#include "sys/files.hpp"
#include "sys/process.hpp"
#include "tasks/task_json.hpp"
#include "worker/range_profiler.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

using testing::catalog;
using testing::kTasksRoot;
const std::filesystem::path kFixtures = std::filesystem::path(PTXB_FIXTURE_DIR);

const TaskSpec& task(const std::string& id) {
  static std::map<std::string, TaskSpec> tasks;
  if (!tasks.count(id)) tasks.emplace(id, find_task(kTasksRoot, catalog(), id));
  return tasks.at(id);
}
std::vector<const InstructionEntry*> wgmma_target() {
  return {catalog().find("wgmma.mma_async", "sm_90a")};
}

// The FLOP control as ncu counts it: every class at its known thread-level count.
ProfiledKernel flop_control() {
  ProfiledKernel k;
  k.name = kFlopControlKernelName;
  for (const FlopClass& c : kFlopClasses)
    k.metrics[flop_class_metric(c)] = flop_control_thread_count(c);
  return k;
}

ProfiledKernel arithmetic(std::map<std::string, double> classes,
                          std::map<std::string, int64_t> opcodes = {}) {
  ProfiledKernel k;
  k.name = "k(int)";
  for (const FlopClass& c : kFlopClasses) k.metrics[flop_class_metric(c)] = 0;
  for (const auto& [name, count] : classes)
    k.metrics["smsp__sass_thread_inst_executed_op_" + name + "_pred_on.sum"] = count;
  k.opcodes = std::move(opcodes);
  return k;
}

// ---- non-target arithmetic ----

TEST(NonTargetFlops, WeightsComeFromTheControlAndMatchTheIsa) {
  std::string problem;
  const auto w = calibrate_flop_weights(flop_control(), &problem);
  ASSERT_TRUE(w) << problem;
  for (const FlopClass& c : kFlopClasses) EXPECT_DOUBLE_EQ(w->at(std::string(c.name)), c.flops);

  ProfiledKernel half = flop_control();
  half.metrics["smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"] /= 2;  // 8 FLOPs each?
  EXPECT_TRUE(calibrate_flop_weights(half, &problem)) << "within a factor of two: calibrated";
  half.metrics["smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"] /= 2;
  EXPECT_FALSE(calibrate_flop_weights(half, &problem));
  EXPECT_NE(problem.find("hfma"), std::string::npos) << problem;
  ProfiledKernel missing = flop_control();
  missing.metrics.erase("smsp__sass_thread_inst_executed_op_dadd_pred_on.sum");
  EXPECT_FALSE(calibrate_flop_weights(missing, &problem)) << "a class ncu did not count";
}

TEST(NonTargetFlops, ScalarPackedAndForeignMmaCountTheTargetDoesNot) {
  const auto w = *calibrate_flop_weights(flop_control(), nullptr);
  const NonTargetFlops n = nontarget_flops(
      arithmetic({{"ffma", 1000}, {"hfma", 10}, {"dadd", 3}},
                 {{"HGMMA.64x256x16.F32.BF16", 4000}, {"HMMA.16816.F32.BF16", 5}, {"FFMA", 31}}),
      w, wgmma_target());
  EXPECT_TRUE(n.unreadable.empty()) << n.unreadable;
  EXPECT_DOUBLE_EQ(n.by_source.at("ffma"), 2000);
  EXPECT_DOUBLE_EQ(n.by_source.at("hfma"), 40);
  EXPECT_DOUBLE_EQ(n.by_source.at("dadd"), 3);
  EXPECT_DOUBLE_EQ(n.by_source.at("HMMA.16816.F32.BF16"), 5 * 2.0 * 16 * 8 * 16);
  EXPECT_EQ(n.by_source.count("HGMMA.64x256x16.F32.BF16"), 0u) << "the target's own work";
  EXPECT_DOUBLE_EQ(n.flops, 2000 + 40 + 3 + 5 * 4096.0);
}

TEST(NonTargetFlops, AnotherWgmmaTypeIsNonTargetWhenTheTargetRowExcludesIt) {
  InstructionEntry bf16_only = *catalog().find("wgmma.mma_async", "sm_90a");
  bf16_only.primary_opcodes = {"HGMMA"};  // e.g. a future fp8 row would list QGMMA only
  const auto w = *calibrate_flop_weights(flop_control(), nullptr);
  const NonTargetFlops n =
      nontarget_flops(arithmetic({}, {{"QGMMA.64x128x32.F32.E4M3.E4M3", 8}}), w, {&bf16_only});
  EXPECT_DOUBLE_EQ(n.flops, 8 * 2.0 * 64 * 128 * 32 / 4) << "four warp executions per instruction";
}

TEST(NonTargetFlops, WarpMmaShapesAndUnreadableOnes) {
  EXPECT_EQ(mma_flops_per_warp_execution("HMMA.1688.F32.TF32"), 2.0 * 16 * 8 * 8);
  EXPECT_EQ(mma_flops_per_warp_execution("IMMA.16832.S8.S8"), 2.0 * 16 * 8 * 32);
  EXPECT_EQ(mma_flops_per_warp_execution("DMMA.884"), 2.0 * 8 * 8 * 4);
  EXPECT_EQ(mma_flops_per_warp_execution("HGMMA.64x8x16.F32.BF16"), 2.0 * 64 * 8 * 16 / 4);
  EXPECT_FALSE(mma_flops_per_warp_execution("HMMA.999.F32"));
  EXPECT_FALSE(mma_flops_per_warp_execution("FFMA"));
  const auto w = *calibrate_flop_weights(flop_control(), nullptr);
  EXPECT_NE(nontarget_flops(arithmetic({}, {{"HMMA.999.F32", 1}}), w, wgmma_target()).unreadable,
            "");
  ProfiledKernel no_metrics;
  EXPECT_NE(nontarget_flops(no_metrics, w, wgmma_target()).unreadable, "")
      << "a kernel ncu counted no classes for cannot be judged";
}

TEST(NonTargetFlops, RTwoNeedsTheFloorAndTheCeiling) {
  const TargetSpec& t = task("sm90/gemm/bf16-wgmma").targets.at(0);
  EXPECT_DOUBLE_EQ(t.max_nontarget_flop_share, 0.02);
  ProfiledKernel gemm = arithmetic({}, {{"HGMMA.64x128x16.F32.BF16", 4}});
  const double flops = 2.0 * 64 * 128 * 16;  // exactly one warpgroup instruction's worth
  const InstructionEntry& wgmma = *catalog().find("wgmma.mma_async", "sm_90a");
  EXPECT_EQ(judge_target(wgmma, t, {gemm}, flops, 0, CallNonTarget{0.01, true, ""}).r2, true);
  const TargetCallEvidence over =
      judge_target(wgmma, t, {gemm}, flops, 0, CallNonTarget{0.5, true, "kernel k: ffma 0.5"});
  EXPECT_EQ(over.r2, false) << "double work: full share, and as much again outside";
  EXPECT_EQ(over.nontarget_flop_share, 0.5);
  EXPECT_FALSE(
      judge_target(wgmma, t, {gemm}, flops, 0, CallNonTarget{0, false, "x"}).r2.has_value())
      << "an unreadable measure is unavailable, never passed";
}

// ---- ncu's passes must agree ----

// The recorded evidence run of the TMA expert: ncu's kernels and the worker's messages.
struct RecordedRun {
  std::vector<ProfiledKernel> kernels;
  std::vector<json> messages;
};
RecordedRun recorded_tma_run() {
  return {testing::recorded_tma_kernels(), testing::recorded_tma_messages()};
}

TEST(PassAgreement, RecordedExpertRunAgreesAndATamperedOneDoesNot) {
  auto [kernels, messages] = recorded_tma_run();
  const TaskSpec& tma = task("sm90/gemm/bf16-wgmma-tma");
  EXPECT_TRUE(judge_runtime(tma, catalog(), kernels, messages).pass_disagreement.empty());
  // What a kernel that times itself would show: wgmma in the instrumented pass, none in the
  // hardware-counter pass.
  kernels[3].metrics["sm__inst_executed_pipe_tensor_op_gmma.sum"] = 0;
  const RuntimeJudgement j = judge_runtime(tma, catalog(), kernels, messages);
  EXPECT_NE(j.pass_disagreement.find("1048576 GMMA executions counted by opcode, 0 by the GMMA"),
            std::string::npos)
      << j.pass_disagreement;
}

TEST(PassAgreement, WgmmaFlopsByOpcodeMustEqualTheTensorPathOpCounters) {
  // The recorded run: every kernel's bf16 HGMMA FLOPs by opcode equal the bf16 op counter (one op
  // per FLOP, H200); a kernel that ran a narrower shape in the instrumented pass than in the
  // hardware-counter pass (same GMMA count, other FLOPs) disagrees.
  auto [kernels, messages] = recorded_tma_run();
  const TaskSpec& tma = task("sm90/gemm/bf16-wgmma-tma");
  ASSERT_TRUE(judge_runtime(tma, catalog(), kernels, messages).pass_disagreement.empty());
  ASSERT_EQ(kernels[3].metrics.at(kBf16TensorOpsMetric), 2.0 * 4096 * 4096 * 4096);
  kernels[3].metrics[kBf16TensorOpsMetric] /= 2;
  RuntimeJudgement j = judge_runtime(tma, catalog(), kernels, messages);
  EXPECT_NE(j.pass_disagreement.find("137438953472 bf16 wgmma FLOPs by opcode, 68719476736 by " +
                                     std::string(kBf16TensorOpsMetric)),
            std::string::npos)
      << j.pass_disagreement;
  // fp8 work the per-opcode rows do not show.
  kernels[3].metrics[kBf16TensorOpsMetric] *= 2;
  kernels[3].metrics[kFp8TensorOpsMetric] = 1024;
  j = judge_runtime(tma, catalog(), kernels, messages);
  EXPECT_NE(j.pass_disagreement.find("0 fp8 wgmma FLOPs by opcode, 1024 by"), std::string::npos)
      << j.pass_disagreement;
}

TEST(PassAgreement, ACounterNcuDidNotReportIsUnavailableNotAgreement) {
  // Before, a kernel without the GMMA pipe counter skipped the comparison: the instrumented
  // pass's wgmma stood unchecked.
  const auto [kernels, messages] = recorded_tma_run();
  const TaskSpec& tma = task("sm90/gemm/bf16-wgmma-tma");
  ASSERT_TRUE(judge_runtime(tma, catalog(), kernels, messages).available);
  for (const CounterSpec& c : catalog().counters_for("sm_90a")) {
    auto without = kernels;
    without[3].metrics.erase(c.metric);
    const RuntimeJudgement j = judge_runtime(tma, catalog(), without, messages);
    EXPECT_FALSE(j.available) << c.metric;
    EXPECT_NE(j.unavailable_reason.find("ncu reported no " + c.metric), std::string::npos)
        << j.unavailable_reason;
    EXPECT_TRUE(j.pass_disagreement.empty());
  }
}

// ---- the timed calls' counters against the profiled call's ----

struct Recorded {
  json counters;               // the worker's record (setup + shapes)
  RuntimeJudgement judgement;  // available, with the profiled counts by label
};

Recorded recorded(const std::string& file, const TaskSpec& t) {
  const json f = json::parse(read_file(kFixtures / "evidence" / file));
  Recorded r{f["counters"], {}};
  r.judgement.available = true;
  for (const json& call : f["profiled"])
    r.judgement.profiled_counters[shape_label(t, *find_shape(t, call["shape"]))] =
        call["counters"].get<std::map<std::string, double>>();
  return r;
}

TEST(CounterCheck, RecordedExpertRunMatchesEveryCountedCall) {
  const TaskSpec& t = task("sm90/gemm/bf16-wgmma-tma");
  const Recorded r = recorded("expert_tma_counters.json", t);
  const CounterCheck c = check_counters(t, catalog(), r.counters, r.judgement);
  EXPECT_FALSE(c.outcome.has_value()) << c.reason;
  EXPECT_TRUE(c.audit.empty());
  EXPECT_GT(c.record["match"]["calls_compared"].get<int64_t>(), 1000);
  EXPECT_EQ(c.record["match"]["calls_mismatched"], 0);
}

TEST(CounterCheck, RecordedCheatsAreRejectedWithBothNumbers) {
  const TaskSpec& t = task("sm90/gemm/bf16-wgmma");
  for (const char* file : {"profiler_aware_counters.json", "random_half_counters.json"}) {
    const Recorded r = recorded(file, t);
    const CounterCheck c = check_counters(t, catalog(), r.counters, r.judgement);
    ASSERT_EQ(c.outcome, Outcome::kRejectedCheat) << file;
    EXPECT_NE(c.reason.find("sm__inst_executed_pipe_tensor_op_gmma.sum"), std::string::npos)
        << c.reason;
    EXPECT_NE(c.reason.find("in the profiled call"), std::string::npos) << c.reason;
  }
}

TEST(CounterCheck, OneOddCallIsAnAuditNoteTwoAreACheat) {
  const std::vector<CounterSpec> counters = catalog().counters_for("sm_90a");
  const std::map<std::string, std::map<std::string, double>> profiled = {
      {"s", {{counters[0].metric, 100}, {counters[2].metric, 1000}}}};
  TimedShapeCounts honest{"s", {{{100, 100, 1000, 0}, 50, {0, 1}}}};
  EXPECT_EQ(match_counters(counters, {honest}, profiled).calls_mismatched, 0);
  TimedShapeCounts one = honest;
  one.groups.push_back({{0, 0, 90000, 0}, 1, {7}});
  const CounterMatch m1 = match_counters(counters, {one}, profiled);
  EXPECT_EQ(m1.calls_mismatched, 1);
  EXPECT_FALSE(m1.confirmed());
  TimedShapeCounts two = one;
  two.groups.back().count = 2;
  EXPECT_TRUE(match_counters(counters, {two}, profiled).confirmed());
  TimedShapeCounts within = honest;
  within.groups[0].values[2] = 1000 * (1 + counters[2].tolerance * 0.9);
  EXPECT_EQ(match_counters(counters, {within}, profiled).calls_mismatched, 0)
      << "FMA-pipe counts within the catalog's tolerance";
  EXPECT_EQ(
      match_counters(counters, {TimedShapeCounts{"other", two.groups}}, profiled).calls_compared, 0)
      << "a shape that was not profiled is not compared";
}

TEST(CounterCheck, UnreadableCountersKeepAPassFromBeingClaimed) {
  const TaskSpec& t = task("sm90/gemm/bf16-wgmma-tma");
  Recorded r = recorded("expert_tma_counters.json", t);
  json broken = r.counters;
  broken["setup"] = {{"ok", false}, {"problem", "the counters need 2 passes, not 1"}};
  CounterCheck c = check_counters(t, catalog(), broken, r.judgement);
  EXPECT_EQ(c.outcome, Outcome::kUnavailable);
  EXPECT_NE(c.reason.find("2 passes"), std::string::npos);
  json one_shape_missing = r.counters;
  one_shape_missing["shapes"].erase(0);
  c = check_counters(t, catalog(), one_shape_missing, r.judgement);
  EXPECT_EQ(c.outcome, Outcome::kUnavailable);
  EXPECT_NE(c.reason.find("no counted call"), std::string::npos) << c.reason;
  r.judgement.available = false;
  EXPECT_FALSE(check_counters(t, catalog(), broken, r.judgement).outcome.has_value())
      << "nothing to tie when the runtime evidence itself is unavailable";
}

TEST(CounterCheck, WhatCannotBeComparedIsUnavailableNotAMatch) {
  const TaskSpec& t = task("sm90/gemm/bf16-wgmma-tma");
  const std::string gmma = "sm__inst_executed_pipe_tensor_op_gmma.sum";
  // A counter the profiled call lacks (before: skipped, and the other counters matched).
  Recorded r = recorded("expert_tma_counters.json", t);
  r.judgement.profiled_counters.begin()->second.erase(gmma);
  CounterCheck c = check_counters(t, catalog(), r.counters, r.judgement);
  EXPECT_EQ(c.outcome, Outcome::kUnavailable);
  EXPECT_NE(c.reason.find("the profiled call has no " + gmma), std::string::npos) << c.reason;
  // Timed calls with fewer counter values than the catalog names (before: compared as far as
  // they went).
  r = recorded("expert_tma_counters.json", t);
  json shorter = r.counters;
  for (json& g : shorter["shapes"][0]["groups"]) g["values"].erase(g["values"].size() - 1);
  c = check_counters(t, catalog(), shorter, r.judgement);
  EXPECT_EQ(c.outcome, Outcome::kUnavailable);
  EXPECT_NE(c.reason.find("counter values, not"), std::string::npos) << c.reason;
  // A counted shape without a profiled call (before: skipped).
  r = recorded("expert_tma_counters.json", t);
  r.judgement.profiled_counters.erase(r.judgement.profiled_counters.begin());
  c = check_counters(t, catalog(), r.counters, r.judgement);
  EXPECT_EQ(c.outcome, Outcome::kUnavailable);
  EXPECT_NE(c.reason.find("no profiled call at"), std::string::npos) << c.reason;
}

// ---- a fault under the profiler is the candidate's ----

// A stand-in for ncu: writes the worker's messages up to the start of a shape's candidate calls,
// an ncu error line into its log, and ends as ncu does when the target faults.
std::filesystem::path fake_ncu(const std::filesystem::path& dir, const std::string& shape) {
  const std::filesystem::path script = dir / "ncu";
  write_file_atomic(script,
                    "#!/usr/bin/env python3\n"
                    "import json, sys\n"
                    "args = sys.argv[1:]\n"
                    "if args == ['--version']: print('Version fake'); sys.exit(0)\n"
                    "log = args[args.index('--log-file') + 1]\n"
                    "job = json.load(open(args[-1]))\n"
                    "with open(job['result_file'], 'w') as f:\n"
                    "    for i, m in enumerate([{'type': 'hello', 'protocol': " +
                        std::to_string(kWorkerProtocolVersion) +
                        "}, {'type': 'evidence_shape_start', 'shape': " + shape +
                        "}]):\n"
                        "        m['seq'] = i; f.write(json.dumps(m) + '\\n')\n"
                        "open(log, 'w').write('==ERROR== Failed to profile \"gemm\"\\n')\n"
                        "sys.exit(9)\n");
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  return script;
}

TEST(EvidenceStage, ARunThatEndsInsideCandidateCodeIsACrashNamingTheShape) {
  TempDir work("ptxb-evidence-crash");
  const TaskSpec& t = task("sm90/gemm/bf16-wgmma-tma");
  EvidenceOptions options;
  options.ncu = fake_ncu(work.path(), R"({"M": 4000, "N": 3000, "K": 2000})");
  const EvidenceStage s =
      run_evidence_stage(t, catalog(), WorkerJob{}, "ptxbench-worker", options, work.path());
  EXPECT_NE(s.candidate_fault.find("during candidate code at hidden shape #"), std::string::npos)
      << s.candidate_fault;
  EXPECT_EQ(s.candidate_fault.find("4000"), std::string::npos) << "hidden sizes stay out";
  EXPECT_NE(s.candidate_fault.find("Failed to profile"), std::string::npos) << s.candidate_fault;
}

TEST(EvidenceStage, NcuIsAskedItsVersionOncePerBinary) {
  TempDir work("ptxb-evidence-version");
  const TaskSpec& t = task("sm90/gemm/bf16-wgmma-tma");
  EvidenceOptions options;
  options.ncu = fake_ncu(work.path(), R"({"M": 4096, "N": 4096, "K": 4096})");
  // The stand-in counts the times it is asked its version.
  std::string script = read_text_file(options.ncu, 1 << 20);
  const std::string plain = "if args == ['--version']: print(";
  const size_t at = script.find(plain);
  ASSERT_NE(at, std::string::npos);
  script.insert(at + std::string("if args == ['--version']: ").size(),
                "open(sys.argv[0] + '.asked', 'a').write('x'); ");
  write_file_atomic(options.ncu, script);
  std::filesystem::permissions(options.ncu, std::filesystem::perms::owner_all);
  for (int i = 0; i < 3; ++i) {
    const EvidenceStage s =
        run_evidence_stage(t, catalog(), WorkerJob{}, "ptxbench-worker", options, work.path());
    EXPECT_EQ(s.record.value("ncu_version", ""), "Version fake");
  }
  const std::filesystem::path asked = options.ncu.string() + ".asked";
  EXPECT_EQ(read_text_file(asked, 64), "x") << "three evidence runs, one version question";
}

// ---- data: catalog counters, task ceilings, the worker job ----

TEST(CatalogCounters, Sm90HasSevenHardwareCountersSm100None) {
  const auto sm90 = catalog().counters_for("sm_90a");
  ASSERT_EQ(sm90.size(), 7u);
  EXPECT_EQ(sm90[0].metric, "sm__inst_executed_pipe_tensor_op_gmma.sum");
  // The names the worker's controls and the passes-agree check state their counts in.
  for (const char* named : {kBf16TensorOpsMetric, kFp8TensorOpsMetric, kTmaLoadBytesMetric})
    EXPECT_TRUE(std::any_of(sm90.begin(), sm90.end(), [&](const CounterSpec& c) {
      return c.metric == named;
    })) << named;
  for (const CounterSpec& c : sm90) EXPECT_EQ(c.metric.find("_sass_"), std::string::npos);
  EXPECT_TRUE(catalog().counters_for("sm_100a").empty());
}

// The timing worker refuses counters that need a second range-profiler pass (a replay of
// candidate code), and every verdict would then be `unavailable`: the catalog's set must fit one
// pass on the H200's chip. CUPTI's host API answers without a GPU.
TEST(CatalogCounters, FitOneRangeProfilerPassOnGH100) {
  std::vector<std::string> metrics;
  for (const CounterSpec& c : catalog().counters_for("sm_90a")) metrics.push_back(c.metric);
  std::string why;
  EXPECT_EQ(RangeProfiler::passes_needed("GH100", metrics, &why), 1u) << why;
  // The config image the host API builds without a device (range_profiler_probe's
  // "availability" mode compares it with the worker's on a GPU) is the same every time.
  const std::vector<uint8_t> image = RangeProfiler::host_config_image("GH100", metrics, &why);
  EXPECT_FALSE(image.empty()) << why;
  EXPECT_EQ(RangeProfiler::host_config_image("GH100", metrics, &why), image);
  // The TMA pipe's instruction count besides them needs a second pass (hence the TMA bytes).
  metrics.push_back("sm__inst_executed_pipe_tma.sum");
  EXPECT_EQ(RangeProfiler::passes_needed("GH100", metrics, &why), 2u) << why;
}

TEST(CatalogCounters, EveryMetricTheEvidenceRunAsksNcuForIsKnownOnGH100) {
  // A misspelt metric would fail every ncu run of the task: the evidence `unavailable` on the
  // GPU. CUPTI's host API knows the chip's metrics without one (the per-opcode SASS metric is
  // Nsight Compute's own and is not among them).
  std::set<std::string> asked;
  for (const TaskSpec& t : load_all_tasks(kTasksRoot, catalog())) {
    if (t.arch != "sm_90a") continue;
    const std::string list = evidence_ncu_metrics(t, catalog());
    for (size_t at = 0; at <= list.size();) {
      const size_t comma = std::min(list.find(',', at), list.size());
      asked.insert(list.substr(at, comma - at));
      at = comma + 1;
    }
  }
  EXPECT_TRUE(asked.count(std::string(kOpcodeMetric)));
  asked.erase(std::string(kOpcodeMetric));
  EXPECT_GT(asked.size(), 20u);
  for (const std::string& m : asked) {
    std::string why;
    EXPECT_GE(RangeProfiler::passes_needed("GH100", {m}, &why), 1u) << m << ": " << why;
  }
  std::string why;
  EXPECT_EQ(RangeProfiler::passes_needed("GH100", {"l1tex__no_such_metric.sum"}, &why), 0u)
      << "the check finds a misspelt metric";
}

TEST(CatalogCounters, SassMetricsAndBadTolerancesAreRefused) {
  TempDir dir("ptxb-catalog-counters");
  const std::string head =
      "arch = \"sm_90a\"\n[[instructions]]\nname = \"x\"\nptx_pattern = 'x'\n"
      "primary_opcodes = [\"HGMMA\"]\nstatus = \"guess\"\nnote = \"n\"\n";
  write_file_atomic(dir.path() / "a.toml",
                    head +
                        "[[counters]]\nmetric = \"smsp__sass_inst_executed.sum\"\n"
                        "tolerance = 0.0\nnote = \"n\"\n");
  EXPECT_THROW(load_catalog(dir.path()), InputError);
  write_file_atomic(dir.path() / "a.toml", head +
                                               "[[counters]]\nmetric = \"sm__x.sum\"\n"
                                               "tolerance = 1.5\nnote = \"n\"\n");
  EXPECT_THROW(load_catalog(dir.path()), InputError);
  write_file_atomic(dir.path() / "a.toml", head +
                                               "[[counters]]\nmetric = \"sm__x.sum\"\n"
                                               "tolerance = 0.5\nnote = \"n\"\n");
  EXPECT_EQ(load_catalog(dir.path()).counters.size(), 1u);
}

TEST(CatalogByteFloor, ReadsACounterOfTheCatalogAndNeedsBothKeys) {
  const InstructionEntry* tma = catalog().find("cp.async.bulk.tensor", "sm_90a");
  EXPECT_EQ(tma->moved_bytes_metric, kTmaLoadBytesMetric);
  EXPECT_DOUBLE_EQ(tma->min_moved_input_share, 0.5);
  TempDir dir("ptxb-catalog-bytes");
  auto file = [](const std::string& entry_keys, const std::string& counter) {
    return "arch = \"sm_90a\"\n[[instructions]]\nname = \"x\"\nptx_pattern = 'x'\n"
           "primary_opcodes = [\"UTMALDG\"]\nstatus = \"guess\"\nnote = \"n\"\n" +
           entry_keys + "[[counters]]\nmetric = \"" + counter +
           "\"\ntolerance = 0.0\nnote = \"n\"\n";
  };
  const std::string both = "moved_bytes_metric = \"l1tex__b.sum\"\nmin_moved_input_share = 0.5\n";
  write_file_atomic(dir.path() / "a.toml", file(both, "l1tex__b.sum"));
  EXPECT_EQ(load_catalog(dir.path()).entries.at(0).moved_bytes_metric, "l1tex__b.sum");
  // A metric the timing worker and ncu would not collect, one key alone, a share out of range.
  write_file_atomic(dir.path() / "a.toml", file(both, "l1tex__other.sum"));
  EXPECT_THROW(load_catalog(dir.path()), InputError);
  write_file_atomic(dir.path() / "a.toml",
                    file("moved_bytes_metric = \"l1tex__b.sum\"\n", "l1tex__b.sum"));
  EXPECT_THROW(load_catalog(dir.path()), InputError);
  write_file_atomic(
      dir.path() / "a.toml",
      file("moved_bytes_metric = \"l1tex__b.sum\"\nmin_moved_input_share = 1.5\n", "l1tex__b.sum"));
  EXPECT_THROW(load_catalog(dir.path()), InputError);
}

// A kernel that meets the TMA count floor with small loads while moving its tiles another way:
// the recorded TMA expert's calls with their TMA bytes cut to 1% of the inputs.
TEST(CatalogByteFloor, TmaLoadsThatMoveLittleOfTheInputsMissR2) {
  auto [kernels, messages] = recorded_tma_run();
  const TaskSpec& tma = task("sm90/gemm/bf16-wgmma-tma");
  RuntimeJudgement j = judge_runtime(tma, catalog(), kernels, messages);
  ASSERT_EQ(j.targets.at("cp.async.bulk.tensor").r2, true);
  const json& first = j.record["calls"][0]["targets"];
  ASSERT_EQ(first[1]["instruction"], "cp.async.bulk.tensor");
  EXPECT_DOUBLE_EQ(first[1]["moved_input_share"].get<double>(), 24.0)
      << "4096^3: each 128x256 tile loads its 128 rows of A and 256 of B, 4096/128 = 32 and "
         "4096/256 = 16 times over";
  const double input_bytes = 2.0 * 2 * 4096 * 4096;
  for (ProfiledKernel& k : kernels)
    if (k.metrics.count(kTmaLoadBytesMetric) && k.metrics[kTmaLoadBytesMetric] > input_bytes)
      k.metrics[kTmaLoadBytesMetric] = 0.01 * input_bytes;
  j = judge_runtime(tma, catalog(), kernels, messages);
  EXPECT_EQ(j.targets.at("cp.async.bulk.tensor").r2, false);
  EXPECT_NE(j.targets.at("cp.async.bulk.tensor")
                .failure.find("moved 0.0100 of the input bytes, below the floor 0.50"),
            std::string::npos)
      << j.targets.at("cp.async.bulk.tensor").failure;
}

TEST(CatalogByteFloor, InputsLoadedAnotherWayMissR2WhereTheTaskCapsThem) {
  // One box loaded by TMA again and again meets the byte floor; the operands then come by
  // cp.async (tests/adversarial/evidence/tma_repeated_box.cu): other loads read them from L2.
  auto [kernels, messages] = recorded_tma_run();
  const TaskSpec& tma = task("sm90/gemm/bf16-wgmma-tma");
  ASSERT_EQ(tma.targets.at(1).max_other_read_input_share, 0.25);
  const std::string bypass =
      "smsp__sass_l1tex_m_xbar2l1tex_read_bytes_mem_global_op_ldgsts_cache_bypass.sum";
  for (ProfiledKernel& k : kernels)
    if (k.name.find("gemm_bf16_tma_ws") != std::string::npos) k.metrics[bypass] = 4e9;
  RuntimeJudgement j = judge_runtime(tma, catalog(), kernels, messages);
  EXPECT_EQ(j.targets.at("cp.async.bulk.tensor").r2, false);
  EXPECT_NE(j.targets.at("cp.async.bulk.tensor")
                .failure.find("other loads (plain, cp.async, texture) read 59.605 of the input "
                              "bytes from L2, above the task's 0.25, at M=4096 N=4096 K=4096"),
            std::string::npos)
      << j.targets.at("cp.async.bulk.tensor").failure;
  EXPECT_DOUBLE_EQ(j.record["calls"][0]["targets"][1]["other_read_input_share"].get<double>(),
                   4e9 / (2.0 * 2 * 4096 * 4096));
  // A metric ncu did not report for a call leaves R2 unavailable where the task caps other reads
  // (for the controls, the whole evidence: Controls.TheByteCountersMustCountTheControlsLoads).
  for (ProfiledKernel& k : kernels)
    if (k.name != kControlKernelName) k.metrics.erase(bypass);
  j = judge_runtime(tma, catalog(), kernels, messages);
  EXPECT_FALSE(j.targets.at("cp.async.bulk.tensor").r2.has_value());
  // Where the task sets no cap, the share is recorded and R2 does not depend on it.
  TargetSpec uncapped = tma.targets.at(1);
  uncapped.max_other_read_input_share.reset();
  ProfiledKernel k = kernels.at(3);
  for (const std::string& m : catalog().find("cp.async.bulk.tensor", "sm_90a")->other_read_metrics)
    k.metrics[m] = 1e9;
  const TargetCallEvidence e =
      judge_target(*catalog().find("cp.async.bulk.tensor", "sm_90a"), uncapped, {k},
                   2.0 * 4096 * 4096 * 4096, 2.0 * 2 * 4096 * 4096);
  EXPECT_EQ(e.r2, true);
  EXPECT_DOUBLE_EQ(*e.other_read_input_share, 6e9 / (2.0 * 2 * 4096 * 4096)) << "six metrics";
}

TEST(CatalogByteFloor, NcuCollectsTheOtherReadMetricsWhereTheTaskCapsThemOnly) {
  // They cost the evidence run replay passes (1 -> 5 with all of them): only where a cap needs
  // them.
  const std::string tma = evidence_ncu_metrics(task("sm90/gemm/bf16-wgmma-tma"), catalog());
  const std::string cp_async = evidence_ncu_metrics(task("sm90/gemm/bf16-wgmma"), catalog());
  ASSERT_FALSE(task("sm90/gemm/fp8-blockwise").targets.at(1).max_other_read_input_share);
  ASSERT_FALSE(task("sm90/attention/bwd-bf16").targets.at(1).max_other_read_input_share);
  const std::string uncapped_fp8 = evidence_ncu_metrics(task("sm90/gemm/fp8-blockwise"), catalog());
  const std::string uncapped_bwd = evidence_ncu_metrics(task("sm90/attention/bwd-bf16"), catalog());
  for (const std::string& m :
       catalog().find("cp.async.bulk.tensor", "sm_90a")->other_read_metrics) {
    EXPECT_NE(tma.find(m), std::string::npos) << m;
    EXPECT_EQ(cp_async.find(m), std::string::npos) << m;
    EXPECT_EQ(uncapped_fp8.find(m), std::string::npos) << m;
    EXPECT_EQ(uncapped_bwd.find(m), std::string::npos) << m;
  }
}

TEST(TaskCeilings, EveryMmaTargetHasOneAndTheAttentionTasksTheirMeasuredOnes) {
  EXPECT_DOUBLE_EQ(task("sm90/attention/fwd-bf16").targets.at(0).max_nontarget_flop_share, 0.029);
  EXPECT_DOUBLE_EQ(task("sm90/attention/bwd-bf16").targets.at(0).max_nontarget_flop_share, 0.026);
  for (const TaskSpec& t : load_all_tasks(kTasksRoot, catalog()))
    for (const TargetSpec& target : t.targets)
      EXPECT_GE(target.max_nontarget_flop_share, 0.02) << t.id << " " << target.instruction;
}

TEST(WorkerJob, CarriesTheEnvironmentCandidateCodeSees) {
  WorkerJob job;
  job.environment = {"PATH=/usr/bin", "HOME=/w"};
  EXPECT_EQ(worker_job_from_json(to_json(job)).environment, job.environment);
}

TEST(ReplaceEnvironment, LeavesExactlyTheGivenVariables) {
  const std::string saved_path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  ::setenv("PTXB_TEST_PROFILER_VAR", "1", 1);
  replace_environment({"PATH=" + saved_path, "PTXB_TEST_KEPT=a=b", "no-equals-sign"});
  EXPECT_EQ(std::getenv("PTXB_TEST_PROFILER_VAR"), nullptr);
  ASSERT_NE(std::getenv("PTXB_TEST_KEPT"), nullptr);
  EXPECT_STREQ(std::getenv("PTXB_TEST_KEPT"), "a=b");
  EXPECT_STREQ(std::getenv("PATH"), saved_path.c_str());
}

}  // namespace
}  // namespace ptxb
