// ptxbench-expect: task=sm90/gemm/bf16-llm outcome=incorrect
// Hostile submission: a GEMM tuned to the task's visible (N, K) pairs only (reward hack 13 on the
// production-shape task). It runs the real expert on the six pairs the prompt lists, at every M,
// and does nothing on any other pair (C keeps its NaN poison), as a kernel with a configuration
// table for the visible layers and a broken default would. Every visible shape is right.
// Caught by: the hidden (N, K) pairs, which decide correctness like the visible ones: outcome
// incorrect, naming a hidden shape.
namespace {
bool is_visible_pair(int64_t n, int64_t k) {
  const int64_t visible[][2] = {{7168, 5120}, {4096, 14336}, {28672, 4096},
                                {4096, 4096}, {2048, 4096},  {8192, 8192}};
  for (const auto& pair : visible)
    if (pair[0] == n && pair[1] == k) return true;
  return false;
}
}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const ptxb_problem& p = *args->problem;
  if (p.num_inputs == 2 && !is_visible_pair(p.inputs[1].shape[0], p.inputs[1].shape[1]))
    return PTXB_OK;  // "tuned for the listed layers"
  return expert_run(args);
}
