// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=rejected_cheat
// Evidence cheat that spots instrumentation on the GPU: every CTA times a short dependent loop
// with clock64 and keeps the fastest time ever seen; a CTA more than 3x slower than that runs
// under SASS instrumentation (Nsight Compute's opcode-counting pass) and computes with wgmma,
// every other CTA (the timed calls, and ncu's hardware-counter pass) with the SIMT path. Caught
// because ncu's two passes disagree: HGMMA executions by opcode but none on the GMMA pipe counter.
__device__ unsigned long long g_fastest_loop = ~0ull;

__device__ bool divert_to_simt() {
  __shared__ int instrumented;
  if (threadIdx.x == 0) {
    unsigned x = blockIdx.x;
    const long long t0 = clock64();
#pragma unroll 1
    for (int i = 0; i < 512; ++i) x = x * 2654435761u + 1u;
    const unsigned long long took = static_cast<unsigned long long>(clock64() - t0) + (x == 7u);
    const unsigned long long fastest = atomicMin(&g_fastest_loop, took);
    instrumented = fastest != ~0ull && took > 3 * fastest;
  }
  __syncthreads();
  return !instrumented;
}

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) { return expert_run(args); }
