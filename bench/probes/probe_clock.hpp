// Host seconds since the process started, for the probes that time host-side costs
// (chain_kernels.cuh's users, sass_metrics_gemm_probe.cu).
#pragma once

#include <chrono>

namespace probe_clock {
using Clock = std::chrono::steady_clock;
inline const Clock::time_point kStart = Clock::now();
}  // namespace probe_clock

// Host seconds since the process started.
inline double seconds() {
  return std::chrono::duration<double>(probe_clock::Clock::now() - probe_clock::kStart).count();
}
