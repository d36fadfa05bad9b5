#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>

#include "cuda/cuda_check.hpp"
#include "verify/fp64_buffers.hpp"

namespace ptxb {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ double to_double(__nv_bfloat16 v) {
  return static_cast<double>(__bfloat162float(v));
}
__device__ __forceinline__ double to_double(__half v) {
  return static_cast<double>(__half2float(v));
}
__device__ __forceinline__ double to_double(float v) { return static_cast<double>(v); }
__device__ __forceinline__ double to_double(__nv_fp8_e4m3 v) {
  return static_cast<double>(static_cast<float>(v));
}

template <class T>
__global__ void widen_kernel(const T* src, double* dst, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x)
    dst[i] = to_double(src[i]);
}

template <class T>
void launch_widen(const void* src, double* dst, int64_t count, cudaStream_t stream);

__global__ void narrow_kernel(const double* src, float* dst, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x)
    dst[i] = static_cast<float>(src[i]);
}

unsigned grid_for(int64_t n) {
  return static_cast<unsigned>(std::clamp<int64_t>((n + kThreads - 1) / kThreads, 1, 65535));
}

template <class T>
void launch_widen(const void* src, double* dst, int64_t count, cudaStream_t stream) {
  widen_kernel<<<grid_for(count), kThreads, 0, stream>>>(static_cast<const T*>(src), dst, count);
  PTXB_CHECK_CUDA(cudaGetLastError());
}

}  // namespace

DeviceBuffer widened(const void* src, DType dtype, int64_t count, cudaStream_t stream) {
  DeviceBuffer out(static_cast<size_t>(count) * sizeof(double));
  switch (dtype) {
    case DType::kBF16:
      launch_widen<__nv_bfloat16>(src, out.as<double>(), count, stream);
      break;
    case DType::kF16:
      launch_widen<__half>(src, out.as<double>(), count, stream);
      break;
    case DType::kF32:
      launch_widen<float>(src, out.as<double>(), count, stream);
      break;
    case DType::kF8E4M3:
      launch_widen<__nv_fp8_e4m3>(src, out.as<double>(), count, stream);
      break;
    default:
      PTXB_ASSERT(false, "widened: unsupported dtype " + std::string(to_string(dtype)));
  }
  return out;
}

DeviceBuffer widened_bf16(const void* src, int64_t count, cudaStream_t stream) {
  return widened(src, DType::kBF16, count, stream);
}

void narrow_to_f32(const double* src, float* dst, int64_t count, cudaStream_t stream) {
  narrow_kernel<<<grid_for(count), kThreads, 0, stream>>>(src, dst, count);
  PTXB_CHECK_CUDA(cudaGetLastError());
}

}  // namespace ptxb
