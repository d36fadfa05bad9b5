// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=crashed timing=yes
// Timing cheat: hides the shape where it is slowest from its speedup. Correct on every call of the
// correctness stage, then, at shapes of few rows (the expert's weakest), does the work and returns
// an error status once timing has begun, so that shape's timing ends without a speedup and the
// sample's geomean is taken over the fast shapes only. A submission failing in timing is
// `crashed` (docs/timing.md); before, the verdict stayed `passed` with the shape left out.
__device__ bool divert_to_simt() { return false; }

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  static int64_t few_row_calls = 0;
  const int status = expert_run(args);
  if (args->problem->inputs[0].shape[0] > 128) return status;
  // Correctness makes 6 calls per shape (3 seeds x 2 input kinds): the 7th is a timing warm-up.
  return ++few_row_calls > 12 ? 7 : status;
}
