// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=passed timing=yes max_speedup=0.45
// Timing cheat: host work hidden under the launch gate. While the gate holds the harness stream
// (a non-blocking stream), every call copies a slice of A out through the legacy default stream,
// which the gate does not hold, and spends 4 ms of host time, the budget of computing a small
// problem on the CPU from inputs copied out that way, before launching the honest expert. With
// the gate alone those 4 ms would be invisible (the GPU starts only after the call returned) and
// this would score the expert's speedups (0.70-0.75); because a sample is the larger of the device
// time and the call's host time (docs/timing.md), every shape's speedup falls below 0.45 (8192^3:
// the library's ~1.7 ms against 4 ms; the other shapes below 0.1).
#include <chrono>

__device__ bool divert_to_simt() { return false; }

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  static unsigned char slice[4096];
  (void)cudaMemcpy(slice, args->inputs[0], sizeof(slice), cudaMemcpyDeviceToHost);
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(4);
  while (std::chrono::steady_clock::now() < until) {
  }
  return expert_run(args);
}
