// ptxbench-expect: task=sm90/gemm/bf16-llm outcome=incorrect
// Hostile submission: a GEMM that is right only when M is a multiple of its 64-row tile. It runs
// the real expert on the first floor(M / 64) * 64 rows and leaves the rest of C unwritten (NaN),
// as a kernel without a row tail would; with fewer than 64 rows it does nothing. Every shape with
// M a multiple of 64 is right, prefill and mixed included.
// Caught by: the decode shapes (M = 1 and 16, visible and hidden): outcome incorrect.
namespace {
constexpr int64_t kAssumedRowTile = 64;
}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const ptxb_problem& p = *args->problem;
  if (p.num_inputs != 2 || p.num_outputs != 1) return expert_run(args);
  const int64_t rows = p.inputs[0].shape[0] / kAssumedRowTile * kAssumedRowTile;
  if (rows == 0) return PTXB_OK;
  ptxb_tensor_desc inputs[2] = {p.inputs[0], p.inputs[1]};
  ptxb_tensor_desc output = p.outputs[0];
  inputs[0].shape[0] = rows;  // strides unchanged: the first rows of A and C
  output.shape[0] = rows;
  ptxb_problem truncated = p;
  truncated.inputs = inputs;
  truncated.outputs = &output;
  ptxb_args patched = *args;
  patched.problem = &truncated;
  return expert_run(&patched);
}
