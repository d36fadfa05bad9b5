// ptxbench-expect: task=sm90/attention/bwd-bf16-gqa outcome=incorrect
// ptxbench-sed(1): s|^  u.iters = u.per_head \* heads_per_cta;|  u.iters = u.per_head;|
// Writes dK and dV from one query head of each group: the real backward expert with its dK/dV
// kernel's loop over the group's query heads cut to the first (k1_unit's step count), as a kernel
// that reads the right kv head but forgets that dK and dV sum over the group would. dQ stays right.
// Right only where every dK/dV CTA serves one query head: where a kv head serves one, or where the
// expert splits the group over one CTA per query head (its small shapes); the large shapes run
// unsplit. Caught by: correctness on every shape (each has groups of 2 to 8 query heads):
// `incorrect`.
extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) { return expert_run(args); }
