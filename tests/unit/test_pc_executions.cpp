// Opcode executions from CUPTI SASS metrics records and a SASS listing, on real H200 output
// (tests/fixtures/sass_metrics: one launch of a 1000-step FFMA loop, 132 x 256 threads).
#include <gtest/gtest.h>

#include <filesystem>

#include "compile/sass.hpp"
#include "core/error.hpp"
#include "instrument/pc_executions.hpp"
#include "sass_metrics_fixture.hpp"
#include "sys/files.hpp"

namespace ptxb {
namespace {

const std::filesystem::path kDir = kSassMetricsFixtures;

TEST(SassPcOpcodes, EveryInstructionOfTheListingByOffset) {
  const auto opcodes = sass_pc_opcodes(read_file(kDir / "chain_kernels.sass"));
  ASSERT_EQ(opcodes.count("_Z7chain_aPfi"), 1u);
  ASSERT_EQ(opcodes.count("_Z7chain_bPfi"), 1u);
  const auto& a = opcodes.at("_Z7chain_aPfi");
  EXPECT_EQ(a.begin()->first, 0u);
  for (const auto& [pc, opcode] : a) EXPECT_EQ(pc % 16, 0u) << opcode;  // 16-byte instructions
}

TEST(PcExecutions, TheFfmaLoopCountsExactlyFromTheH200Records) {
  const std::vector<PcRecord> records = probe_records(read_file(kDir / "chain_a_records.txt"));
  ASSERT_EQ(records.size(), 152u);  // 76 instructions x 2 metrics
  const auto by_function =
      opcode_executions(sass_pc_opcodes(read_file(kDir / "chain_kernels.sass")), records);
  ASSERT_EQ(by_function.size(), 1u);
  const OpcodeExecutions& e = by_function.at("_Z7chain_aPfi");
  // 132 blocks x 8 warps x 1000 steps, every thread active.
  EXPECT_EQ(e.warps.at("FFMA"), 132 * 8 * 1000);
  EXPECT_EQ(e.threads.at("FFMA"), int64_t{132} * 256 * 1000);
  // Warp-level totals: what the probe printed for the launch.
  int64_t warps = 0;
  for (const auto& [opcode, n] : e.warps) warps += n;
  EXPECT_EQ(warps, 1290432);
}

TEST(PcExecutions, RecordsOfOtherCodeAreRefused) {
  const PcOpcodes listing = sass_pc_opcodes(read_file(kDir / "chain_kernels.sass"));
  EXPECT_THROW(opcode_executions(listing, {PcRecord{"_Z7chain_cPfi", 0, 1, 32}}), InputError);
  EXPECT_THROW(opcode_executions(listing, {PcRecord{"_Z7chain_aPfi", 0x8, 1, 32}}), InputError);
  EXPECT_THROW(opcode_executions(listing, {PcRecord{"_Z7chain_aPfi", 0x100000, 1, 32}}),
               InputError);
}

}  // namespace
}  // namespace ptxb
