// ptxbench-expect: task=sm90/gemm/fp8-e4m3 outcome=instruction_missing target=wgmma.mma_async.e4m3
// ptxbench-base: kernels/reference/sm90_gemm_bf16_wgmma_tma.cu
// ptxbench-sed(1): s#^constexpr bool kStreamKTail = true;#constexpr bool kStreamKTail = false;#
// Widens the E4M3 operands to bf16 (each times its scale: exact, 4 + 4 significant bits) into the
// workspace and runs the bf16 TMA expert on them: right answers, HGMMA instead of QGMMA. The task
// asks for the e4m3 form of wgmma, which this never issues (S0: no e4m3 wgmma in the PTX). The
// expert's stream-K tail is off: at 8192^3 the widened operands alone take the whole
// PTXB_MAX_WORKSPACE_BYTES, and the tail's partials on top made the plan fail (`incorrect`).
#include <cuda_fp8.h>

namespace {

__global__ void widen_scaled(const __nv_fp8_e4m3* src, const float* scale, __nv_bfloat16* dst,
                             int64_t n) {
  const float s = *scale;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x)
    dst[i] = __float2bfloat16_rn(static_cast<float>(src[i]) * s);
}

// The bf16 problem the expert is run on: A and B widened, no scale inputs.
struct Bf16Problem {
  ptxb_tensor_desc inputs[2];
  ptxb_problem problem;
  explicit Bf16Problem(const ptxb_problem& p) : inputs{p.inputs[0], p.inputs[1]}, problem(p) {
    inputs[0].dtype = inputs[1].dtype = PTXB_BF16;
    problem.num_inputs = 2;
    problem.inputs = inputs;
  }
  uint64_t widened_bytes() const {
    return 2 * static_cast<uint64_t>(inputs[0].shape[0] + inputs[1].shape[0]) *
           static_cast<uint64_t>(inputs[0].shape[1]);
  }
};

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  const Bf16Problem bf16(*problem);
  const int status = expert_plan(&bf16.problem, workspace_bytes);
  *workspace_bytes += bf16.widened_bytes();
  return status;
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const Bf16Problem bf16(*args->problem);
  const int64_t M = bf16.inputs[0].shape[0], N = bf16.inputs[1].shape[0],
                K = bf16.inputs[0].shape[1];
  auto* a16 = static_cast<__nv_bfloat16*>(args->workspace);
  __nv_bfloat16* b16 = a16 + M * K;
  const auto stream = static_cast<cudaStream_t>(args->stream);
  widen_scaled<<<264, 256, 0, stream>>>(static_cast<const __nv_fp8_e4m3*>(args->inputs[0]),
                                        static_cast<const float*>(args->inputs[2]), a16, M * K);
  widen_scaled<<<264, 256, 0, stream>>>(static_cast<const __nv_fp8_e4m3*>(args->inputs[1]),
                                        static_cast<const float*>(args->inputs[3]), b16, N * K);
  const void* inputs[2] = {a16, b16};
  ptxb_args widened = *args;
  widened.problem = &bf16.problem;
  widened.inputs = inputs;
  widened.workspace = b16 + N * K;
  widened.workspace_bytes = args->workspace_bytes - bf16.widened_bytes();
  return expert_run(&widened);
}
