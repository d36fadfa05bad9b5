// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=rejected_cheat timing=yes
// Timing cheat: correct on every call of the correctness stage (its first 60 calls), then does the
// work on every other call only and returns at once on the others, leaving C as it was (NaN).
// Half the timed calls cost nothing. Caught because every timed round's output is checked after
// the round (docs/timing.md); before, only the last round was, which this passes half the time.
__device__ bool divert_to_simt() { return false; }

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  static int64_t calls = 0;
  ++calls;
  if (calls > 60 && calls % 2 == 0) return PTXB_OK;
  return expert_run(args);
}
