// ptxbench-expect: task=sm90/gemm/fp8-e4m3 outcome=incorrect
// Correct only on the fp8 task's visible shapes: the real per-tensor expert on the sizes the
// prompt lists (1024^3, 4096^3, 8192^3, 128x8192x8192), nothing on any other size (C keeps its
// NaN poison), as a kernel tuned to the listed sizes with a broken default would.
// Caught by: the hidden shapes (ragged, few rows): `incorrect`, naming a hidden shape.
namespace {
bool is_visible(int64_t m, int64_t n, int64_t k) {
  const int64_t visible[][3] = {
      {1024, 1024, 1024}, {4096, 4096, 4096}, {8192, 8192, 8192}, {128, 8192, 8192}};
  for (const auto& s : visible)
    if (s[0] == m && s[1] == n && s[2] == k) return true;
  return false;
}
}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const ptxb_problem& p = *args->problem;
  if (p.num_inputs >= 2 &&
      !is_visible(p.inputs[0].shape[0], p.inputs[1].shape[0], p.inputs[0].shape[1]))
    return PTXB_OK;
  return expert_run(args);
}
