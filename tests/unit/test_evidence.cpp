// Runtime evidence: FLOP-share math for every wgmma shape, count floors, the split of ncu's kernel
// list at the worker's markers, the controls, and the outcome each judgement implies. Fixtures:
// an evidence run of the TMA expert recorded on the H200 (tests/fixtures/ncu).
#include <gtest/gtest.h>

#include "controls/evidence_names.hpp"
#include "eval/ncu_evidence.hpp"
#include "eval/runtime_outcome.hpp"
#include "families/family.hpp"
#include "instrument/evidence_judge.hpp"
#include "protocol/protocol.hpp"
#include "recorded_tma_run.hpp"
#include "shipped_tasks.hpp"
#include "sys/files.hpp"
#include "verdict/verdict.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

using testing::catalog;
using testing::kTasksRoot;
const std::filesystem::path kNcu = std::filesystem::path(PTXB_FIXTURE_DIR) / "ncu";

const TaskSpec& tma_task() {
  static const TaskSpec task = find_task(kTasksRoot, catalog(), "sm90/gemm/bf16-wgmma-tma");
  return task;
}
const InstructionEntry& entry(const std::string& name) { return *catalog().find(name, "sm_90a"); }

ProfiledKernel kernel(const std::string& name, std::map<std::string, int64_t> opcodes,
                      std::array<int64_t, 3> grid = {1, 1, 1}) {
  ProfiledKernel k;
  k.name = name;
  k.grid = grid;
  k.opcodes = std::move(opcodes);
  for (const auto& [op, n] : k.opcodes) k.executed_total += n;
  return k;
}

// The evidence control's byte counters as the H200 shows them: the TMA load bytes exactly and each
// other kind of load at its floor, the ld.global.nc bytes on the plain-load metric (live); none
// (dead).
ProfiledKernel with_control_bytes(ProfiledKernel k, bool live) {
  k.metrics[kTmaLoadBytesMetric] = live ? kEvidenceControlTmaLoadBytes : 0;
  for (const ControlReadBytes& r : kEvidenceControlOtherReads)
    k.metrics[r.metric] = live ? r.bytes : 0;
  if (live) k.metrics[kEvidenceControlOtherReads[0].metric] += kEvidenceControlNonCoherentReadBytes;
  return k;
}

Shape mnk(int64_t m, int64_t n, int64_t k) { return Shape{{{"M", m}, {"N", n}, {"K", k}}}; }

std::vector<json> read_messages(const std::filesystem::path& path) {
  bool truncated = false;
  auto messages = parse_worker_messages(read_file(path), &truncated);
  EXPECT_FALSE(truncated) << path;
  return messages;
}

// ---- FLOP share ----

TEST(FlopShare, EveryWgmmaShapeCountsTwoMnkPerWarpgroup) {
  const InstructionEntry& wgmma = entry("wgmma.mma_async");
  struct Kind {
    const char* suffix;
    int k;
  };
  for (const Kind kind : {Kind{"F32.BF16", 16}, Kind{"F16.F16", 16}, Kind{"F32.TF32", 8},
                          Kind{"F32.E4M3.E4M3", 32}, Kind{"S32.S8.S8", 32}}) {
    for (int n = 8; n <= 256; n += 8) {
      const std::string op = std::string(kind.k == 32 && kind.suffix[0] == 'S' ? "IGMMA"
                                         : kind.k == 32                        ? "QGMMA"
                                                                               : "HGMMA") +
                             ".64x" + std::to_string(n) + "x" + std::to_string(kind.k) + "." +
                             kind.suffix;
      bool unreadable = false;
      // 3 CTAs x 4 warps each issue 10 wgmma: 120 warp-level executions = 30 instructions.
      const KernelTargetCount c = count_target(wgmma, kernel("k", {{op, 120}}), &unreadable);
      EXPECT_FALSE(unreadable) << op;
      EXPECT_EQ(c.executed, 120) << op;
      EXPECT_DOUBLE_EQ(c.mma_flops, 30.0 * 2 * 64 * n * kind.k) << op;
    }
  }
}

TEST(FlopShare, ExpertCountsGiveAShareOfExactlyOne) {
  // 4096^3 with HGMMA.64x256x16: 1048576 warp executions recorded on the H200.
  const ProfiledKernel k = kernel("gemm", {{"HGMMA.64x256x16.F32.BF16", 1048576}, {"FFMA", 7}});
  const auto e = judge_target(entry("wgmma.mma_async"), tma_task().targets[0], {k},
                              family_of("gemm").flops(mnk(4096, 4096, 4096)), 0);
  ASSERT_TRUE(e.flop_share.has_value());
  EXPECT_DOUBLE_EQ(*e.flop_share, 1.0);
  EXPECT_TRUE(e.r1);
  EXPECT_EQ(e.r2, true);
}

TEST(FlopShare, OneWgmmaForShowIsFarBelowTheFloor) {
  const ProfiledKernel k = kernel("simt", {{"HGMMA.64x8x16.F32.BF16", 4 * 512}, {"FFMA", 1 << 30}});
  const auto e = judge_target(entry("wgmma.mma_async"), tma_task().targets[0], {k},
                              family_of("gemm").flops(mnk(4096, 4096, 4096)), 0);
  EXPECT_TRUE(e.r1);
  EXPECT_EQ(e.r2, false);
  EXPECT_LT(*e.flop_share, 1e-3);
}

TEST(FlopShare, SumsOverEveryKernelOfTheCall) {
  const ProfiledKernel zero = kernel("zero_fill", {{"STG.E", 100}});
  const ProfiledKernel half = kernel("gemm_half", {{"HGMMA.64x128x16.F32.BF16", 4 * 4096}});
  const auto e = judge_target(entry("wgmma.mma_async"), tma_task().targets[0], {zero, half, half},
                              2 * (4096 * 2.0 * 64 * 128 * 16), 0);
  ASSERT_EQ(e.kernels.size(), 3u);
  EXPECT_EQ(e.kernels[0].executed, 0);
  EXPECT_DOUBLE_EQ(*e.flop_share, 1.0) << "two kernels doing half the work each";
}

TEST(FlopShare, AnMmaOpcodeWithoutShapeMakesR2Unavailable) {
  const ProfiledKernel k = kernel("odd", {{"HGMMA", 4}});
  const auto e = judge_target(entry("wgmma.mma_async"), tma_task().targets[0], {k}, 1e9, 0);
  EXPECT_TRUE(e.r1);
  EXPECT_FALSE(e.r2.has_value());
  EXPECT_FALSE(e.flop_share.has_value());
}

// ---- count floors ----

TEST(CountFloor, HalfTheSharedMemoryFillsTheInputsNeed) {
  const double bytes = input_bytes(tma_task(), mnk(4096, 4096, 4096));
  EXPECT_DOUBLE_EQ(bytes, 2.0 * 4096 * 4096 * 2);
  // 64 MiB / 227 KiB = 288.7 -> 289 fills; half of it, rounded up.
  EXPECT_EQ(count_floor(entry("cp.async.bulk.tensor"), bytes), 145);
  EXPECT_EQ(count_floor(entry("cp.async"), bytes), 65536);  // 512 bytes per warp instruction
  EXPECT_EQ(count_floor(entry("setmaxnreg"), bytes), 1);    // no rule: R2 asks what R1 asks
  EXPECT_EQ(count_floor(entry("cp.async.bulk.tensor"), 16), 1);
}

TEST(CountFloor, TmaRunOnceForShowFailsR2ButNotR1) {
  const TargetSpec tma{"cp.async.bulk.tensor", EvidenceLevel::kR2, 0.9};
  const ProfiledKernel k = kernel("gemm", {{"UTMALDG.2D", 3}, {"LDG.E.128", 1 << 20}});
  const auto e = judge_target(entry("cp.async.bulk.tensor"), tma, {k}, 0, 64.0 * 1024 * 1024);
  EXPECT_TRUE(e.r1);
  EXPECT_EQ(e.r2, false);
  EXPECT_DOUBLE_EQ(e.floor, 145);
}

TEST(CountFloor, TmaBytesBelowHalfTheInputsFailR2AndUnmeasuredBytesAreUnavailable) {
  const TargetSpec tma{"cp.async.bulk.tensor", EvidenceLevel::kR2, 0.9};
  const double inputs = 64.0 * 1024 * 1024;
  ProfiledKernel k = kernel("gemm", {{"UTMALDG.2D", 290}});  // twice the count floor of 145
  EXPECT_FALSE(judge_target(entry("cp.async.bulk.tensor"), tma, {k}, 0, inputs).r2.has_value())
      << "the count floor met, the bytes not measured";
  k.metrics["l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum"] = 290 * 16;
  auto e = judge_target(entry("cp.async.bulk.tensor"), tma, {k}, 0, inputs);
  EXPECT_EQ(e.r2, false) << "290 loads of 16 bytes";
  EXPECT_NEAR(*e.moved_input_share, 290 * 16 / inputs, 1e-12);
  k.metrics["l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum"] = 0.5 * inputs;
  e = judge_target(entry("cp.async.bulk.tensor"), tma, {k}, 0, inputs);
  EXPECT_EQ(e.r2, true);
  EXPECT_NE(e.floor_rule.find("/ input bytes >= 0.50"), std::string::npos) << e.floor_rule;
}

TEST(CountFloor, GlueOpcodesAreNotEvidence) {
  const TargetSpec tma{"cp.async.bulk.tensor", EvidenceLevel::kR2, 0.9};
  const ProfiledKernel k = kernel("gemm", {{"ELECT", 4096}, {"UTMACMDFLUSH", 4096}});
  const auto e = judge_target(entry("cp.async.bulk.tensor"), tma, {k}, 0, 1024);
  EXPECT_FALSE(e.r1);
  EXPECT_EQ(e.executed, 0);
}

// ---- split at markers ----

std::vector<ProfiledKernel> profile(std::vector<ProfiledKernel> middle) {
  std::vector<ProfiledKernel> out = {kernel("ptxb_evidence_control", {{"EXIT", 8}}),
                                     kernel("ptxb_evidence_control", {{"EXIT", 8}}),
                                     kernel("ptxb_flop_control", {{"EXIT", 4}})};
  for (auto& k : middle) out.push_back(std::move(k));
  return out;
}

TEST(SplitKernels, CutsCallsAtTheirMarkers) {
  const auto split = split_kernels(
      profile({kernel("a", {}), kernel("b", {}), kernel("ptxb_evidence_marker", {}, {77, 1, 1}),
               kernel("c", {}), kernel("ptxb_evidence_marker", {}, {5, 1, 1})}),
      {77, 5});
  ASSERT_TRUE(split.problem.empty()) << split.problem;
  ASSERT_EQ(split.calls.size(), 2u);
  EXPECT_EQ(split.calls[0].size(), 2u);
  EXPECT_EQ(split.calls[1][0].name, "c");
}

TEST(SplitKernels, ACallWithoutKernelsIsAnEmptyCall) {
  const auto split = split_kernels(profile({kernel("ptxb_evidence_marker", {}, {9, 1, 1})}), {9});
  ASSERT_TRUE(split.problem.empty());
  EXPECT_TRUE(split.calls[0].empty());
}

TEST(SplitKernels, NamesEveryBrokenStructure) {
  EXPECT_NE(split_kernels({kernel("x", {})}, {}).problem, "");
  EXPECT_NE(split_kernels({kernel("ptxb_evidence_control", {}), kernel("ptxb_evidence_control", {}),
                           kernel("ptxb_evidence_marker", {}, {3, 1, 1})},
                          {3})
                .problem.find("three control kernels"),
            std::string::npos)
      << "the FLOP control is missing";
  EXPECT_NE(split_kernels(profile({kernel("a", {})}), {3}).problem.find("missing"),
            std::string::npos);
  EXPECT_NE(split_kernels(profile({kernel("ptxb_evidence_marker", {}, {4, 1, 1})}), {3})
                .problem.find("grid"),
            std::string::npos)
      << "a marker with another nonce (e.g. forged by the candidate)";
  EXPECT_NE(split_kernels(
                profile({kernel("ptxb_evidence_marker", {}, {3, 1, 1}), kernel("late", {})}), {3})
                .problem.find("after the last"),
            std::string::npos);
}

// ---- controls ----

TEST(Controls, PassWhenPositiveExecutesEverythingAndNegativeNothing) {
  const ProfiledKernel pos =
      with_control_bytes(kernel("ptxb_evidence_control", {{"HGMMA.64x8x16.F32.BF16", 4},
                                                          {"QGMMA.64x8x32.F32.E4M3.E4M3", 4},
                                                          {"UTMALDG.2D", 1},
                                                          {"SYNCS.PHASECHK.TRANS64.TRYWAIT", 6}}),
                         true);
  const ProfiledKernel neg =
      with_control_bytes(kernel("ptxb_evidence_control", {{"EXIT", 8}}), false);
  const std::map<std::string, double> work = {{"HGMMA", 2.0 * 64 * 8 * 16},
                                              {"QGMMA", 2.0 * 64 * 8 * 32}};
  const auto ok = check_controls(tma_task(), catalog(), pos, neg, work);
  EXPECT_TRUE(ok.ok) << ok.problem;
  EXPECT_EQ(ok.detail[0]["expected_mma_flops"], 2.0 * 64 * 8 * 16 + 2.0 * 64 * 8 * 32)
      << "wgmma.mma_async counts every GMMA family";

  EXPECT_FALSE(check_controls(tma_task(), catalog(), pos, neg,
                              {{"HGMMA", 2.0 * 64 * 16 * 16}, {"QGMMA", 2.0 * 64 * 8 * 32}})
                   .ok)
      << "FLOP accounting that disagrees with the control's known work";
  EXPECT_FALSE(check_controls(tma_task(), catalog(), pos, neg, {}).ok) << "no known work";
  EXPECT_FALSE(check_controls(tma_task(), catalog(), neg, neg, work).ok) << "nothing executed";
  const auto bad = check_controls(tma_task(), catalog(), pos, pos, work);
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.problem.find("negative"), std::string::npos);
}

TEST(Controls, TheE4m3TargetCountsOnlyTheQgmmaOfTheControl) {
  TaskSpec fp8 = tma_task();  // a copy, retargeted
  fp8.targets[0].instruction = "wgmma.mma_async.e4m3";
  const ProfiledKernel neg =
      with_control_bytes(kernel("ptxb_evidence_control", {{"EXIT", 8}}), false);
  const std::map<std::string, double> work = {{"HGMMA", 16384}, {"QGMMA", 32768}};
  const ProfiledKernel both =
      with_control_bytes(kernel("ptxb_evidence_control", {{"HGMMA.64x8x16.F32.BF16", 4},
                                                          {"QGMMA.64x8x32.F32.E4M3.E4M3", 4},
                                                          {"UTMALDG.2D", 1},
                                                          {"SYNCS.PHASECHK.TRANS64.TRYWAIT", 6}}),
                         true);
  const auto ok = check_controls(fp8, catalog(), both, neg, work);
  EXPECT_TRUE(ok.ok) << ok.problem;
  EXPECT_EQ(ok.detail[0]["expected_mma_flops"], 32768.0);
  const ProfiledKernel bf16_only =
      with_control_bytes(kernel("ptxb_evidence_control", {{"HGMMA.64x8x16.F32.BF16", 4},
                                                          {"UTMALDG.2D", 1},
                                                          {"SYNCS.PHASECHK.TRANS64.TRYWAIT", 6}}),
                         true);
  EXPECT_FALSE(check_controls(fp8, catalog(), bf16_only, neg, work).ok)
      << "a control without QGMMA cannot vouch for the e4m3 target";
}

TEST(Controls, TheByteCountersMustCountTheControlsLoads) {
  // A byte floor or an other-read cap read from a counter that counts nothing would pass any
  // candidate: every run first shows the counters counting the control's known loads.
  const ProfiledKernel live =
      with_control_bytes(kernel("ptxb_evidence_control", {{"HGMMA.64x8x16.F32.BF16", 4},
                                                          {"QGMMA.64x8x32.F32.E4M3.E4M3", 4},
                                                          {"UTMALDG.2D", 1},
                                                          {"SYNCS.PHASECHK.TRANS64.TRYWAIT", 6}}),
                         true);
  const ProfiledKernel dead =
      with_control_bytes(kernel("ptxb_evidence_control", {{"EXIT", 8}}), false);
  const std::map<std::string, double> work = {{"HGMMA", 16384}, {"QGMMA", 32768}};
  const ControlCheck ok = check_controls(tma_task(), catalog(), live, dead, work);
  ASSERT_TRUE(ok.ok) << ok.problem;
  EXPECT_EQ(ok.detail[1]["positive_bytes"][kTmaLoadBytesMetric], kEvidenceControlTmaLoadBytes);

  auto problem = [&](ProfiledKernel pos, ProfiledKernel neg, const TaskSpec& task) {
    const ControlCheck c = check_controls(task, catalog(), pos, neg, work);
    return c.ok ? std::string("ok") : c.problem;
  };
  ProfiledKernel pos = live;
  pos.metrics[kTmaLoadBytesMetric] = 2048;  // the bulk copy's 512 bytes not seen
  EXPECT_EQ(problem(pos, dead, tma_task()), std::string("the positive control's ") +
                                                kTmaLoadBytesMetric +
                                                " is 2048 bytes where it loads 2560");
  const std::string texture = "l1tex__m_xbar2l1tex_read_bytes_mem_texture.sum";
  pos = live;
  pos.metrics[texture] = 0;  // a cheat reading its operands through textures would go unseen
  EXPECT_EQ(problem(pos, dead, tma_task()),
            "the positive control's " + texture + " is 0 bytes where it reads at least 2048");
  pos = live;
  pos.metrics.erase(texture);
  EXPECT_EQ(problem(pos, dead, tma_task()), "ncu reported no " + texture + " for the controls");
  ProfiledKernel neg = dead;
  neg.metrics[texture] = 64;
  EXPECT_EQ(problem(live, neg, tma_task()),
            "the negative control's " + texture + " is 64 bytes, not 0");
  pos = live;
  pos.metrics[kEvidenceControlOtherReads[0].metric] -= kEvidenceControlNonCoherentReadBytes;
  EXPECT_NE(problem(pos, dead, tma_task()).find("ld.global.nc loads are missing"),
            std::string::npos);
  // Coarser counting (sectors for 4-byte atomics) is not a problem: the floors are minimums.
  pos = live;
  pos.metrics["l1tex__m_xbar2l1tex_read_bytes_mem_global_op_atom.sum"] = 1024;
  EXPECT_EQ(problem(pos, dead, tma_task()), "ok");

  // A task that does not cap other reads does not depend on those counters; the byte floor's
  // counter is still checked.
  TaskSpec uncapped = tma_task();
  for (TargetSpec& t : uncapped.targets) t.max_other_read_input_share.reset();
  pos = live;
  pos.metrics.erase(texture);
  EXPECT_EQ(problem(pos, dead, uncapped), "ok");
  pos.metrics[kTmaLoadBytesMetric] = 0;
  EXPECT_NE(problem(pos, dead, uncapped).find(kTmaLoadBytesMetric), std::string::npos);
}

TEST(Controls, EveryOtherReadMetricOfTheCatalogHasALoadInTheControl) {
  for (const char* name : {"cp.async.bulk.tensor", "cp.async.bulk"})
    for (const std::string& metric : entry(name).other_read_metrics) {
      bool known = false;
      for (const ControlReadBytes& r : kEvidenceControlOtherReads) known |= metric == r.metric;
      EXPECT_TRUE(known) << metric;
    }
}

// ---- the recorded expert run, end to end ----

TEST(JudgeRuntime, RecordedRunShowsTheControlsLoadsAndTheExpertsOtherReads) {
  // What the H200 counted (2026-12-05): every kind at or above its floor: the TMA bytes exact,
  // ld.global 8192 for the 4096 bytes of plain and non-coherent loads, the surface 4096 for 2048:
  // whole-line or repeated counting, never less than loaded.
  const RuntimeJudgement j = judge_runtime(tma_task(), catalog(), testing::recorded_tma_kernels(),
                                           read_messages(kNcu / "expert_tma_messages.jsonl"));
  ASSERT_TRUE(j.available) << j.unavailable_reason;
  const json& tma = j.record["controls"]["targets"][1];
  ASSERT_EQ(tma["instruction"], "cp.async.bulk.tensor");
  const std::map<std::string, double> counted = {
      {kTmaLoadBytesMetric, 2560},
      {"l1tex__m_xbar2l1tex_read_bytes_mem_lg_op_ld.sum", 8192},
      {"l1tex__m_xbar2l1tex_read_bytes_mem_global_op_ldgsts_cache_access.sum", 2048},
      {"smsp__sass_l1tex_m_xbar2l1tex_read_bytes_mem_global_op_ldgsts_cache_bypass.sum", 2048},
      {"l1tex__m_xbar2l1tex_read_bytes_mem_texture.sum", 2048},
      {"l1tex__m_xbar2l1tex_read_bytes_mem_surface_op_ld.sum", 4096},
      {"l1tex__m_xbar2l1tex_read_bytes_mem_global_op_atom.sum", 128}};
  using ByMetric = std::map<std::string, double>;
  EXPECT_EQ(tma["positive_bytes"].get<ByMetric>(), counted);
  // The expert reads nothing but TMA boxes at 4096^3; at 8192^3 its stream-K tail reads fp32
  // partial tiles back (0.096 of the input bytes), under the task's 0.25.
  EXPECT_EQ(j.record["calls"][0]["targets"][1]["other_read_input_share"], 0.0);
  EXPECT_NEAR(j.record["calls"][1]["targets"][1]["other_read_input_share"].get<double>(), 0.0962,
              5e-4);
}

TEST(JudgeRuntime, RecordedExpertRunHasEveryTargetAtR2) {
  const auto kernels = testing::recorded_tma_kernels();
  const auto messages = read_messages(kNcu / "expert_tma_messages.jsonl");
  const RuntimeJudgement j = judge_runtime(tma_task(), catalog(), kernels, messages);
  ASSERT_TRUE(j.available) << j.unavailable_reason;
  EXPECT_TRUE(j.call_failure.empty());
  for (const TargetSpec& t : tma_task().targets) {
    const TargetRuntime& r = j.targets.at(t.instruction);
    EXPECT_EQ(r.r1, true) << t.instruction;
    EXPECT_EQ(r.r2, true) << t.instruction;
  }
  EXPECT_GE(*j.targets.at("wgmma.mma_async").measured_min_flop_share, 0.99);
  // All of the expert's arithmetic is wgmma's but the stream-K tail's sum of fp32 partials at
  // 8192^3 (reduce_tail: FADD, and HFMA2 as it rounds to bf16): 7.9e-6 of the FLOPs.
  EXPECT_LT(*j.targets.at("wgmma.mma_async").max_nontarget_flop_share, 1e-5);
  EXPECT_EQ(j.record["calls"][1]["nontarget_flop_share"],
            j.targets.at("wgmma.mma_async").max_nontarget_flop_share.value());
  EXPECT_TRUE(j.pass_disagreement.empty()) << j.pass_disagreement;
  EXPECT_EQ(j.record["calls"].size(), 4u);
  EXPECT_EQ(j.profiled_counters.at("M=4096 N=4096 K=4096")
                .at("sm__inst_executed_pipe_tensor_op_gmma.sum"),
            1048576)
      << "HGMMA.64x256x16 warp executions: 2*4096^3 / (2*64*256*16) x 4 warps";
  EXPECT_EQ(j.profiled_counters.size(), 4u);
  for (const json& row : j.record["feedback"]) {
    const std::string shape = row["shape"];
    EXPECT_TRUE(shape.rfind("hidden shape #", 0) == 0 || shape.rfind("M=4096", 0) == 0 ||
                shape.rfind("M=8192", 0) == 0)
        << "a hidden shape's size leaked into the feedback: " << shape;
  }
}

TEST(JudgeRuntime, TheControlsWorkIsReadPerOpcodeFamily) {
  const auto kernels = testing::recorded_tma_kernels();
  auto messages = read_messages(kNcu / "expert_tma_messages.jsonl");
  // The recording's control ran one bf16 wgmma; today's worker reports its work per family.
  for (json& m : messages)
    if (m["type"] == "evidence_control" && m.contains("mma_flops")) {
      m["mma_flops_by_opcode"] = {{"HGMMA", m["mma_flops"]}, {"QGMMA", 0.0}};
      m.erase("mma_flops");
    }
  const RuntimeJudgement j = judge_runtime(tma_task(), catalog(), kernels, messages);
  EXPECT_TRUE(j.available) << j.unavailable_reason;
  for (json& m : messages)
    if (m["type"] == "evidence_control") m["mma_flops_by_opcode"] = {{"HGMMA", 999.0}};
  EXPECT_FALSE(judge_runtime(tma_task(), catalog(), kernels, messages).available)
      << "work the control did not do";
}

TEST(JudgeRuntime, VerdictTextShowsTheEvidenceTable) {
  const auto kernels = testing::recorded_tma_kernels();
  const auto messages = read_messages(kNcu / "expert_tma_messages.jsonl");
  Verdict v;
  v.record["evidence"] = judge_runtime(tma_task(), catalog(), kernels, messages).record;
  v.record["evidence"]["mechanism"] = "Nsight Compute";
  const std::string text = render_text(v);
  EXPECT_NE(text.find("controls ok"), std::string::npos) << text;
  EXPECT_NE(text.find("M=4096 N=4096 K=4096   gemm_bf16_tma_ws"), std::string::npos) << text;
  EXPECT_NE(text.find("1048576"), std::string::npos) << text;
  EXPECT_NE(text.find("hidden shape #2"), std::string::npos) << text;
  EXPECT_EQ(text.find("M=4000"), std::string::npos) << "hidden sizes stay out of the table";

  v.record["evidence"] = {{"unavailable", "Nsight Compute (ncu) not found"}};
  EXPECT_NE(render_text(v).find("runtime evidence: unavailable (Nsight"), std::string::npos);
}

TEST(JudgeRuntime, WrongOutputUnderTheProfilerIsACallFailure) {
  const auto kernels = testing::recorded_tma_kernels();
  auto messages = read_messages(kNcu / "expert_tma_messages.jsonl");
  for (json& m : messages)
    if (m["type"] == "evidence_call" && m["hidden"] == true) m["correct"] = false;
  const RuntimeJudgement j = judge_runtime(tma_task(), catalog(), kernels, messages);
  EXPECT_NE(j.call_failure.find("hidden shape #"), std::string::npos) << j.call_failure;
}

TEST(JudgeRuntime, ANonceMismatchMakesTheRunUnavailable) {
  const auto kernels = testing::recorded_tma_kernels();
  auto messages = read_messages(kNcu / "expert_tma_messages.jsonl");
  for (json& m : messages)
    if (m["type"] == "evidence_call") m["nonce"] = 1;
  const RuntimeJudgement j = judge_runtime(tma_task(), catalog(), kernels, messages);
  EXPECT_FALSE(j.available);
  EXPECT_NE(j.unavailable_reason.find("marker"), std::string::npos);
}

// ---- the stage's own failures ----

TEST(EvidenceStage, WithoutNcuItIsUnavailable) {
  TempDir work("ptxb-evidence-test");
  const EvidenceStage s = run_evidence_stage(tma_task(), catalog(), WorkerJob{}, "ptxbench-worker",
                                             EvidenceOptions{}, work.path());
  EXPECT_FALSE(s.judgement.available);
  EXPECT_NE(s.judgement.unavailable_reason.find("ncu"), std::string::npos);
  EXPECT_EQ(s.record["unavailable"], s.judgement.unavailable_reason);
}

TEST(EvidenceStage, AProfilerThatFailsMakesItUnavailableNotAVerdict) {
  TempDir work("ptxb-evidence-test");
  EvidenceOptions options;
  options.ncu = "/bin/false";
  const EvidenceStage s = run_evidence_stage(tma_task(), catalog(), WorkerJob{}, "ptxbench-worker",
                                             options, work.path());
  EXPECT_FALSE(s.judgement.available);
  EXPECT_TRUE(s.candidate_fault.empty());
  EXPECT_NE(s.judgement.unavailable_reason.find("ended early"), std::string::npos)
      << s.judgement.unavailable_reason;
}

// ---- outcomes ----

std::vector<TargetEvidence> static_rows(const TaskSpec& task) {
  std::vector<TargetEvidence> rows;
  for (const TargetSpec& t : task.targets) {
    TargetEvidence row;
    row.instruction = t.instruction;
    row.s0 = row.s1 = LevelResult::kYes;
    rows.push_back(row);
  }
  return rows;
}

EvidenceStage stage_with(std::map<std::string, TargetRuntime> targets) {
  EvidenceStage s;
  s.judgement.available = true;
  s.judgement.targets = std::move(targets);
  return s;
}

TargetRuntime runtime(std::optional<bool> r1, std::optional<bool> r2) {
  TargetRuntime t;
  t.r1 = r1;
  t.r2 = r2;
  t.failure = "why";
  return t;
}

TEST(RuntimeOutcome, EveryTargetAtR2Passes) {
  std::vector<TargetEvidence> rows = static_rows(tma_task());
  std::map<std::string, TargetRuntime> all;
  for (const TargetSpec& t : tma_task().targets) all[t.instruction] = runtime(true, true);
  EXPECT_EQ(apply_runtime(tma_task(), stage_with(all), rows).outcome, Outcome::kPassed);
  for (const TargetEvidence& row : rows) EXPECT_TRUE(row.met);
}

TEST(RuntimeOutcome, NeverExecutedIsMissingAndBelowTheFloorIsLow) {
  std::map<std::string, TargetRuntime> all;
  for (const TargetSpec& t : tma_task().targets) all[t.instruction] = runtime(true, true);
  all["cp.async.bulk.tensor"] = runtime(false, false);
  std::vector<TargetEvidence> rows = static_rows(tma_task());
  EXPECT_EQ(apply_runtime(tma_task(), stage_with(all), rows).outcome, Outcome::kInstructionMissing);
  EXPECT_FALSE(rows[1].met);
  EXPECT_EQ(rows[1].r1, LevelResult::kNo);

  all["cp.async.bulk.tensor"] = runtime(true, true);
  all["wgmma.mma_async"] = runtime(true, false);
  rows = static_rows(tma_task());
  EXPECT_EQ(apply_runtime(tma_task(), stage_with(all), rows).outcome,
            Outcome::kLowInstructionShare);
}

TEST(RuntimeOutcome, UnmeasuredLevelsAreUnavailableNeverPassed) {
  std::map<std::string, TargetRuntime> all;
  for (const TargetSpec& t : tma_task().targets) all[t.instruction] = runtime(true, std::nullopt);
  std::vector<TargetEvidence> rows = static_rows(tma_task());
  EXPECT_EQ(apply_runtime(tma_task(), stage_with(all), rows).outcome, Outcome::kUnavailable);
  EXPECT_EQ(rows[0].r2, LevelResult::kUnavailable);

  EvidenceStage off;
  off.judgement.unavailable_reason = "controls failed: the negative control executed wgmma";
  rows = static_rows(tma_task());
  const RuntimeOutcome o = apply_runtime(tma_task(), off, rows);
  EXPECT_EQ(o.outcome, Outcome::kUnavailable);
  EXPECT_NE(o.reason.find("controls failed"), std::string::npos);
  for (const TargetEvidence& row : rows) EXPECT_FALSE(row.met);
}

TEST(RuntimeOutcome, FaultsAndWrongCallsComeFirst) {
  std::vector<TargetEvidence> rows = static_rows(tma_task());
  EvidenceStage s;
  s.candidate_fault = "cudaErrorIllegalAddress";
  EXPECT_EQ(apply_runtime(tma_task(), s, rows).outcome, Outcome::kCrashed);
  s = EvidenceStage{};
  s.timed_out = true;
  EXPECT_EQ(apply_runtime(tma_task(), s, rows).outcome, Outcome::kTimeout);
  s = EvidenceStage{};
  s.judgement.call_failure =
      "under the profiler, the call at hidden shape #2 produced a wrong output";
  EXPECT_EQ(apply_runtime(tma_task(), s, rows).outcome, Outcome::kIncorrect);
}

}  // namespace
}  // namespace ptxb
