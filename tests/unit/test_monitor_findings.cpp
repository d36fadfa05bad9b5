// The monitor's findings (worker/monitor_findings.hpp) on hand-built reports: a candidate kernel
// on a stream outside the allowed set is a finding (ptxb_run gets one stream; ptxb_plan also the
// default streams), PTXBench's own kernels never are, other-thread launches always are, and so are
// modules loaded that the candidate's compiled device code does not hold.
#include <gtest/gtest.h>

#include "worker/monitor_findings.hpp"

namespace ptxb {
namespace {

constexpr uint32_t kGiven = 13, kLegacy = 7, kOther = 21;

MonitoredKernel kernel(std::string name, uint32_t stream, bool candidate = true) {
  MonitoredKernel k;
  k.name = std::move(name);
  k.stream_id = stream;
  k.from_candidate = candidate;
  k.launch_seen = true;
  return k;
}

TEST(MonitorFindings, KernelOnTheGivenStreamIsClean) {
  MonitorReport r;
  r.kernels = {kernel("gemm", kGiven)};
  EXPECT_TRUE(monitor_violations(r, {kGiven}, std::nullopt).empty());
}

TEST(MonitorFindings, DefaultStreamIsAFindingUnlessAllowed) {
  MonitorReport r;
  r.kernels = {kernel("time_work", kLegacy)};
  const auto run_rule = monitor_violations(r, {kGiven}, std::nullopt);
  ASSERT_EQ(run_rule.size(), 1u);
  EXPECT_EQ(run_rule[0], "launched time_work on a stream other than the one it was given");
  EXPECT_TRUE(monitor_violations(r, {kGiven, kLegacy}, std::nullopt).empty());
}

TEST(MonitorFindings, AllowedDefaultStreamDoesNotAllowAnyStream) {
  MonitorReport r;
  r.kernels = {kernel("side", kOther)};
  EXPECT_EQ(monitor_violations(r, {kGiven, kLegacy}, std::nullopt).size(), 1u);
}

TEST(MonitorFindings, OwnKernelsAreNoFindingOtherThreadsAlwaysAre) {
  MonitorReport r;
  r.kernels = {kernel("l2_flush", kOther, false)};
  EXPECT_TRUE(monitor_violations(r, {kGiven}, std::nullopt).empty());
  MonitoredKernel threaded = kernel("gemm", kGiven, false);
  threaded.from_other_thread = true;
  r.kernels.push_back(threaded);
  const auto findings = monitor_violations(r, {kGiven, kLegacy}, std::nullopt);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0], "launched gemm from a host thread it started");
}

TEST(MonitorFindings, LibraryKernelOnAnAllowedStreamIsAFinding) {
  MonitorReport r;
  r.kernels = {kernel("sm90_xmma_gemm", kLegacy), kernel("sm90_xmma_gemm", kLegacy)};
  r.forbidden_api_calls = {"cudaMalloc x1"};
  const auto findings = monitor_violations(r, {kGiven, kLegacy}, std::set<std::string>{"gemm"});
  ASSERT_EQ(findings.size(), 2u);  // one per distinct text
  EXPECT_EQ(findings[0], "called cudaMalloc x1, which the ABI forbids");
  EXPECT_EQ(findings[1],
            "launched sm90_xmma_gemm, a kernel its own code does not define (library code)");
}

TEST(MonitorFindings, AModuleOutsideItsOwnDeviceCodeIsAFinding) {
  MonitorReport r;
  r.kernels = {kernel("gemm", kGiven)};
  r.foreign_modules = {4536};
  const auto findings = monitor_violations(r, {kGiven}, std::set<std::string>{"gemm"});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0],
            "loaded a module of 4536 bytes that its own compiled device code does not hold (code "
            "no static listing shows)");
}

}  // namespace
}  // namespace ptxb
