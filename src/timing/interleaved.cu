#include <algorithm>

#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "timing/interleaved.hpp"
#include "timing/stats.hpp"

namespace ptxb {
namespace {

__global__ void flush_kernel(int4* buf, int64_t n, int salt) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    buf[i] = make_int4(salt, salt, salt, salt);
}

class L2Flusher {
 public:
  L2Flusher() {
    int device = 0, l2_bytes = 0;
    PTXB_CHECK_CUDA(cudaGetDevice(&device));
    PTXB_CHECK_CUDA(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    buf_ = DeviceBuffer(std::max<size_t>(2 * size_t(l2_bytes), 1 << 20));
  }
  void flush(cudaStream_t stream) {
    const int64_t n = static_cast<int64_t>(buf_.bytes() / sizeof(int4));
    flush_kernel<<<132 * 4, 512, 0, stream>>>(buf_.as<int4>(), n, ++salt_);
    PTXB_CHECK_CUDA(cudaGetLastError());
  }

 private:
  DeviceBuffer buf_;
  int salt_ = 0;
};

}  // namespace

TimingSamples time_interleaved(const std::vector<TimedCall>& calls, const TimingOptions& options,
                               cudaStream_t stream) {
  TimingSamples out;
  out.us.assign(calls.size(), {});
  L2Flusher flusher;
  auto invoke = [&](size_t i) {
    int status = calls[i].call(stream);
    if (status != 0 && out.failed_status == 0) {
      out.failed_status = status;
      out.failed_name = calls[i].name;
    }
  };
  for (int w = 0; w < options.warmup; ++w)
    for (size_t i = 0; i < calls.size(); ++i) invoke(i);
  PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
  if (out.failed_status != 0) return out;

  std::vector<Event> starts(calls.size()), ends(calls.size());
  double timed_us = 0;
  for (int s = 0;
       want_more_samples(s, timed_us, options.samples, options.min_total_us, options.max_samples);
       ++s) {
    if (options.before_sample) options.before_sample(s);
    for (size_t j = 0; j < calls.size(); ++j) {
      const size_t i = (s % 2 == 0) ? j : calls.size() - 1 - j;  // alternate the order
      if (options.flush_l2) flusher.flush(stream);
      starts[i].record(stream);
      invoke(i);
      ends[i].record(stream);
    }
    PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
    for (size_t i = 0; i < calls.size(); ++i) {
      out.us[i].push_back(1000.0 * ends[i].elapsed_ms_since(starts[i]));
      timed_us += out.us[i].back();
    }
    if (out.failed_status != 0) return out;
  }
  return out;
}

}  // namespace ptxb
