// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=rejected_cheat
// Evidence cheat by chance: each call diverts every CTA to the SIMT path with probability 1/2.
// Whatever the profiled calls drew, about half of the counted calls disagree with them.
#include <random>

__device__ bool divert_to_simt() { return simt::g_divert != 0; }

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  static std::mt19937_64 rng{std::random_device{}()};
  simt::divert_next_call(rng() % 2 == 1, static_cast<cudaStream_t>(args->stream));
  return expert_run(args);
}
