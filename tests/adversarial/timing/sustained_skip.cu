// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=rejected_cheat timing=yes
// Sustained-regime cheat: the back-to-back batches were the only place where one shape is called
// with many different output buffers (correctness and the evidence run each use one set per
// shape, and the cold rounds did too before they took 8 calls a round, each on its own set).
// Once it has seen three at a shape, it does the work on every other call only, leaving the other
// outputs as they were (NaN): half a batch costs nothing. Caught because every output of every
// round is checked after the round (docs/timing.md), now in the cold rounds already, and a range's
// counted instructions divided by its calls differ from the profiled call's.
#include <map>
#include <set>
#include <tuple>

__device__ bool divert_to_simt() { return false; }

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  static std::map<std::tuple<int64_t, int64_t, int64_t>, std::set<void*>> outputs;
  static int64_t calls = 0;
  const ptxb_problem& p = *args->problem;
  std::set<void*>& seen =
      outputs[std::make_tuple(p.inputs[0].shape[0], p.inputs[1].shape[0], p.inputs[0].shape[1])];
  seen.insert(args->outputs[0]);
  if (seen.size() >= 3 && ++calls % 2 == 0) return PTXB_OK;
  return expert_run(args);
}
