// ptxbench-expect: task=sm90/gemm/fp8-e4m3 outcome=incorrect
// ptxbench-sed(1): s#^constexpr bool kOverlapPromotion = true;#constexpr bool kOverlapPromotion = false;#
// ptxbench-sed(1): s#^  float part\[kAccum\];$#  float part[kAccum] = {};#
// ptxbench-sed(2): s#, k > 0 ? 1 : 0);#, 1);#
// ptxbench-sed(1): s#acc\[i\] += part\[i\];#acc[i] = part[i];#
// ptxbench-sed(1): s#^constexpr bool kNarrowFewRows = true;#constexpr bool kNarrowFewRows = false;#
// (The expert's narrow whole-K kernel for few-row shapes is turned off: it promotes its own way.)
// Never promotes: the per-tensor expert with its partial sums left in the tensor cores'
// accumulator for the whole K (each wgmma adds to the previous ones' result) instead of being
// added into fp32 registers every 128 elements. Hopper's fp8 accumulation keeps fewer bits than
// fp32, so over a long K the error grows past what rounding the output to bf16 explains. The
// expert's copy promotes after its own MMAs (kOverlapPromotion off), its partial buffer zeroed
// once and every MMA accumulating into it. Caught by: the correctness check, `incorrect` (H200,
// bench/results/2026-12-03g-h200-session-2d2472b, call C).
extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) { return expert_run(args); }
