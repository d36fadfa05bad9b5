// Elapsed wall time for stage and phase records, on the monotonic clock.
#pragma once

#include <chrono>

namespace ptxb {

/// Seconds from `start` to now (std::chrono::steady_clock).
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace ptxb
