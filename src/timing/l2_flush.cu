#include <algorithm>

#include "cuda/cuda_check.hpp"
#include "timing/l2_flush.hpp"

namespace ptxb {
namespace {

constexpr int kFlushBlocks = 132 * 4;  // NOTE: fixed, so that every flush executes the same SASS
constexpr int kFlushThreads = 512;

__global__ void flush_kernel(int4* buf, int64_t n, int salt) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    buf[i] = make_int4(salt, salt, salt, salt);
}

}  // namespace

L2Flusher::L2Flusher() {
  int device = 0, l2_bytes = 0;
  PTXB_CHECK_CUDA(cudaGetDevice(&device));
  PTXB_CHECK_CUDA(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  buf_ = DeviceBuffer(std::max<size_t>(2 * size_t(l2_bytes), 1 << 20));
}

void L2Flusher::flush(cudaStream_t stream) {
  const int64_t n = static_cast<int64_t>(buf_.bytes() / sizeof(int4));
  flush_kernel<<<kFlushBlocks, kFlushThreads, 0, stream>>>(buf_.as<int4>(), n, ++salt_);
  PTXB_CHECK_CUDA(cudaGetLastError());
}

}  // namespace ptxb
