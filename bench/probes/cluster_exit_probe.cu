// Does a remote mbarrier arrive on a cluster partner that has already exited fault on this GPU,
// and how much does Nsight Compute's instrumentation slow a loop of dependent IMADs?
// (tests/adversarial/timing/cluster_race.cu relies on both.)
// Build: nvcc -std=c++20 -arch=sm_90a -o cluster_exit_probe bench/probes/cluster_exit_probe.cu
// Usage: cluster_exit_probe exit DELAY_US   CTA 1 exits at once, CTA 0 arrives DELAY_US later
//        cluster_exit_probe work N          CTA 0 times N dependent IMADs (run it under ncu too)
// Prints one line: the mode, its parameter, the CUDA status after the launch, and for `work` the
// cycles CTA 0's loop took.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

namespace {

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ uint64_t globaltimer_ns() {
  uint64_t t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// mode 0: CTA 1 exits at once, CTA 0 waits `param` microseconds, then arrives on CTA 1's barrier.
// mode 1: CTA 1 exits at once, CTA 0 runs `param` dependent IMADs (timed in cycles), then arrives.
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(32)
    exit_then_arrive(int mode, long long param, long long* cycles) {
  __shared__ alignas(8) uint64_t bar;
  uint32_t rank = 0;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(&bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
  if (threadIdx.x != 0 || rank == 1) return;
  unsigned x = 1;
  if (mode == 0) {
    const uint64_t until = globaltimer_ns() + 1000ull * static_cast<uint64_t>(param);
    while (globaltimer_ns() < until) {
    }
  } else {
    long long start = 0, end = 0;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(start)::"memory");
    x = static_cast<unsigned>(param) ^ static_cast<unsigned>(start >> 62);
#pragma unroll 1
    for (long long i = 0; i < param; ++i) x = x * 2654435761u + 1u;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(end) : "r"(x) : "memory");
    *cycles = end - start;
  }
  uint32_t remote = 0;
  asm volatile("mapa.shared::cluster.u32 %0, %1, 1;" : "=r"(remote) : "r"(smem_u32(&bar)));
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote), "r"(x)
               : "memory");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || (std::strcmp(argv[1], "exit") != 0 && std::strcmp(argv[1], "work") != 0)) {
    std::fprintf(stderr, "usage: %s exit DELAY_US | work N\n", argv[0]);
    return 2;
  }
  const int mode = std::strcmp(argv[1], "exit") == 0 ? 0 : 1;
  const long long param = std::atoll(argv[2]);
  long long* cycles = nullptr;
  if (cudaMalloc(&cycles, sizeof *cycles) != cudaSuccess) return 3;
  cudaMemset(cycles, 0, sizeof *cycles);
  exit_then_arrive<<<2, 32>>>(mode, param, cycles);
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t done = cudaDeviceSynchronize();
  long long host_cycles = -1;
  if (done == cudaSuccess)
    cudaMemcpy(&host_cycles, cycles, sizeof host_cycles, cudaMemcpyDeviceToHost);
  std::printf("%s %lld launch=%s sync=%s cycles=%lld\n", argv[1], param, cudaGetErrorName(launch),
              cudaGetErrorName(done), host_cycles);
  return done == cudaSuccess ? 0 : 1;
}
