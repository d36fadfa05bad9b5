// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=crashed timing=yes
// Timing cheat: hides the shape where it is slowest from its speedup. Correct on every call of the
// correctness stage, then, at shapes of few rows (the expert's weakest), does the work and returns
// an error status once timing has begun, so that shape's timing ends without a speedup and the
// sample's geomean is taken over the fast shapes only. A submission failing in timing is
// `crashed` (docs/timing.md); before, the verdict stayed `passed` with the shape left out.
// It stays correct in the evidence process (which calls only timed shapes, up to 33 times each):
// it fails only after this process has seen two few-row shapes (the correctness stage's) and, at
// the shape, more calls than the correctness stage makes there (3 seeds x 2 input kinds).
#include <map>
#include <tuple>

__device__ bool divert_to_simt() { return false; }

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  static std::map<std::tuple<int64_t, int64_t, int64_t>, int> few_row_calls;
  const ptxb_problem& p = *args->problem;
  const int status = expert_run(args);
  if (p.inputs[0].shape[0] > 128) return status;
  const int calls = ++few_row_calls[std::make_tuple(p.inputs[0].shape[0], p.inputs[1].shape[0],
                                                    p.inputs[0].shape[1])];
  return few_row_calls.size() >= 2 && calls > 6 ? 7 : status;
}
