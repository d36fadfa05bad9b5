// What one profiled kernel costs under Nsight Compute with the evidence stage's metrics
// (docs/timing.md, "Judging time"): host seconds of each profiler range holding one kernel, for
// the first profiled kernel of the process, later ones of the same and of a new function, tiny
// and 8 ms long. Build: nvcc -O2 -arch=sm_90a -o ncu_profile_cost ncu_profile_cost.cu; run it
// plain and under ncu (bench/probes/ncu_profile_cost.sh).
#include <cuda_profiler_api.h>

#include <cstdio>

#include "chain_kernels.cuh"

__global__ void tiny(float* p) { p[threadIdx.x] += 1.0f; }

namespace {

// Host seconds of one profiler range around `launch`, printed under `what`.
template <typename Launch>
void profiled(const char* what, Launch launch) {
  cudaDeviceSynchronize();
  const double begin = seconds();
  cudaProfilerStart();
  launch();
  cudaDeviceSynchronize();
  cudaProfilerStop();
  std::fprintf(stderr, "%-28s %.3f s\n", what, seconds() - begin);
}

}  // namespace

int main() {
  float* p = nullptr;
  if (cudaMalloc(&p, size_t(132) * 1024 * 4 * 64) != cudaSuccess) return 1;
  std::fprintf(stderr, "init %.3f\n", seconds());
  constexpr int kBig = 132 * 64, kLoop = 100000;  // about 8 ms on the H200
  profiled("tiny #1", [&] { tiny<<<1, 32>>>(p); });
  profiled("tiny #2", [&] { tiny<<<1, 32>>>(p); });
  profiled("tiny #3", [&] { tiny<<<1, 32>>>(p); });
  profiled("chain_a #1 small", [&] { chain_a<<<132, 256>>>(p, 1000); });
  profiled("chain_a #2 big", [&] { chain_a<<<kBig, 256>>>(p, kLoop); });
  profiled("chain_a #3 big", [&] { chain_a<<<kBig, 256>>>(p, kLoop); });
  profiled("chain_b #1 big", [&] { chain_b<<<kBig, 256>>>(p, kLoop); });
  const double begin = seconds();
  for (int i = 0; i < 32; ++i) chain_a<<<kBig, 256>>>(p, kLoop);
  cudaDeviceSynchronize();
  std::fprintf(stderr, "32 unprofiled chain_a big %.3f s\n", seconds() - begin);
  std::fprintf(stderr, "total %.3f\n", seconds());
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
