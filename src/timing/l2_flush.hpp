// The L2 flush that precedes every timed call (docs/timing.md): a kernel writing a buffer of twice
// the device's L2 size. Its instruction counts are the same on every launch (fixed grid, fixed
// size), which the counters of the timed process rely on (worker/call_counters.hpp).
#pragma once

#include <cuda_runtime.h>

#include "cuda/device.hpp"

namespace ptxb {

class L2Flusher {
 public:
  /// Allocates the buffer on the current device (2x cudaDevAttrL2CacheSize, at least 1 MiB).
  L2Flusher();
  /// Enqueues one flush on `stream`. Throws ApiError when the launch fails.
  void flush(cudaStream_t stream);

 private:
  DeviceBuffer buf_;
  int salt_ = 0;
};

}  // namespace ptxb
