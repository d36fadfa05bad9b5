// ptxbench-expect: task=sm90/gemm/fp8-e4m3 outcome=passed
// ptxbench-sed(1): s#^constexpr bool kOverlapPromotion = true;#constexpr bool kOverlapPromotion = false;#
// ptxbench-sed(1): s#^  float part\[kAccum\];$#  float part[kAccum] = {};#
// ptxbench-sed(2): s#, k > 0 ? 1 : 0);#, 1);#
// ptxbench-sed(1): s#^      promotion.apply(scales, part, acc);$#      if (kb % 4 == 3 || kb + 1 == k_blocks) { promotion.apply(scales, part, acc); for (int i = 0; i < kAccum; ++i) part[i] = 0.f; }#
// ptxbench-sed(1): s#^constexpr bool kNarrowFewRows = true;#constexpr bool kNarrowFewRows = false;#
// (The expert's narrow whole-K kernel for few-row shapes is turned off: it promotes its own way.)
// Promotes four times less often: the per-tensor expert with its partial sums left in the
// tensor cores' accumulator for 512 values of k (four k-blocks) before each add into fp32. The
// expert's copy promotes after its own MMAs (kOverlapPromotion off), every MMA accumulating into
// the partial buffer, which is added into fp32 and zeroed every fourth k-block and after the
// last. Not caught, by design: the judge holds the output's accuracy, not the promotion
// interval, and 512-long runs stay within it (largest tau* 0.0038 against cuBLASLt's 0.0032
// and the bound's 0.0065; H200, bench/results/2026-12-04-h200-session-fp8-cluster, call I:
// `passed`). Kept as the boundary of the check: accumulator runs over the whole K
// (no_promotion.cu) are `incorrect`.
extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) { return expert_run(args); }
