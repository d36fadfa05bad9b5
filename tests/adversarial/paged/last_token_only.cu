// ptxbench-expect: task=sm90/attention/decode-paged outcome=incorrect
// clang-format off
// ptxbench-sed(1): s|return len - p.q_len + min(row / p.group, p.q_len - 1);|return len - 1;|
// clang-format on
// Every new token sees the whole history, its later new tokens included: the paged decode expert
// without the bottom-right causal mask, as a kernel written for one new token per sequence (SQ =
// 1, where the two agree) would.
// Caught by: correctness on the shapes with SQ > 1 (tokens before the last see keys they must
// not): `incorrect`.
extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) { return expert_run(args); }
