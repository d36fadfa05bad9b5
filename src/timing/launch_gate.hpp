// A gate that keeps a stream's queue closed while the host enqueues one timed call
// (docs/timing.md, "Device time, wherever the call sits in the round"). Without it the GPU starts
// each call as soon as its first launch arrives, and whatever host work the call does between
// launches (a library's execute path, a candidate's tensor-map encoding) is timed whenever it
// outlasts the L2 flush that precedes the call: measured on the H200, cuDNN's backward at B=2 H=8
// S=1000 D=128 took 64 µs when it ran second in a round and 76-106 µs when it ran first, after the
// stream had drained.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace ptxb {

class LaunchGate {
 public:
  /// Holds of more than about this many SM cycles (20 ms at 2 GHz) end on their own: the host did
  /// not release in time (a call that synchronizes, an exception between hold and release).
  static constexpr uint32_t kHoldLimitCycles = 40'000'000;

  /// Allocates two words of mapped, pinned host memory. Throws ApiError.
  LaunchGate();
  ~LaunchGate();
  LaunchGate(const LaunchGate&) = delete;
  LaunchGate& operator=(const LaunchGate&) = delete;

  /// Enqueues on `stream` a one-thread kernel that waits until release() (or the limit), so that
  /// work enqueued after it starts only once the host has enqueued all of it. The kernel adds the
  /// same counts to the hardware counters compared call by call however long it waits (no tensor,
  /// FMA-pipe or fp64 instruction in its loop); CallCounters::check measures them with the flush
  /// that follows it, and they are subtracted together. Throws ApiError.
  void hold(cudaStream_t stream);
  /// Opens the gate last held and every earlier hold still waiting (their calls are enqueued
  /// too). Host memory write only: never blocks, never fails.
  void release();
  /// Holds so far that ended by the limit instead of a release. Read after the stream synchronized.
  int expired() const;

 private:
  uint32_t* words_ = nullptr;  // [0] the generation released last, [1] holds expired
  uint32_t* device_words_ = nullptr;
  uint32_t generation_ = 0;
};

}  // namespace ptxb
