// The block-wide fp64 reduction of the GPU references (gpu_reference_attention.cu,
// gpu_reference_paged.cu): blocks of exactly kThreads threads, every thread calling it.
#pragma once

namespace ptxb {

// Sum (or maximum) of `v` over the block of kThreads threads; every thread gets the result.
template <int kThreads>
__device__ double block_reduce(double v, bool take_max) {
  __shared__ double partial[kThreads / 32];
  for (int o = 16; o > 0; o >>= 1) {
    const double w = __shfl_xor_sync(0xffffffffu, v, o);
    v = take_max ? fmax(v, w) : v + w;
  }
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  v = partial[0];
  for (int w = 1; w < kThreads / 32; ++w) v = take_max ? fmax(v, partial[w]) : v + partial[w];
  __syncthreads();  // partial is reused by the next reduction
  return v;
}

}  // namespace ptxb
