// The evidence control and marker kernels run to completion without a CUDA error, live and not
// live, repeatedly (they run in every evidence job; a hang or fault there would stall every run).
// Whether ncu counts them as expected is checked in every evidence run (docs/evidence.md); the
// timing worker's range profiler counts them with the catalog's counters here.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "controls/evidence_controls.hpp"
#include "controls/evidence_names.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "tasks/catalog.hpp"
#include "worker/call_counters.hpp"
#include "worker/cupti_library.hpp"
#include "worker/range_profiler.hpp"

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

// The catalog's sm_90a counters fit one range-profiler pass on this GPU, and the controls the
// timing worker checks them on count exactly: the live evidence control's one bf16 and one e4m3
// wgmma as their FLOPs on the tensor-path op counters, its TMA load and bulk copy as 2560 bytes.
TEST(EvidenceControls, TheCatalogCountersCountTheControlsExactly) {
  const Catalog catalog =
      load_catalog(std::filesystem::path(PTXB_SOURCE_DIR) / "tasks" / "catalog");
  const std::vector<CounterSpec> specs = catalog.counters_for("sm_90a");
  Stream s;
  std::string why_not;
  auto counters = CallCounters::create(specs, 0, &why_not);
  ASSERT_TRUE(counters) << why_not;
  const nlohmann::json check = counters->check(s.get());
  ASSERT_TRUE(check["ok"].get<bool>()) << check.dump();
  const auto& metrics = check["metrics"];
  auto live = [&](const char* metric) {
    for (size_t i = 0; i < metrics.size(); ++i)
      if (metrics[i] == metric) return check["ranges"][0][i].get<double>();
    return -1.0;
  };
  EXPECT_EQ(live(kBf16TensorOpsMetric), evidence_control_mma_flops().at("HGMMA"));
  EXPECT_EQ(live(kFp8TensorOpsMetric), evidence_control_mma_flops().at("QGMMA"));
  EXPECT_EQ(live(kTmaLoadBytesMetric), kEvidenceControlTmaLoadBytes);
}

// The hardware counters among the other-read metrics (the smsp__sass_ one needs ncu's
// instrumented pass; every evidence run checks all six under ncu) see the control's loads of
// their kind: at least its bytes live, none dead; together also its ld.global.nc loads.
TEST(EvidenceControls, TheOtherReadCountersSeeEveryKindOfLoadOfTheControl) {
  Stream s;
  double sum = 0, floors = kEvidenceControlNonCoherentReadBytes;
  for (const ControlReadBytes& r : kEvidenceControlOtherReads) {
    if (std::string(r.metric).find("__sass_") != std::string::npos) continue;
    std::string why_not;
    auto profiler = RangeProfiler::create(current_cuda_context(), 0, {r.metric}, 4, &why_not);
    ASSERT_TRUE(profiler) << r.metric << ": " << why_not;
    profiler->reset();
    profiler->start();
    for (const bool live : {true, false}) {
      profiler->push(live ? "live" : "dead");
      ASSERT_EQ(launch_evidence_control(live, s.get()), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(s.get()), cudaSuccess);
      profiler->pop();
    }
    profiler->stop();
    const std::vector<std::vector<double>> v = profiler->decode();
    ASSERT_EQ(v.size(), 2u) << r.metric;
    EXPECT_GE(v[0][0], r.bytes) << r.metric;
    EXPECT_EQ(v[1][0], 0) << r.metric;
    sum += v[0][0];
    floors += r.bytes;
  }
  EXPECT_GE(sum, floors) << "the ld.global.nc bytes are counted by none of the metrics";
}

}  // namespace
}  // namespace ptxb
