// Nsight Compute CSV parsing, on output recorded on the H200 (tests/fixtures/ncu) and on broken
// variants of it.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "instrument/ncu_csv.hpp"
#include "sys/files.hpp"

namespace ptxb {
namespace {

const std::filesystem::path kNcu = std::filesystem::path(PTXB_FIXTURE_DIR) / "ncu";

const char* kHeader =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
    "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\","
    "\"Metric Unit\",\"Metric Value\"\n";

std::string row(const std::string& metric, const std::string& value, const std::string& id = "0") {
  return "\"" + id +
         "\",\"1\",\"w\",\"h\",\"k(int)\",\"1\",\"7\",\"(128, 1, 1)\",\"(2, 1, 1)\","
         "\"0\",\"9.0\",\"Command line profiler metrics\",\"" +
         metric + "\",\"\",\"" + value + "\"\n";
}

TEST(NcuCsv, ReadsKernelsOnEveryStreamWithOpcodeCounts) {
  // probe: bulk copy, live wgmma, wgmma behind a false branch (stream 7), then wgmma and an FFMA
  // kernel on a second stream (13); a kernel outside the profiler range is absent.
  const auto kernels = parse_ncu_csv(read_file(kNcu / "probe_three_kinds_two_streams.csv"));
  ASSERT_EQ(kernels.size(), 5u);
  EXPECT_EQ(kernels[0].name, "k_bulk(const float *, float *)");
  EXPECT_EQ(kernels[0].opcodes.at("UBLKCP.S.G"), 2);
  EXPECT_EQ(kernels[0].opcodes.at("SYNCS.PHASECHK.TRANS64.TRYWAIT"), 8);
  EXPECT_EQ(kernels[1].opcodes.at("HGMMA.64x8x16.F32.BF16"), 12);  // 3 CTAs x 4 warps
  EXPECT_EQ(kernels[1].grid, (std::array<int64_t, 3>{3, 1, 1}));
  EXPECT_EQ(kernels[1].block, (std::array<int64_t, 3>{128, 1, 1}));
  EXPECT_EQ(kernels[2].opcodes.count("HGMMA.64x8x16.F32.BF16"), 0u);  // the dead branch
  EXPECT_EQ(kernels[3].stream, 13);
  EXPECT_EQ(kernels[3].opcodes.at("HGMMA.64x8x16.F32.BF16"), 28);  // 7 CTAs
  EXPECT_EQ(kernels[4].opcodes.at("FFMA"), 400);
  EXPECT_EQ(kernels[1].executed_total, 1140);  // "1,140": thousands separators
  for (const auto& k : kernels) EXPECT_FALSE(k.duration_ns.has_value());
}

TEST(NcuCsv, ReadsTheEvidenceRunWithDurationsAndCounters) {
  const auto kernels = parse_ncu_csv(read_file(kNcu / "expert_tma_evidence.csv"));
  // 2 evidence controls + the FLOP control + 4 calls x (GEMM kernel + marker) + the stream-K
  // tail's sum at 8192^3
  ASSERT_EQ(kernels.size(), 12u);
  EXPECT_EQ(metric_of(kernels[3], "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum"),
            2.0 * 4096 * 4096 * 4096)
      << "one tensor-path op per FLOP";
  EXPECT_TRUE(kernel_name_is(kernels[0].name, "ptxb_evidence_control"));
  EXPECT_TRUE(kernel_name_is(kernels[2].name, "ptxb_flop_control"));
  EXPECT_TRUE(kernel_name_is(kernels[4].name, "ptxb_evidence_marker"));
  EXPECT_EQ(kernels[3].opcodes.at("HGMMA.64x256x16.F32.BF16"), 1048576);
  EXPECT_EQ(metric_of(kernels[3], "sm__inst_executed_pipe_tensor_op_gmma.sum"), 1048576.0)
      << "the hardware counter agrees with the per-opcode count";
  EXPECT_EQ(metric_of(kernels[2], "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"), 16384.0)
      << "64 f16x2 and 64 bf16x2 FMAs by each of 128 threads";
  EXPECT_FALSE(metric_of(kernels[3], "no_such_metric.sum").has_value());
  ASSERT_TRUE(kernels[0].duration_ns.has_value());
  EXPECT_GT(*kernels[0].duration_ns, 0);
}

TEST(NcuCsv, KernelNameMatchesWholeNamesOnly) {
  EXPECT_TRUE(kernel_name_is("ptxb_evidence_marker", "ptxb_evidence_marker"));
  EXPECT_TRUE(kernel_name_is("ptxb_evidence_marker(int)", "ptxb_evidence_marker"));
  EXPECT_FALSE(kernel_name_is("ptxb_evidence_marker2", "ptxb_evidence_marker"));
  EXPECT_FALSE(kernel_name_is("ns::ptxb_evidence_marker", "ptxb_evidence_marker"));
}

TEST(NcuCsv, SkipsToolMessagesAndProgramOutput) {
  const std::string text = std::string("==PROF== Connected\nhello from the candidate\n") + kHeader +
                           row("sass__inst_executed_per_opcode_with_modifier_all",
                               "3 (EXIT: 2; HGMMA.64x8x16.F32.BF16: 1)");
  const auto kernels = parse_ncu_csv(text);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].opcodes.size(), 2u);
}

TEST(NcuCsv, RejectsInstancesThatDoNotAddUp) {
  const std::string text =
      kHeader + row("sass__inst_executed_per_opcode_with_modifier_all", "5 (EXIT: 2; FFMA: 1)");
  EXPECT_THROW(parse_ncu_csv(text), InputError);
}

TEST(NcuCsv, RejectsMalformedRows) {
  const std::string metric = "sass__inst_executed_per_opcode_with_modifier_all";
  EXPECT_THROW(parse_ncu_csv(kHeader + row(metric, "3 (EXIT 3)")), InputError);
  EXPECT_THROW(parse_ncu_csv(kHeader + row(metric, "three")), InputError);
  EXPECT_THROW(parse_ncu_csv(kHeader + row(metric, "3 (EXIT: 3")), InputError);
  EXPECT_THROW(parse_ncu_csv(std::string(kHeader) + "\"0\",\"1\n"), InputError);
  EXPECT_THROW(parse_ncu_csv(kHeader + row("gpu__time_duration.sum", "12")), InputError)
      << "a kernel without the opcode metric";
  EXPECT_THROW(parse_ncu_csv("\"ID\",\"Kernel Name\"\n"), InputError) << "header lacks columns";
}

TEST(NcuCsv, EmptyLogMeansNoKernels) { EXPECT_TRUE(parse_ncu_csv("==PROF== nothing\n").empty()); }

}  // namespace
}  // namespace ptxb
