// The launch gate of the timed calls (timing/launch_gate.hpp): it holds the stream until the host
// releases it or its limit passes, host work inside a timed call stays out of the sample, and it
// adds the same hardware counts to a counter range however long it holds.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "controls/evidence_names.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "tasks/catalog.hpp"
#include "timing/interleaved.hpp"
#include "timing/l2_flush.hpp"
#include "timing/launch_gate.hpp"
#include "worker/call_counters.hpp"

namespace ptxb {
namespace {

using std::chrono::milliseconds;

TEST(LaunchGate, HoldsTheStreamUntilReleased) {
  Stream s;
  Event before, after;
  LaunchGate gate;
  before.record(s.get());
  gate.hold(s.get());
  after.record(s.get());
  std::this_thread::sleep_for(milliseconds(3));
  gate.release();
  s.synchronize();
  EXPECT_GE(after.elapsed_ms_since(before), 2.5f);
  EXPECT_EQ(gate.expired(), 0);
}

TEST(LaunchGate, AHoldNobodyReleasesEndsByItself) {
  Stream s;
  LaunchGate gate;
  const auto start = std::chrono::steady_clock::now();
  gate.hold(s.get());
  s.synchronize();
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(1000));
  EXPECT_EQ(gate.expired(), 1);
}

// Without the gate the 2 ms the host sleeps between the start event and the memset were in the
// sample (the GPU idles inside the events): the flaw that slowed cuDNN's backward when it ran
// first.
TEST(LaunchGate, HostWorkInsideATimedCallIsNotTimed) {
  Stream s;
  DeviceBuffer buf(1 << 16);
  TimingOptions options;
  options.warmup = 1;
  options.samples = 4;
  const TimingSamples out = time_interleaved(
      {{"host-heavy",
        [&](cudaStream_t stream) {
          std::this_thread::sleep_for(milliseconds(2));
          return static_cast<int>(cudaMemsetAsync(buf.data(), 0, buf.bytes(), stream));
        }}},
      options, s.get());
  ASSERT_EQ(out.failed_status, 0);
  ASSERT_EQ(out.us.size(), 1u);
  for (const double us : out.us[0]) EXPECT_LT(us, 500.0);
  EXPECT_EQ(out.gate_expired, 0);
}

// The counts subtracted from every timed call's range (CallCounters::check: gate and flush) must
// not depend on how long the gate held: its loop has no tensor, FMA-pipe or fp64 instruction.
TEST(LaunchGate, CountsTheSameHoweverLongItHolds) {
  std::vector<CounterSpec> specs;
  for (const char* m : {kGmmaPipeMetric, kFmaPipeMetric, kFp64PipeMetric,
                        "sm__inst_executed_pipe_tensor_op_hmma.sum"})
    specs.push_back({m, "sm_90a", 0.0, ""});
  Stream s;
  std::string why_not;
  auto counters = CallCounters::create(specs, 0, &why_not);
  ASSERT_TRUE(counters) << "the timing worker counts with the range profiler: " << why_not;
  ASSERT_TRUE(counters->check(s.get())["ok"].get<bool>());
  LaunchGate gate;
  L2Flusher flusher;
  for (const int hold_ms : {0, 1, 4}) {
    counters->begin(0);
    gate.hold(s.get());
    flusher.flush(s.get());
    std::this_thread::sleep_for(milliseconds(hold_ms));
    gate.release();
    s.synchronize();
    counters->end(true);
  }
  const auto shapes = counters->collect();
  ASSERT_TRUE(counters->failure().empty()) << counters->failure();
  ASSERT_EQ(shapes.count(0), 1u);
  ASSERT_EQ(shapes.at(0).size(), 1u) << "the three ranges counted differently";
  for (const double v : shapes.at(0).front().values) EXPECT_EQ(v, 0.0);
  EXPECT_EQ(gate.expired(), 0);
}

}  // namespace
}  // namespace ptxb
