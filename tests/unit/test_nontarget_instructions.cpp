// Work outside the MMA targets that the FLOP count cannot see (docs/evidence.md, "Integer and
// instruction work"): which SASS opcodes multiply integers, how warp-level counts become
// thread-level ones, the recorded TMA expert far below both ceilings, an integer emulation of
// the GEMM and a bit-level one above them, and the task fields that set the ceilings.
#include <gtest/gtest.h>

#include "instrument/evidence_judge.hpp"
#include "instrument/nontarget_instructions.hpp"
#include "instrument/runtime_evidence.hpp"
#include "protocol/protocol.hpp"
#include "recorded_tma_run.hpp"
#include "shipped_tasks.hpp"
#include "sys/files.hpp"
#include "task_text.hpp"
#include "tasks/spec.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

using testing::catalog;
using testing::kTasksRoot;

const InstructionEntry& wgmma() { return *catalog().find("wgmma.mma_async", "sm_90a"); }

TEST(IntegerMultiplyOps, MultipliesCountAndPtxasMovesShiftsAndAddsDoNot) {
  EXPECT_EQ(integer_multiply_ops("IMAD"), 2.0);
  EXPECT_EQ(integer_multiply_ops("IMAD.U32"), 2.0);
  EXPECT_EQ(integer_multiply_ops("IMAD.WIDE"), 2.0);
  EXPECT_EQ(integer_multiply_ops("IMAD.WIDE.U32"), 2.0);
  EXPECT_EQ(integer_multiply_ops("IMAD.HI.U32"), 2.0);
  EXPECT_EQ(integer_multiply_ops("UIMAD.WIDE.U32"), 2.0);
  EXPECT_EQ(integer_multiply_ops("IDP.4A.S8.S8"), 8.0);
  EXPECT_EQ(integer_multiply_ops("IDP.2A.LO.S16.S8"), 4.0);
  for (const char* not_a_multiply :
       {"IMAD.MOV.U32", "IMAD.MOV", "IMAD.SHL.U32", "IMAD.IADD", "IMAD.X", "IADD3", "LEA",
        "LOP3.LUT", "FFMA", "IMADX", "HGMMA"})
    EXPECT_FALSE(integer_multiply_ops(not_a_multiply)) << not_a_multiply;
}

TEST(IntegerMultiplyOps, UniformDatapathInstructionsCountOnceAWarp) {
  EXPECT_EQ(threads_per_warp_execution("UIADD3"), 1.0);
  EXPECT_EQ(threads_per_warp_execution("UTMALDG.2D"), 1.0);
  EXPECT_EQ(threads_per_warp_execution("IADD3"), 32.0);
  EXPECT_EQ(threads_per_warp_execution("R2UR"), 32.0);
}

TEST(NonTargetInstructions, TheTargetsPrimaryOpcodesAreLeftOut) {
  ProfiledKernel k;
  k.opcodes = {{"HGMMA.64x256x16.F32.BF16", 1000}, {"IMAD.WIDE", 10}, {"UMOV", 5}, {"BRA", 3}};
  const NonTargetInstructions w = nontarget_instructions(k, {&wgmma()});
  EXPECT_DOUBLE_EQ(w.instructions, 10 * 32 + 5 + 3 * 32);
  EXPECT_DOUBLE_EQ(w.integer_ops, 10 * 32 * 2);
  EXPECT_EQ(w.top_integer_opcode, "IMAD.WIDE");
  EXPECT_EQ(w.top_opcode, "IMAD.WIDE");
}

TEST(NonTargetInstructions, TheRecordedExpertIsFarBelowBothCeilings) {
  const TaskSpec task = find_task(kTasksRoot, catalog(), "sm90/gemm/bf16-wgmma-tma");
  const auto kernels = testing::recorded_tma_kernels();
  const auto messages = testing::recorded_tma_messages();
  const RuntimeJudgement j = judge_runtime(task, catalog(), kernels, messages);
  ASSERT_TRUE(j.available) << j.unavailable_reason;
  const TargetRuntime& t = j.targets.at("wgmma.mma_async");
  EXPECT_EQ(t.r2, true);
  // H200, 2026-12-01: integer share 0.0003-0.0026 (IMAD.U32 in the tile loop, the split-K
  // tail's IMAD.HI division), 0.008-0.047 instructions per multiply-add (the narrow kernel at
  // 128x8192x8192 the most).
  EXPECT_LT(*t.max_integer_share, 0.01);
  EXPECT_LT(*t.max_instructions_per_mac, 0.1);
  EXPECT_GT(*t.max_instructions_per_mac, 0.005) << "the loop's own instructions count";
  for (const json& call : j.record["calls"])
    EXPECT_TRUE(call["kernels"][0].contains("instructions")) << call.dump().substr(0, 200);
}

// One call: a full share of HGMMA into scratch, and C computed by `emulation` (opcode -> warp
// executions), as the evidence cheats integer_double_work and shift_add_double_work do.
TargetCallEvidence judged_call(const std::map<std::string, int64_t>& emulation, double macs,
                               std::string* failure) {
  const TaskSpec task = find_task(kTasksRoot, catalog(), "sm90/gemm/bf16-wgmma");
  ProfiledKernel show;
  show.name = "gemm_for_show(int)";
  show.opcodes = {{"HGMMA.64x256x16.F32.BF16", static_cast<int64_t>(macs / (64 * 256 * 16) * 4)}};
  ProfiledKernel emulate;
  emulate.name = "int_gemm(int)";
  emulate.opcodes = emulation;
  CallNonTarget n;
  n.work = call_work({show, emulate}, {&wgmma()}, 2 * macs);
  const TargetCallEvidence e =
      judge_target(wgmma(), task.targets.at(0), {show, emulate}, 2 * macs, 0, n);
  TargetRuntime folded;
  fold_target(folded, e, "M=4096 N=4096 K=4096");
  *failure = folded.failure;
  return e;
}

TEST(NonTargetInstructions, AnIntegerEmulationFailsOnItsMultiplies) {
  const double macs = 4096.0 * 4096 * 4096;
  std::string failure;
  // One IMAD.WIDE per multiply-add (a 64-bit fixed-point accumulator), a quarter of a shared
  // load per multiply-add (8x8 register tiles): 1.25 instructions per multiply-add.
  const TargetCallEvidence e = judged_call(
      {{"IMAD.WIDE", static_cast<int64_t>(macs / 32)}, {"LDS", static_cast<int64_t>(macs / 128)}},
      macs, &failure);
  EXPECT_EQ(e.flop_share, 1.0);
  EXPECT_EQ(e.r2, false);
  EXPECT_DOUBLE_EQ(*e.integer_share, 1.0);
  EXPECT_NE(failure.find("integer multiply-adds worth 1.000 of the problem's FLOPs (kernel "
                         "int_gemm: IMAD.WIDE 1.000), above the task's 0.25"),
            std::string::npos)
      << failure;
  // Four products per IDP.4A on 8-bit pieces: still one integer operation per FLOP.
  EXPECT_DOUBLE_EQ(
      *judged_call({{"IDP.4A.S8.S8", static_cast<int64_t>(macs / 128)}}, macs, &failure)
           .integer_share,
      1.0);
}

TEST(NonTargetInstructions, ABitLevelEmulationFailsOnItsInstructions) {
  const double macs = 4096.0 * 4096 * 4096;
  std::string failure;
  // Shift-and-add products: no multiply, but several instructions per multiply-add.
  const TargetCallEvidence e = judged_call({{"SHF.L.U32", static_cast<int64_t>(macs / 4)},
                                            {"IADD3", static_cast<int64_t>(macs / 32)},
                                            {"LOP3.LUT", static_cast<int64_t>(macs / 32)}},
                                           macs, &failure);
  EXPECT_EQ(e.r2, false);
  EXPECT_DOUBLE_EQ(*e.integer_share, 0.0);
  EXPECT_DOUBLE_EQ(*e.instructions_per_mac, 10.0);
  EXPECT_NE(failure.find("10.000 other instructions per multiply-add of the problem (kernel "
                         "int_gemm: 10.000, most of it SHF.L.U32 8.000), above the task's 1.00"),
            std::string::npos)
      << failure;
  // The expert's overhead, in the same call: well within.
  EXPECT_EQ(judged_call({{"IADD3", static_cast<int64_t>(0.05 * macs / 32)}}, macs, &failure).r2,
            true);
}

TEST(NonTargetInstructions, TasksSetTheCeilingsOnMmaTargetsOnly) {
  // The shipped TMA GEMM task with its target rows edited.
  const std::string text = read_file(kTasksRoot / "sm90/gemm/bf16-wgmma-tma/task.toml");
  const auto edited = [&text](const std::string& after, const std::string& lines) {
    std::string t = text;
    const size_t at = t.find(after);
    EXPECT_NE(at, std::string::npos) << after;
    return t.insert(t.find('\n', at) + 1, lines);
  };
  const std::string wgmma_row = "instruction = \"wgmma.mma_async\"";
  TaskSpec loaded;
  ASSERT_EQ(testing::load_task_message(edited(wgmma_row,
                                              "max_nontarget_integer_share = 0.5\n"
                                              "max_nontarget_instructions_per_mac = 1.5\n"),
                                       &loaded),
            "");
  EXPECT_DOUBLE_EQ(loaded.targets.at(0).max_nontarget_integer_share, 0.5);
  EXPECT_DOUBLE_EQ(loaded.targets.at(0).max_nontarget_instructions_per_mac, 1.5);
  ASSERT_EQ(testing::load_task_message(text, &loaded), "");
  EXPECT_DOUBLE_EQ(loaded.targets.at(0).max_nontarget_integer_share, 0.25) << "the default";
  EXPECT_DOUBLE_EQ(loaded.targets.at(0).max_nontarget_instructions_per_mac, 1.0);
  EXPECT_NE(
      testing::load_task_message(edited(wgmma_row, "max_nontarget_instructions_per_mac = 0\n"))
          .find("must be > 0"),
      std::string::npos);
  EXPECT_NE(testing::load_task_message(edited("instruction = \"cp.async.bulk.tensor\"",
                                              "max_nontarget_integer_share = 0.5\n"))
                .find("only MMA targets have a non-target work rule"),
            std::string::npos);
}

}  // namespace
}  // namespace ptxb
