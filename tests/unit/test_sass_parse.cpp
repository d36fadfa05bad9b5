// SASS listing parser on a recorded cuobjdump 13.5 listing (tests/fixtures/compile/recorded) and on
// single lines.
#include <gtest/gtest.h>

#include <filesystem>

#include "compile/sass.hpp"
#include "sys/files.hpp"

namespace ptxb {
namespace {

const std::filesystem::path kRecorded =
    std::filesystem::path(PTXB_FIXTURE_DIR) / "compile" / "recorded";

TEST(SassOpcode, SkipsOffsetAndPredicateAndKeepsTheFullToken) {
  EXPECT_EQ(sass_opcode("        /*0300*/                   HGMMA.64x8x16.F32.BF16 R24, "
                        "gdesc[UR8], RZ, !UPT, gsb0 ;  /* 0x00000000081879f0 */"),
            "HGMMA.64x8x16.F32.BF16");
  EXPECT_EQ(sass_opcode("        /*0130*/              @!UP0 SYNCS.EXCH.64 URZ, [UR9], UR4 ;"),
            "SYNCS.EXCH.64");
  EXPECT_EQ(sass_opcode("        /*0070*/               @P0 EXIT ;"), "EXIT");
  EXPECT_EQ(sass_opcode("        /*0330*/                   NOP;    /* 0x0000000000007918 */"),
            "NOP");
}

TEST(SassOpcode, NonInstructionLinesGiveNothing) {
  EXPECT_EQ(sass_opcode("                                      /* 0x000fe20000000800 */"),
            std::nullopt);
  EXPECT_EQ(sass_opcode("\t\tFunction : _Z11axpy_kernelPfPKffi"), std::nullopt);
  EXPECT_EQ(sass_opcode("\t.headerflags\t@\"EF_CUDA_ACCELERATORS EF_CUDA_SM90\""), std::nullopt);
  EXPECT_EQ(sass_opcode("\t\t.........."), std::nullopt);
  EXPECT_EQ(sass_opcode(""), std::nullopt);
  EXPECT_EQ(sass_opcode("        /*0010*/   "), std::nullopt);
}

TEST(SassParse, RecordedListingSplitsIntoFunctionsWithCounts) {
  const auto functions = parse_sass(read_file(kRecorded / "cuobjdump_wgmma_loop_and_axpy.sass"));
  ASSERT_EQ(functions.size(), 2u);
  EXPECT_EQ(functions[0].name, "_Z11axpy_kernelPfPKffi");
  EXPECT_EQ(functions[1].name, "_Z17wgmma_loop_kernelPfi");

  const auto& axpy = functions[0].opcode_counts;
  EXPECT_EQ(axpy.at("FFMA"), 1);
  EXPECT_EQ(axpy.at("EXIT"), 2);  // one of them predicated (@P0 EXIT)
  EXPECT_EQ(axpy.at("NOP"), 12);
  EXPECT_EQ(axpy.count("HGMMA.64x8x16.F32.BF16"), 0u);

  const auto& loop = functions[1].opcode_counts;
  EXPECT_EQ(loop.at("HGMMA.64x8x16.F32.BF16"), 2);
  EXPECT_EQ(loop.at("HGMMA.64x8x16.F16"), 3);  // ptxas-injected dummies on RZ
  EXPECT_EQ(loop.at("WARPGROUP.ARRIVE"), 5);
  EXPECT_EQ(loop.at("WARPGROUP.DEPBAR.LE"), 5);
  EXPECT_EQ(loop.at("BRA"), 6);

  EXPECT_EQ(functions[0].text.find("HGMMA"), std::string::npos);
  EXPECT_NE(functions[1].text.find("Function : _Z17wgmma_loop_kernelPfi"), std::string::npos);
  EXPECT_EQ(functions[1].text.find("Fatbin"), std::string::npos);
}

TEST(SassParse, EmptyAndFunctionlessListings) {
  EXPECT_TRUE(parse_sass("").empty());
  EXPECT_TRUE(parse_sass("\nFatbin elf code:\n================\narch = sm_90a\n").empty());
}

}  // namespace
}  // namespace ptxb
