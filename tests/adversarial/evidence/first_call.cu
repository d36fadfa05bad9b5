// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=rejected_cheat
// Evidence cheat without detection: wgmma on the first call of each shape in the process, the SIMT
// (FFMA) path after. A harness that profiles one fresh call per shape sees only wgmma. Caught
// twice over: the profiled call comes after unprofiled ones (so it is SIMT), and the counters of
// the first counted call at each timed shape disagree with the profiled call's.
#include <set>
#include <tuple>

__device__ bool divert_to_simt() { return false; }

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  static std::set<std::tuple<int64_t, int64_t, int64_t>> seen;
  const ptxb_problem& p = *args->problem;
  const auto shape =
      std::make_tuple(p.inputs[0].shape[0], p.inputs[1].shape[0], p.inputs[0].shape[1]);
  if (seen.insert(shape).second) return expert_run(args);
  return simt::run(args);
}
