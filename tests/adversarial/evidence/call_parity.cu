// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=rejected_cheat
// Evidence cheat inside one kernel: the same kernel (same name, same grid) runs wgmma on even
// calls and diverts every CTA to the SIMT path on odd ones, on a device flag set per call. Caught
// by the counters of the timed calls: half of them disagree with the profiled call.
__device__ bool divert_to_simt() { return simt::g_divert != 0; }

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  static int64_t calls = 0;
  simt::divert_next_call(calls++ % 2 == 1, static_cast<cudaStream_t>(args->stream));
  return expert_run(args);
}
