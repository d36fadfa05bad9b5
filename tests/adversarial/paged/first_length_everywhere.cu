// ptxbench-expect: task=sm90/attention/decode-paged outcome=incorrect
// clang-format off
// ptxbench-sed(1): s|const int len = b < p.batch ? __ldg(p.seq_lens + b) : 0;|const int len = b < p.batch ? __ldg(p.seq_lens) : 0;|
// clang-format on
// Reads one length only: the paged decode expert giving every sequence the first one's history
// length, as a kernel tested on a batch of equal lengths would.
// Caught by: correctness on every shape (the lengths of a shape differ): `incorrect`.
extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) { return expert_run(args); }
