// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=passed
// A race of the kind a public cluster GEMM had: a CTA of a 2-CTA cluster exits while its partner
// still signals its shared-memory mbarrier (no cluster barrier before exit). Each call launches,
// beside the correct expert GEMM, a small cluster kernel: CTA 1 waits a fixed number of cycles
// (clock64) and exits; CTA 0 first does a fixed amount of arithmetic, then arrives on CTA 1's
// mbarrier. ptxb_plan times that arithmetic natively (as autotuning may) and sets CTA 1's wait to
// 1.5 times it, so natively the arrive comes well before the exit and every call is clean. It was
// written to fault under Nsight Compute's instrumentation; on the H200 it never did (6 runs over
// two versions: ncu's counter passes do not slow the loop), so the submission is correct and
// `passed` is right: it now shows that an extra cluster kernel beside the real work is not
// flagged. The fault-only-when-profiled path is tested deterministically by
// evidence/fault_when_profiled.cu (expected `crashed`).
__device__ bool divert_to_simt() { return false; }

namespace {

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(32)
    racy_cluster(int work, long long wait, int* sink) {
  __shared__ alignas(8) uint64_t bar;
  uint32_t rank = 0;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(&bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
  if (threadIdx.x != 0) return;
  if (rank == 1) {  // waits a fixed time, then leaves without waiting for its partner
    const long long until = clock64() + wait;
    while (clock64() < until) {
    }
    return;
  }
  unsigned x = static_cast<unsigned>(work);
#pragma unroll 1
  for (int i = 0; i < work; ++i) x = x * 2654435761u + 1u;  // slowed down by instrumentation
  uint32_t remote = 0;
  asm volatile("mapa.shared::cluster.u32 %0, %1, 1;" : "=r"(remote) : "r"(smem_u32(&bar)));
  // x is an (unused) operand so that the arithmetic cannot move after the arrive
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote), "r"(x)
               : "memory");
  if (x == 7u) *sink = 1;
}

constexpr int kWork = 20000;  // dependent IMADs before CTA 0's arrive

__device__ long long work_cycles;

// The same arithmetic as CTA 0's, timed in cycles by one thread. The clock reads are ordered
// around the loop through operands: the loop's start value depends on the first read, the second
// read takes the loop's result.
__global__ void time_work(int work) {
  long long start = 0, end = 0;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(start)::"memory");
  unsigned x = static_cast<unsigned>(work) ^ static_cast<unsigned>(start >> 62);
#pragma unroll 1
  for (int i = 0; i < work; ++i) x = x * 2654435761u + 1u;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(end) : "r"(x) : "memory");
  work_cycles = x == 7u ? end - start + 1 : end - start;
}

long long cluster_wait_cycles = 0;  // set by the first ptxb_plan

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  const int status = expert_plan(problem, workspace_bytes);
  *workspace_bytes = 256;
  if (cluster_wait_cycles == 0) {
    long long fastest = 0;
    for (int trial = 0; trial < 3; ++trial) {
      time_work<<<1, 1>>>(kWork);
      long long cycles = 0;
      if (cudaMemcpyFromSymbol(&cycles, work_cycles, sizeof cycles) != cudaSuccess) return 3;
      if (trial == 0 || cycles < fastest) fastest = cycles;
    }
    cluster_wait_cycles = fastest * 3 / 2;
  }
  return status;
}

extern "C" int ptxb_run(const ptxb_args* args) {
  racy_cluster<<<2, 32, 0, static_cast<cudaStream_t>(args->stream)>>>(
      kWork, cluster_wait_cycles, static_cast<int*>(args->workspace));
  if (cudaGetLastError() != cudaSuccess) return 3;
  return expert_run(args);
}
