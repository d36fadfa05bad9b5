// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=passed timing=yes max_speedup=0.1
// Timing probe of the launch gate's limit: ptxb_run synchronizes the harness stream before it
// launches the (honest) expert, which docs/abi.md forbids. In a timed call the gate still holds
// that stream, so the synchronization waits until the gate lets go by itself (about 20 ms, counted
// in the shape's gate_expired) instead of hanging the worker; that wait is the call's host time
// and so its sample, every speedup falls below 0.1 and timing stops after 10 rounds per shape
// (coarse). Outside timing (correctness, evidence) the synchronization costs nothing.
__device__ bool divert_to_simt() { return false; }

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  (void)cudaStreamSynchronize(static_cast<cudaStream_t>(args->stream));
  return expert_run(args);
}
