// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=rejected_cheat
// Evidence cheat: wgmma only when a profiler is visible (an injection library or Nsight's folder
// in the memory map, or a profiler variable in the environment), the SIMT (FFMA) path otherwise.
// The profiled call shows wgmma at share 1.0; the timed calls never touch the tensor cores. Caught
// by the counters of the timed calls (GMMA executions 0 against the profiled call's).
__device__ bool divert_to_simt() { return simt::g_divert != 0; }

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  if (probe::profiler_visible()) return expert_run(args);
  return simt::run(args);
}
