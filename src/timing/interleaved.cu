#include <algorithm>
#include <chrono>

#include "core/clock.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "timing/interleaved.hpp"
#include "timing/l2_flush.hpp"
#include "timing/launch_gate.hpp"
#include "timing/stats.hpp"

namespace ptxb {

namespace {

int rounds_for(int calls, int per_round) { return (calls + per_round - 1) / per_round; }

}  // namespace

TimingSamples time_interleaved(const std::vector<TimedCall>& calls, const TimingOptions& options,
                               cudaStream_t stream) {
  TimingSamples out;
  out.us.assign(calls.size(), {});
  const int per_round = std::max(1, options.calls_per_sample);
  L2Flusher flusher;
  LaunchGate gate;
  auto invoke = [&](size_t i, int k) {
    const int status = calls[i].call(stream, k);
    if (status != 0 && out.failed_status == 0) {
      out.failed_status = status;
      out.failed_name = calls[i].name;
    }
  };
  for (int w = 0; w < rounds_for(options.warmup, per_round); ++w) {
    for (size_t i = 0; i < calls.size(); ++i) {
      if (calls[i].enter) calls[i].enter();
      for (int k = 0; k < per_round; ++k) invoke(i, k);
      if (calls[i].leave) calls[i].leave(0);
    }
  }
  PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
  if (out.failed_status != 0) return out;

  // starts[i][k], ends[i][k], host_us[i][k]: implementation i's call k in the current round.
  std::vector<std::vector<Event>> starts(calls.size()), ends(calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    starts[i] = std::vector<Event>(per_round);
    ends[i] = std::vector<Event>(per_round);
  }
  // block_starts[i], block_ends[i]: before implementation i's first gate and after its last end
  // event in the current round (TimingOptions::on_part).
  std::vector<Event> block_starts(calls.size()), block_ends(calls.size());
  std::vector<std::vector<double>> host_us(calls.size(), std::vector<double>(per_round, 0.0));
  auto part = [&](const char* name, double seconds) {
    if (options.on_part) options.on_part(name, seconds);
  };
  out.host_bound.assign(calls.size(), 0);
  double timed_us = 0;
  const int coarse_rounds = rounds_for(options.coarse_after, per_round);
  RoundRule rule;
  rule.min_rounds = rounds_for(options.samples, per_round);
  rule.max_rounds = rounds_for(options.max_samples, per_round);
  rule.min_total_us = options.min_total_us;
  // A noisy speedup takes more rounds than the device-time rule gives, within a cap of its own.
  rule.max_speedup_halfwidth = options.max_speedup_halfwidth;
  rule.noisy_cap_us = options.noisy_cap_us;
  rule.noisy_max_rounds = options.noisy_max_samples > 0
                              ? rounds_for(options.noisy_max_samples, per_round)
                              : rule.max_rounds;
  rule.whole_pairs = options.whole_pairs;
  for (int s = 0; another_round(rule, timed_us, out.us); ++s) {
    // NOTE: lines a call marked persisting would stay in L2 for the next one; the candidate is
    // forbidden to mark any (docs/threat-model.md), and this makes sure none survive a round.
    // Best effort: where the driver refuses persisting L2 (inside the sandbox on the H200) no one
    // could have set it, and the refusal must not stay behind as a "last error".
    const auto reset_start = std::chrono::steady_clock::now();
    if (cudaCtxResetPersistingL2Cache() != cudaSuccess) (void)cudaGetLastError();
    part("l2_reset", seconds_since(reset_start));
    if (options.before_sample) options.before_sample(s);
    for (size_t j = 0; j < calls.size(); ++j) {
      const size_t i = (s % 2 == 0) ? j : calls.size() - 1 - j;  // alternate the order
      if (calls[i].enter) calls[i].enter();
      const auto enqueue_start = std::chrono::steady_clock::now();
      block_starts[i].record(stream);
      for (int k = 0; k < per_round; ++k) {
        // NOTE: the gate opens only once the end event is enqueued, so no host work of the call
        // (nor of the flush) can leave the GPU idle inside the events; enter and leave stay
        // outside it (a counter range's push and pop take milliseconds of host time). The
        // call's own host time is measured beside it (TimedCall::host_time_counts).
        gate.hold(stream);
        if (options.flush_l2) flusher.flush(stream);
        starts[i][k].record(stream);
        const auto host_start = std::chrono::steady_clock::now();
        invoke(i, k);
        host_us[i][k] =
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - host_start)
                .count();
        ends[i][k].record(stream);
        gate.release();
      }
      block_ends[i].record(stream);
      part("enqueue", seconds_since(enqueue_start));
      if (calls[i].leave) calls[i].leave(options.flush_l2 ? per_round : 0);
    }
    const auto sync_start = std::chrono::steady_clock::now();
    PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
    part("sync", seconds_since(sync_start));
    out.gate_expired = gate.expired();
    double block_ms = 0, call_ms = 0;
    for (size_t i = 0; i < calls.size(); ++i) {
      block_ms += block_ends[i].elapsed_ms_since(block_starts[i]);
      double sum_us = 0;
      for (int k = 0; k < per_round; ++k) {
        const double device_us = 1000.0 * ends[i][k].elapsed_ms_since(starts[i][k]);
        call_ms += device_us / 1000.0;
        const bool host_bound = calls[i].host_time_counts && host_us[i][k] > device_us;
        if (host_bound) ++out.host_bound[i];
        sum_us += host_bound ? host_us[i][k] : device_us;
      }
      out.us[i].push_back(sum_us / per_round);
      timed_us += sum_us;
    }
    part("device.blocks", block_ms / 1000.0);
    part("device.calls", call_ms / 1000.0);
    if (out.failed_status != 0) return out;
    if (options.after_sample) options.after_sample(s);
    if (calls.size() == 2 &&
        coarse_enough(out.us[0], out.us[1], coarse_rounds, options.coarse_speedup)) {
      out.coarse = true;
      break;
    }
  }
  return out;
}

}  // namespace ptxb
