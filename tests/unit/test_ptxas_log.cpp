// ptxas -v parsing on recorded ptxas 13.0 logs (tests/fixtures/compile/recorded).
#include <gtest/gtest.h>

#include <filesystem>

#include "compile/ptxas_log.hpp"
#include "sys/files.hpp"

namespace ptxb {
namespace {

const std::filesystem::path kRecorded =
    std::filesystem::path(PTXB_FIXTURE_DIR) / "compile" / "recorded";

TEST(PtxasResources, RecordedWgmmaLogHasBothEntries) {
  const auto res = parse_ptxas_resources(read_file(kRecorded / "ptxas_wgmma_loop.log"));
  ASSERT_EQ(res.size(), 2u);
  EXPECT_EQ(res[0].function, "_Z11axpy_kernelPfPKffi");
  EXPECT_EQ(res[0].registers, 10);
  EXPECT_EQ(res[0].shared_bytes, 0);
  EXPECT_EQ(res[1].function, "_Z17wgmma_loop_kernelPfi");
  EXPECT_EQ(res[1].registers, 30);
  EXPECT_EQ(res[1].shared_bytes, 2304);
  EXPECT_EQ(res[1].stack_frame_bytes, 0);
}

TEST(PtxasResources, RecordedSpillLogHasStackSpillsAndTheCallee) {
  const auto res = parse_ptxas_resources(read_file(kRecorded / "ptxas_spill.log"));
  ASSERT_EQ(res.size(), 2u);
  EXPECT_EQ(res[0].function, "_Z5spillPfPKfi");
  EXPECT_EQ(res[0].registers, 32);
  EXPECT_EQ(res[0].stack_frame_bytes, 624);
  EXPECT_EQ(res[0].spill_store_bytes, 664);
  EXPECT_EQ(res[0].spill_load_bytes, 748);
  EXPECT_EQ(res[1].function, "_Z6helperPfi");  // a non-entry function: no "Used" line
  EXPECT_EQ(res[1].registers, 0);
  EXPECT_EQ(res[1].stack_frame_bytes, 0);
}

TEST(PtxasResources, OtherLinesAreIgnored) {
  EXPECT_TRUE(parse_ptxas_resources("").empty());
  EXPECT_TRUE(
      parse_ptxas_resources("cand.cu(4): error: x\nptxas info    : 0 bytes gmem\n").empty());
  const auto res = parse_ptxas_resources(
      "ptxas info    : Compiling entry function '_Z1kv' for 'sm_100a'\r\n"
      "ptxas info    : Used 168 registers, used 1 barriers, 1024 bytes smem, 900 bytes "
      "cmem[0]\r\n");
  ASSERT_EQ(res.size(), 1u);
  EXPECT_EQ(res[0].registers, 168);
  EXPECT_EQ(res[0].shared_bytes, 1024);
}

TEST(PtxasQualityFlags, RecordedWgmmaLogFlagsInOrder) {
  const auto flags = parse_quality_flags(read_file(kRecorded / "ptxas_wgmma_loop.log"));
  ASSERT_EQ(flags.size(), 4u);
  EXPECT_EQ(flags[0].code, "C7508");
  EXPECT_EQ(flags[1].code, "C7517");
  EXPECT_EQ(flags[2].code, "C7517");
  EXPECT_EQ(flags[3].code, "C7511");
  EXPECT_EQ(flags[0].message.rfind("ptxas info", 0), 0u) << flags[0].message;
  EXPECT_NE(flags[3].message.find("serialized"), std::string::npos);
}

TEST(PtxasQualityFlags, NoCodesNoFlags) {
  EXPECT_TRUE(parse_quality_flags(read_file(kRecorded / "ptxas_spill.log")).empty());
  const auto flags = parse_quality_flags(
      "ptxas warning : (C7515) Potential Performance Loss: wgmma.mma_async instructions are "
      "serialized due to the presence of Extern calls in the function '_Z1kv'\n");
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].code, "C7515");
}

}  // namespace
}  // namespace ptxb
