// Interleaved device timing of several implementations on one stream (docs/timing.md).
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

namespace ptxb {

/// One thing to time: `call` enqueues the whole operation on the given stream and returns a
/// status (0 = ok). It is called between a start and an end event on that stream, with the call's
/// index within its sample (0 .. TimingOptions::calls_per_sample - 1): each index its own inputs.
struct TimedCall {
  std::string name;
  std::function<int(cudaStream_t, int call)> call;
  /// Optional, outside the timed events: `enter` runs before the first L2 flush of a sample's
  /// calls (or before a warm-up sample), `leave` after the last call's end event, told how many
  /// L2 flushes, each behind a launch gate, came in between (one per call when flushing, else 0).
  /// The timing process brackets candidate samples with hardware-counter ranges this way.
  std::function<void()> enter = nullptr;
  std::function<void(int flushes)> leave = nullptr;
  /// The sample is the larger of the call's device time and its host time (entering to leaving
  /// `call`). Set for candidate code, whose host code could do the work while the launch gate
  /// holds the stream; a library's host time is API overhead, not its kernels', and stays out.
  bool host_time_counts = false;
};

struct TimingOptions {
  /// Calls of each implementation per round, one after the other, each behind its own launch gate
  /// and L2 flush and between its own events; the round's sample is their mean. The counts below
  /// (warmup, samples, max_samples, coarse_after) are calls, rounded up to whole rounds.
  int calls_per_sample = 1;
  int warmup = 10;   ///< untimed calls of each implementation before sampling
  int samples = 50;  ///< timed calls at least (each implementation's)
  /// More rounds, up to `max_samples` calls, until the timed calls add up to this much device time
  /// (microseconds, all implementations together); 0 = exactly `samples` calls.
  double min_total_us = 0;
  int max_samples = 0;
  /// With two implementations (candidate first, library second): more rounds, up to
  /// `max_samples` calls, while speedup_too_uncertain(.., `max_speedup_halfwidth`) and the timed
  /// calls stay under `noisy_cap_us` (timing/stats.hpp). 0: off.
  double max_speedup_halfwidth = 0;
  double noisy_cap_us = 0;
  /// The noisy-shape rule's own cap on calls (0: `max_samples`), where the device-time rule
  /// keeps a lower one (the sustained regime).
  int noisy_max_samples = 0;
  /// Rounds come in whole pairs, one in each order (the order alternates round by round), and
  /// the noisy-shape rule reads the order-balanced pair ratios (timing/stats.hpp,
  /// balanced_pair_ratios): for the sustained regime, whose back-to-back batches heat the GPU
  /// for the side that runs second.
  bool whole_pairs = false;
  bool flush_l2 = true;
  /// Slow candidates (timing/stats.hpp, coarse_enough): with two calls (candidate first, library
  /// second), stop after `coarse_after` calls (0: never) when the paired speedup is below
  /// `coarse_speedup`.
  int coarse_after = 0;
  double coarse_speedup = 0.1;
  /// Enqueued before each sample round (sample = 0..samples-1) on the stream, outside the
  /// timed events: e.g. fresh input values. Not called for warm-up rounds.
  std::function<void(int sample)> before_sample;
  /// Called after each sample round once the stream is synchronized, outside the timed events:
  /// e.g. checking the round's outputs. Not called for warm-up rounds.
  std::function<void(int sample)> after_sample;
  /// Optional: told where a sample round's time went, once per round and part. Host wall time:
  /// "l2_reset" (the persisting-lines reset), "enqueue" (gates, flushes, events and the calls
  /// themselves, every side; not enter and leave), "sync" (waiting for the round's GPU work after
  /// the last side). Device time, from events, overlapping the host parts: "device.blocks" (each
  /// side's calls from before its first gate to its last end event, summed over sides) and
  /// "device.calls" (the timed calls alone), so blocks less calls is what the gates and flushes
  /// cost the GPU.
  std::function<void(const char* part, double seconds)> on_part;
};

struct TimingSamples {
  std::vector<std::vector<double>> us;  ///< us[impl][round]: the round's mean call, microseconds
  int failed_status = 0;                ///< first non-zero status returned by a call, if any
  bool coarse = false;                  ///< stopped early: a slow candidate (coarse_after)
  /// Timed calls whose launch gate ended by its limit, not when the host had enqueued the call
  /// (timing/launch_gate.hpp): the GPU may have waited for the host inside their events. 0
  /// normally.
  int gate_expired = 0;
  /// host_bound[impl]: calls of an implementation with host_time_counts whose host time exceeded
  /// their device time; such a call counts with its host time.
  std::vector<int> host_bound;
  std::string failed_name;
};

/// Times every implementation in rounds (see TimingOptions for how many): in round i each
/// implementation makes its calls_per_sample calls, the order of implementations alternating
/// between rounds, each call preceded by an L2 flush (a write over a buffer of twice the L2 size)
/// so that no call finds its inputs in L2. Events bracket only the call itself: enter, then per
/// call gate hold, flush, start event, call, end event, gate release, then leave (the gate keeps
/// the GPU waiting until the call is enqueued, so a call's time is device time whatever its place
/// in the round); for a call with host_time_counts, the larger of that and the call's host time,
/// so that its host code cannot work unseen behind the gate. Every round starts with the
/// persisting-L2 lines reset (cudaCtxResetPersistingL2Cache, best effort). Throws ApiError on
/// CUDA failures (a faulting candidate shows up here).
TimingSamples time_interleaved(const std::vector<TimedCall>& calls, const TimingOptions& options,
                               cudaStream_t stream);

}  // namespace ptxb
