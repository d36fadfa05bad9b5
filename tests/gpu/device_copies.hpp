// Device-to-host copies for the GPU tests, as floats or as stored.
// NOTE: the streams are non-blocking, so plain cudaMemcpy does not wait for them: each copy
// synchronizes the device first.
#pragma once

#include <cuda_bf16.h>

#include <cstdint>
#include <vector>

#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"

namespace ptxb::testing {

/// The first `count` bf16 values of `buf`.
inline std::vector<float> to_host_bf16(const DeviceBuffer& buf, int64_t count) {
  PTXB_CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<__nv_bfloat16> raw(static_cast<size_t>(count));
  PTXB_CHECK_CUDA(cudaMemcpy(raw.data(), buf.data(), raw.size() * 2, cudaMemcpyDeviceToHost));
  std::vector<float> out(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) out[i] = __bfloat162float(raw[i]);
  return out;
}

/// The first `count` values of type T at device address `device`.
template <typename T>
std::vector<T> to_host(const void* device, int64_t count) {
  PTXB_CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<T> out(static_cast<size_t>(count));
  PTXB_CHECK_CUDA(cudaMemcpy(out.data(), device, out.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return out;
}

/// The first `count` fp32 values of `buf`.
inline std::vector<float> to_host_f32(const DeviceBuffer& buf, int64_t count) {
  PTXB_CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> out(static_cast<size_t>(count));
  PTXB_CHECK_CUDA(cudaMemcpy(out.data(), buf.data(), out.size() * 4, cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace ptxb::testing
