// ptxbench-expect: task=sm90/attention/decode-paged outcome=incorrect
// clang-format off
// ptxbench-sed(1): s|const int token = __ldg(table + page_index) \* p.page_size + key % p.page_size;|const int token = page_index * p.page_size + key % p.page_size;|
// clang-format on
// Ignores the page table: the paged decode expert reading a sequence's page p from pool page p, as
// a kernel written for a contiguous cache (or one tested only on an identity table) would. Right
// only where the table is the identity.
// Caught by: correctness on every shape (the worker's tables are shuffled pool pages, drawn per
// seed): `incorrect`.
extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) { return expert_run(args); }
