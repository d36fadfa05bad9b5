// Reading compute-sanitizer logs (the format compute-sanitizer 2025.x prints).
#include <gtest/gtest.h>

#include "eval/sanitize.hpp"

namespace ptxb {
namespace {

TEST(SanitizerLog, CountsErrorsAndKeepsTheFirstFindings) {
  const std::string log =
      "========= COMPUTE-SANITIZER\n"
      "========= Invalid __global__ write of size 2 bytes\n"
      "=========     at gemm(const __nv_bfloat16 *, int)+0x1a0 in cand.cu:40\n"
      "=========     by thread (0,0,0) in block (3,0,0)\n"
      "=========     Address 0x7f00001000 is out of bounds\n"
      "=========\n"
      "========= Invalid __global__ write of size 2 bytes\n"
      "=========     at gemm(const __nv_bfloat16 *, int)+0x1a0 in cand.cu:40\n"
      "some program output\n"
      "========= ERROR SUMMARY: 2 errors\n";
  const SanitizerFindings f = parse_sanitizer_log(log);
  EXPECT_EQ(f.errors, 2);
  ASSERT_EQ(f.first.size(), 2u);
  EXPECT_EQ(f.first[0], "Invalid __global__ write of size 2 bytes");
}

TEST(SanitizerLog, CleanAndMissingSummaries) {
  EXPECT_EQ(parse_sanitizer_log("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n")
                .errors,
            0);
  EXPECT_EQ(parse_sanitizer_log("").errors, -1) << "no summary: the run did not finish";
  // racecheck's own summary line (recorded on the H200 with the TMA expert).
  EXPECT_EQ(parse_sanitizer_log("========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 "
                                "warnings)\n")
                .errors,
            0);
  EXPECT_EQ(parse_sanitizer_log("========= RACECHECK SUMMARY: 3 hazards displayed (2 errors, 1 "
                                "warnings)\n")
                .errors,
            2);
}

}  // namespace
}  // namespace ptxb
