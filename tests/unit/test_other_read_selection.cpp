// Which other-read metrics an evidence run leaves out for a candidate's SASS, that the recorded
// expert run judges the same without them, and that a left-out kind executed anyway is seen.
#include "eval/other_read_selection.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "eval/ncu_evidence.hpp"
#include "instrument/evidence_judge.hpp"
#include "recorded_tma_run.hpp"
#include "shipped_tasks.hpp"

namespace ptxb {
namespace {

using testing::catalog;

constexpr const char* kLdgstsAccess =
    "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_ldgsts_cache_access.sum";
constexpr const char* kLdgstsBypass =
    "smsp__sass_l1tex_m_xbar2l1tex_read_bytes_mem_global_op_ldgsts_cache_bypass.sum";
constexpr const char* kSurface = "l1tex__m_xbar2l1tex_read_bytes_mem_surface_op_ld.sum";
constexpr const char* kAtom = "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_atom.sum";
constexpr const char* kPlain = "l1tex__m_xbar2l1tex_read_bytes_mem_lg_op_ld.sum";
constexpr const char* kTexture = "l1tex__m_xbar2l1tex_read_bytes_mem_texture.sum";

SassFunction function_with(std::vector<std::string> opcodes) {
  SassFunction f;
  f.name = "_Z6kernelv";
  for (const std::string& op : opcodes) f.opcode_counts[op] = 1;
  return f;
}

const std::vector<std::string>& tma_reads(const Catalog& c) {
  return c.find("cp.async.bulk.tensor", "sm_90a")->other_read_metrics;
}

bool has(const std::vector<std::string>& list, const std::string& m) {
  return std::find(list.begin(), list.end(), m) != list.end();
}

TEST(OtherReadSelection, AKindTheSassLacksIsLeftOutPlainLoadsAndTexturesNever) {
  // A TMA kernel as the experts are: TMA loads, plain loads of partial tiles, a warp reduction
  // (REDUX is not RED), no cp.async, surface load or global atomic.
  const OtherReadSelection s =
      select_other_reads(catalog(), {function_with({"UTMALDG.2D", "LDG.E.128", "REDUX.SUM",
                                                    "HGMMA.64x256x16.F32.BF16", "ATOMS.ADD"})});
  EXPECT_EQ(s.left_out.size(), 4u);
  for (const char* m : {kLdgstsAccess, kLdgstsBypass, kSurface, kAtom}) {
    EXPECT_TRUE(s.left_out.count(m)) << m;
    EXPECT_FALSE(has(tma_reads(s.catalog), m)) << m;
  }
  for (const char* m : {kPlain, kTexture}) EXPECT_TRUE(has(tma_reads(s.catalog), m)) << m;
  // Every other entry loses them too (the 1-D bulk copy caps other reads as well).
  EXPECT_FALSE(has(s.catalog.find("cp.async.bulk", "sm_90a")->other_read_metrics, kSurface));
  // The task's metric list follows.
  const TaskSpec tma = find_task(testing::kTasksRoot, catalog(), "sm90/gemm/bf16-wgmma-tma");
  const std::string metrics = evidence_ncu_metrics(tma, s.catalog);
  EXPECT_EQ(metrics.find(kLdgstsAccess), std::string::npos);
  EXPECT_NE(metrics.find(kPlain), std::string::npos);
  EXPECT_NE(evidence_ncu_metrics(tma, catalog()).find(kLdgstsAccess), std::string::npos);
}

TEST(OtherReadSelection, AKindInAnyFunctionIsKeptAndNoListingKeepsAll) {
  const OtherReadSelection s = select_other_reads(
      catalog(),
      {function_with({"UTMALDG.2D"}), function_with({"LDGSTS.E.BYPASS.LTC128B.128"}),
       function_with({"SULD.D.BA.1D.STRONG.GPU"}), function_with({"RED.E.ADD.STRONG.GPU"})});
  EXPECT_TRUE(s.left_out.empty());
  EXPECT_EQ(tma_reads(s.catalog), tma_reads(catalog()));
  EXPECT_TRUE(select_other_reads(catalog(), {}).left_out.empty()) << "no SASS: nothing is known";
}

TEST(OtherReadSelection, TheRecordedExpertRunJudgesTheSameWithoutTheLeftOutMetrics) {
  // The TMA expert's evidence run (H200) judged with the selection its SASS kinds give: the
  // controls' byte checks cover the kept kinds, every target at R2, the same other-read shares.
  const OtherReadSelection s =
      select_other_reads(catalog(), {function_with({"UTMALDG.2D", "LDG.E.128"})});
  const TaskSpec tma = find_task(testing::kTasksRoot, catalog(), "sm90/gemm/bf16-wgmma-tma");
  const auto kernels = testing::recorded_tma_kernels();
  const auto messages = testing::recorded_tma_messages();
  const RuntimeJudgement all = judge_runtime(tma, catalog(), kernels, messages);
  const RuntimeJudgement some = judge_runtime(tma, s.catalog, kernels, messages);
  ASSERT_TRUE(some.available) << some.unavailable_reason;
  for (const TargetSpec& t : tma.targets) EXPECT_EQ(some.targets.at(t.instruction).r2, true);
  for (size_t call = 0; call < 4; ++call)
    EXPECT_EQ(some.record["calls"][call]["targets"][1]["other_read_input_share"],
              all.record["calls"][call]["targets"][1]["other_read_input_share"])
        << call;
  // The calls executed no instruction of a left-out kind (the controls did, and do not count).
  EXPECT_FALSE(some.call_opcodes.empty());
  EXPECT_FALSE(left_out_kind_executed(s, some.call_opcodes))
      << *left_out_kind_executed(s, some.call_opcodes);
}

TEST(OtherReadSelection, ALeftOutKindThatExecutedAnywayIsNamed) {
  // Code the static listing lacks (loaded at run time) that reads by cp.async.
  const OtherReadSelection s = select_other_reads(catalog(), {function_with({"UTMALDG.2D"})});
  const auto executed =
      left_out_kind_executed(s, {"HGMMA.64x256x16.F32.BF16", "LDGSTS.E.BYPASS.LTC128B.128"});
  ASSERT_TRUE(executed);
  EXPECT_NE(executed->find("LDGSTS.E.BYPASS.LTC128B.128, which "), std::string::npos) << *executed;
  EXPECT_FALSE(left_out_kind_executed(s, {"LDG.E.128", "REDUX.SUM", "ATOMS.ADD"}));
  EXPECT_TRUE(left_out_kind_executed(s, {"ATOMG.E.ADD.STRONG.GPU"}));
}

}  // namespace
}  // namespace ptxb
