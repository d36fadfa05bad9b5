// The evidence control and marker kernels run to completion without a CUDA error, live and not
// live, repeatedly (they run in every evidence job; a hang or fault there would stall every run).
// Whether ncu counts them as expected is checked in every evidence run (docs/evidence.md).
#include <gtest/gtest.h>

#include "controls/evidence_controls.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"

namespace ptxb {
namespace {

TEST(EvidenceControls, LiveAndDeadLaunchesComplete) {
  Stream s;
  for (int round = 0; round < 3; ++round) {
    for (const bool live : {true, false}) {
      ASSERT_EQ(launch_evidence_control(live, s.get()), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(s.get()), cudaSuccess) << "live=" << live;
    }
  }
  EXPECT_DOUBLE_EQ(evidence_control_mma_flops().at("HGMMA"), 2.0 * 64 * 8 * 16);
  EXPECT_DOUBLE_EQ(evidence_control_mma_flops().at("QGMMA"), 2.0 * 64 * 8 * 32);
}

TEST(EvidenceControls, MarkerTakesNoncesInRangeOnly) {
  Stream s;
  EXPECT_EQ(launch_evidence_marker(1, s.get()), cudaSuccess);
  EXPECT_EQ(launch_evidence_marker(65535, s.get()), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(s.get()), cudaSuccess);
  EXPECT_NE(launch_evidence_marker(0, s.get()), cudaSuccess);
  EXPECT_NE(launch_evidence_marker(65536, s.get()), cudaSuccess);
}

}  // namespace
}  // namespace ptxb
