// Helpers of the GEMM probe harnesses (gemm_probe.cu, grouped_probe.cu): an exit on a failing
// CUDA or library call, tensor descriptors, random bf16 inputs, a spin kernel that holds the
// stream while the host enqueues a call, and the median of samples.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

#define CHECK(call)                                                                         \
  do {                                                                                      \
    if (auto status_ = (call); status_ != 0) {                                              \
      std::fprintf(stderr, "%s failed (%d) at line %d\n", #call, static_cast<int>(status_), \
                   __LINE__);                                                               \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

ptxb_tensor_desc row_major(int64_t rows, int64_t cols) {
  ptxb_tensor_desc t{};
  t.dtype = PTXB_BF16;
  t.rank = 2;
  t.shape[0] = rows;
  t.shape[1] = cols;
  t.strides[0] = cols;
  t.strides[1] = 1;
  return t;
}

void* random_bf16(int64_t count, unsigned seed) {
  std::vector<__nv_bfloat16> host(static_cast<size_t>(count));
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.f, 1.f);
  for (auto& x : host) x = __float2bfloat16_rn(dist(gen));
  void* d = nullptr;
  CHECK(cudaMalloc(&d, host.size() * 2));
  CHECK(cudaMemcpy(d, host.data(), host.size() * 2, cudaMemcpyHostToDevice));
  return d;
}

// Keeps the stream busy for about `cycles` clocks, so that a call's host side (tensor maps,
// cuBLASLt's checks) is enqueued before the GPU reaches its start event.
__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace
