// The launch gate of the timed calls (timing/launch_gate.hpp): it holds the stream until the host
// releases it or its limit passes, host time shorter than a call's device work stays out of its
// sample, a candidate's longer host time is its sample, and it adds the same hardware counts to a
// counter range however long it holds.
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
#include "timing/stats.hpp"
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

// A round of many short calls: the host holds, enqueues and releases each call long before the
// GPU reaches its hold, so a hold runs after later releases. It must open at once, not wait for its
// limit (it did, up to 59c0e20: the cuBLASLt algorithm trials, 8 calls a round, took 15 ms a call).
TEST(LaunchGate, AHoldReachedAfterLaterReleasesOpensAtOnce) {
  Stream s;
  DeviceBuffer buf(size_t{64} << 20);
  LaunchGate gate;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 64; ++i) {
    gate.hold(s.get());
    PTXB_CHECK_CUDA(cudaMemsetAsync(buf.data(), i, buf.bytes(), s.get()));
    gate.release();
  }
  s.synchronize();
  EXPECT_EQ(gate.expired(), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(100))
      << "64 memsets of 64 MiB take about 2 ms; holds waited for their limit";
}

// Host time spent by a call before it launches anything: 100 µs of spinning, longer than the L2
// flush that covered it before the gate. Without the gate the GPU idled inside the events for the
// difference (~70 µs) whenever the stream had drained; with it the sample is the device time of a
// memset of 1 GiB (over 200 µs at the H200's 4.8 TB/s) whichever place the call has, as for the
// same memset without the spin.
TEST(LaunchGate, HostTimeShorterThanTheWorkIsNotTimed) {
  Stream s;
  DeviceBuffer big(size_t{1} << 30);
  auto spin = [](std::chrono::microseconds d) {
    const auto until = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < until) {
    }
  };
  TimingOptions options;
  options.warmup = 2;
  options.samples = 10;
  TimedCall spun_call{
      "spin-then-memset", [&](cudaStream_t stream, int) {
        spin(std::chrono::microseconds(100));
        return static_cast<int>(cudaMemsetAsync(big.data(), 1, big.bytes(), stream));
      }};
  spun_call.host_time_counts = true;  // as a candidate's: its 100 µs stay below the device time
  const TimedCall plain_call{
      "memset", [&](cudaStream_t stream, int) {
        return static_cast<int>(cudaMemsetAsync(big.data(), 2, big.bytes(), stream));
      }};
  const TimingSamples out = time_interleaved({spun_call, plain_call}, options, s.get());
  ASSERT_EQ(out.failed_status, 0);
  const double spun = median_ci(out.us[0]).median, plain = median_ci(out.us[1]).median;
  EXPECT_GT(plain, 150.0) << "the memset must outlast the spin for this test to mean anything";
  EXPECT_LT(spun, 1.1 * plain) << "host time before the first launch was timed";
  EXPECT_EQ(out.gate_expired, 0);
}

// Host time longer than the device work is the sample of a call marked host_time_counts (the
// candidate's): its host code cannot work unseen while the gate holds the stream. Unmarked (the
// library's), the same call's sample is its device time.
TEST(LaunchGate, HostTimeLongerThanTheWorkIsTheCandidatesSample) {
  Stream s;
  DeviceBuffer buf(1 << 16);
  auto host_heavy = [&](cudaStream_t stream, int) {
    std::this_thread::sleep_for(milliseconds(2));
    return static_cast<int>(cudaMemsetAsync(buf.data(), 0, buf.bytes(), stream));
  };
  TimedCall candidate{"candidate", host_heavy}, library{"library", host_heavy};
  candidate.host_time_counts = true;
  TimingOptions options;
  options.warmup = 1;
  options.samples = 4;
  const TimingSamples out = time_interleaved({candidate, library}, options, s.get());
  ASSERT_EQ(out.failed_status, 0);
  ASSERT_EQ(out.us.size(), 2u);
  for (const double us : out.us[0]) EXPECT_GE(us, 2000.0);
  for (const double us : out.us[1]) EXPECT_LT(us, 500.0);
  ASSERT_EQ(out.host_bound.size(), 2u);
  EXPECT_EQ(out.host_bound[0], 4);
  EXPECT_EQ(out.host_bound[1], 0);
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
