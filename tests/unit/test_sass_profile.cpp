// The in-process evidence's kernels from CUPTI SASS-metrics records (instrument/sass_profile.hpp),
// on the real H200 records of tests/fixtures/sass_metrics and on hand-made executions.
#include <gtest/gtest.h>

#include <filesystem>

#include "compile/sass.hpp"
#include "controls/flop_classes.hpp"
#include "instrument/sass_profile.hpp"
#include "sass_metrics_fixture.hpp"
#include "sys/files.hpp"

namespace ptxb {
namespace {

const std::filesystem::path kDir = kSassMetricsFixtures;

std::string metric(std::string_view cls) {
  return "smsp__sass_thread_inst_executed_op_" + std::string(cls) + "_pred_on.sum";
}

TEST(FlopClassOf, ByTheOpcodesFirstPart) {
  EXPECT_EQ(flop_class_of("FFMA"), "ffma");
  EXPECT_EQ(flop_class_of("FFMA.FTZ.RZ"), "ffma");
  EXPECT_EQ(flop_class_of("FFMA32I"), "ffma");
  EXPECT_EQ(flop_class_of("FMUL.FTZ"), "fmul");
  EXPECT_EQ(flop_class_of("FADD32I.FTZ"), "fadd");
  EXPECT_EQ(flop_class_of("HFMA2.MMA.BF16_V2"), "hfma");
  EXPECT_EQ(flop_class_of("HMUL2_32I"), "hmul");
  EXPECT_EQ(flop_class_of("HADD2.F32"), "hadd");
  EXPECT_EQ(flop_class_of("DFMA.RM"), "dfma");
  EXPECT_EQ(flop_class_of("DMUL"), "dmul");
  EXPECT_EQ(flop_class_of("DADD"), "dadd");
  // Look-alikes that do no floating-point arithmetic of these classes.
  for (const char* other : {"FSWZADD", "FMNMX", "FSEL", "FSETP.GT.AND", "HGMMA.64x256x16.F32.BF16",
                            "HMMA.16816.F32.BF16", "IMAD", "FFMAX", "DSETP", "F2F.BF16.F32", ""})
    EXPECT_FALSE(flop_class_of(other).has_value()) << other;
}

TEST(DemangledKernelName, AsNcuNamesKernels) {
  EXPECT_EQ(demangled_kernel_name("_Z7chain_aPfi"), "chain_a(float*, int)");
  EXPECT_EQ(demangled_kernel_name("ptxb_flop_control"), "ptxb_flop_control");
  EXPECT_EQ(demangled_kernel_name("_ZN12_GLOBAL__N_14gemmEPfi"), "<unnamed>::gemm(float*, int)");
  EXPECT_EQ(demangled_kernel_name("_Znot a name"), "_Znot a name");
}

TEST(SassProfiledKernels, TheH200RecordsGiveTheLoopsCountsAndItsFfmaClass) {
  const std::vector<PcRecord> records = probe_records(read_file(kDir / "chain_a_records.txt"));
  const auto kernels = sass_profiled_kernels(
      opcode_executions(sass_pc_opcodes(read_file(kDir / "chain_kernels.sass")), records));
  ASSERT_EQ(kernels.size(), 1u);
  const ProfiledKernel& k = kernels.front();
  EXPECT_TRUE(kernel_name_is(k.name, "chain_a"));
  EXPECT_EQ(k.executed_total, 1290432);  // what ncu measured for the launch
  EXPECT_EQ(k.opcodes.at("FFMA"), 132 * 8 * 1000);
  // ncu's smsp__sass_thread_inst_executed_op_ffma_pred_on.sum for the launch: 33,792,000.
  EXPECT_EQ(k.metrics.at(metric("ffma")), 33792000.0);
  // NOTE: ptxas's constant move HFMA2.MMA R6, -RZ, RZ, ... once per thread counts as an hfma,
  // as an HFMA2 by name (whether ncu's class counts it is held against ncu on the device).
  EXPECT_EQ(k.metrics.at(metric("hfma")), 132.0 * 256);
  for (const FlopClass& c : kFlopClasses)
    if (c.name != "ffma" && c.name != "hfma")
      EXPECT_EQ(k.metrics.at(flop_class_metric(c)), 0.0) << c.name;
  EXPECT_FALSE(k.duration_ns.has_value());
}

TEST(SassProfiledKernels, ClassesSumTheirOpcodesThreadsAndOpcodesTheirWarps) {
  std::map<std::string, OpcodeExecutions> e;
  e["_Z1kv"].warps = {{"FFMA", 10}, {"FFMA32I", 2}, {"HFMA2.MMA", 3}, {"IMAD", 5}, {"NOP", 0}};
  e["_Z1kv"].threads = {{"FFMA", 300}, {"FFMA32I", 64}, {"HFMA2.MMA", 96}, {"IMAD", 160}};
  e["_Z1jv"].warps = {{"DADD", 1}};
  e["_Z1jv"].threads = {{"DADD", 7}};
  const auto kernels = sass_profiled_kernels(e);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "j()");  // ordered by mangled name
  EXPECT_EQ(kernels[0].metrics.at(metric("dadd")), 7.0);
  const ProfiledKernel& k = kernels[1];
  EXPECT_EQ(k.name, "k()");
  EXPECT_EQ(k.executed_total, 20);
  EXPECT_EQ(k.opcodes.count("NOP"), 0u);  // never executed: absent, as ncu leaves it out
  EXPECT_EQ(k.metrics.at(metric("ffma")), 364.0);
  EXPECT_EQ(k.metrics.at(metric("hfma")), 96.0);
  EXPECT_EQ(k.metrics.at(metric("fmul")), 0.0);
}

}  // namespace
}  // namespace ptxb
