// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=rejected_cheat
// Timing cheat: asks for persisting L2 lines (a persisting-L2 limit in ptxb_plan, an access-policy
// window over B on the caller's stream in ptxb_run), so that B could stay in L2 across the flush.
// Each request is a named violation (docs/threat-model.md, row 21), whether or not the driver
// grants it; before, they failed inside the sandbox with a generic error and went unnoticed.
__device__ bool divert_to_simt() { return false; }

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  (void)cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 32u << 20);
  (void)cudaGetLastError();
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const ptxb_problem& p = *args->problem;
  cudaStreamAttrValue window{};
  window.accessPolicyWindow.base_ptr = const_cast<void*>(args->inputs[1]);
  window.accessPolicyWindow.num_bytes =
      static_cast<size_t>(p.inputs[1].shape[0]) * static_cast<size_t>(p.inputs[1].shape[1]) * 2;
  window.accessPolicyWindow.hitRatio = 1.0f;
  window.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  window.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  (void)cudaStreamSetAttribute(static_cast<cudaStream_t>(args->stream),
                               cudaStreamAttributeAccessPolicyWindow, &window);
  (void)cudaGetLastError();
  return expert_run(args);
}
