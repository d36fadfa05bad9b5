// ptxbench-expect: task=sm90/attention/fwd-varlen outcome=incorrect
// clang-format off
// ptxbench-sed(1): s|^\( *\)return (kCausal \&\& j == job.m_tile) \|\| (j + 1) \* kBlockN > job.len;|\1return kCausal \&\& j == job.m_tile;|
// ptxbench-sed(1): s|^\( *\)return (kCausal \&\& (j + 1) \* kBlockN - 1 > row0) \|\| (j + 1) \* kBlockN > job.len;|\1return kCausal \&\& (j + 1) \* kBlockN - 1 > row0;|
// ptxbench-sed(1): s|if (key >= len \|\| (causal \&\& key > row0 + frag_row(h)))|if (causal \&\& key > row0 + frag_row(h))|
// clang-format on
// Assumes every length is a multiple of the 128-key tile: the real variable-length expert with
// the mask of keys past a sequence's end removed, so the last key tile of a sequence also sees the
// next sequence's first tokens (or the zero rows past T). Right only where every length is a tile
// multiple; causal shapes stay right too (a stored query row masks every later key), so the
// non-causal shapes catch it. Caught by: correctness on the non-causal shapes (visible and
// hidden, ragged lengths): `incorrect`.
extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) { return expert_run(args); }
