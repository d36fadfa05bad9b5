// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=rejected_cheat timing=yes
// Evidence cheat on a call count: wgmma for the first 60 calls of the process (correctness and the
// profiled calls fit), the SIMT path from then on (the timed rounds). Caught by the counters of the
// timed calls; needs timing, which run.sh keeps on for this file.
__device__ bool divert_to_simt() { return simt::g_divert != 0; }

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  static int64_t calls = 0;
  simt::divert_next_call(++calls > 60, static_cast<cudaStream_t>(args->stream));
  return expert_run(args);
}
