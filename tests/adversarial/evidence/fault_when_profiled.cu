// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=crashed
// A fault that shows only in the evidence run: the expert everywhere, but when a profiler is
// visible (ncu's evidence run) each call also launches a kernel that traps. Correctness and timing
// never see it. The profiled call faults, which is the candidate's doing: `crashed`, naming the
// evidence run, never `unavailable` (docs/evidence.md). The deterministic form of a race that only
// instrumentation's slowdown exposes (timing/cluster_race.cu, which did not fire on the H200).
__device__ bool divert_to_simt() { return false; }

namespace {
__global__ void trap_kernel() { asm volatile("trap;"); }
}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const int status = expert_run(args);
  if (status == PTXB_OK && probe::profiler_visible())
    trap_kernel<<<1, 1, 0, static_cast<cudaStream_t>(args->stream)>>>();
  return status;
}
