// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=low_instruction_share target=wgmma.mma_async
// Evidence cheat: the whole GEMM through wgmma into the workspace (FLOP share exactly 1.0) while
// C is computed in fixed point by integer multiply-adds (one IMAD.WIDE per product into a 64-bit
// accumulator): no floating-point arithmetic, so the non-target FLOP count sees nothing, and the
// same in every call, so the counters agree. Caught by the integer ceiling of the wgmma target:
// integer multiply-add operations worth about 1.0 of the problem's FLOPs (docs/evidence.md).
__device__ bool divert_to_simt() { return false; }

// ==== begin tests/adversarial/blocks/fixed_point_gemm.inc (generated: scripts/amalgamate.py) ====
// A GEMM without floating-point arithmetic, for the evidence cheats that compute C by integer or
// bit-level emulation next to the expert's wgmma: bf16 inputs become fixed-point integers (16
// fractional bits) by bit operations, products accumulate exactly in 64-bit integers, and each
// element of C is rounded to bf16 once. Hostile files hold a copy (scripts/amalgamate.py); they
// choose how one product is formed (`Mac`).

namespace fixed_gemm {

constexpr int kTile = 64;  // (kTile, kTile) of C per CTA
constexpr int kStep = 16;  // K per shared-memory step
constexpr int kThreads = 256;
constexpr int kFractionBits = 16;

// A bf16 value (its bits) times 2^16, truncated toward zero, by integer operations only. Values
// below 2^-16 become 0 and |values| >= 2^15 saturate; the tasks' inputs are far inside.
__device__ __forceinline__ int to_fixed(uint32_t bits) {
  const int exponent = static_cast<int>((bits >> 7) & 0xFF);
  if (exponent == 0) return 0;                                // zero or subnormal
  const int mantissa = static_cast<int>(bits & 0x7F) | 0x80;  // value = mantissa * 2^(e - 134)
  const int shift = exponent - 134 + kFractionBits;
  int v = 0;
  if (shift >= 23)
    v = 0x7FFFFFFF;
  else if (shift >= 0)
    v = mantissa << shift;
  else if (shift > -8)
    v = mantissa >> -shift;
  return (bits & 0x8000) != 0 ? -v : v;
}

// C[m0:m0+64, n0:n0+64] = A * B^T. Mac::b_operand(bits) is what the shared slab keeps of an
// element of B; Mac::mac(acc, a_fixed, b_operand) returns acc + a * b with 32 fractional bits.
template <class Mac>
__global__ void __launch_bounds__(kThreads)
    gemm(const uint16_t* __restrict__ a, const uint16_t* __restrict__ b, __nv_bfloat16* c, int M,
         int N, int K) {
  __shared__ int a_slab[kStep][kTile];
  __shared__ int b_slab[kStep][kTile];
  const int m0 = blockIdx.y * kTile, n0 = blockIdx.x * kTile;
  const int ty = threadIdx.x / 16, tx = threadIdx.x % 16;
  long long acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += kStep) {
    for (int e = threadIdx.x; e < kTile * kStep; e += kThreads) {
      const int row = e / kStep, k = k0 + e % kStep;
      const uint32_t a_bits = m0 + row < M && k < K ? a[static_cast<int64_t>(m0 + row) * K + k] : 0;
      const uint32_t b_bits = n0 + row < N && k < K ? b[static_cast<int64_t>(n0 + row) * K + k] : 0;
      a_slab[e % kStep][row] = to_fixed(a_bits);
      b_slab[e % kStep][row] = Mac::b_operand(b_bits);
    }
    __syncthreads();
#pragma unroll 4
    for (int k = 0; k < kStep; ++k) {
      int av[4], bv[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) av[i] = a_slab[k][ty * 4 + i], bv[i] = b_slab[k][tx * 4 + i];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = Mac::mac(acc[i][j], av[i], bv[j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i) {
    const int row = m0 + ty * 4 + i;
    for (int j = 0; j < 4; ++j) {
      const int col = n0 + tx * 4 + j;
      if (row < M && col < N)
        c[static_cast<int64_t>(row) * N + col] =
            __double2bfloat16(static_cast<double>(acc[i][j]) * 0x1p-32);
    }
  }
}

// C = A * B^T through gemm<Mac> on the call's stream.
template <class Mac>
int run(const ptxb_args* args) {
  const ptxb_problem& p = *args->problem;
  const int M = static_cast<int>(p.inputs[0].shape[0]), K = static_cast<int>(p.inputs[0].shape[1]);
  const int N = static_cast<int>(p.inputs[1].shape[0]);
  const dim3 grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
  gemm<Mac><<<grid, kThreads, 0, static_cast<cudaStream_t>(args->stream)>>>(
      static_cast<const uint16_t*>(args->inputs[0]), static_cast<const uint16_t*>(args->inputs[1]),
      static_cast<__nv_bfloat16*>(args->outputs[0]), M, N, K);
  return cudaGetLastError() == cudaSuccess ? PTXB_OK : 3;
}

}  // namespace fixed_gemm
// ==== end tests/adversarial/blocks/fixed_point_gemm.inc ====

// One product by a 32 x 32 -> 64-bit integer multiply-add.
struct WideMultiply {
  static __device__ int b_operand(uint32_t bits) { return fixed_gemm::to_fixed(bits); }
  static __device__ long long mac(long long acc, int a, int b) {
    return acc + static_cast<long long>(a) * b;
  }
};

// ==== begin tests/adversarial/blocks/double_work_entry.inc (generated: scripts/amalgamate.py) ====
// The entry points of the "double work" evidence cheats: the expert's whole GEMM through wgmma
// into the workspace (a second C: FLOP share exactly 1.0), then C computed another way by
// `compute`. The expert's entry points, renamed expert_plan and expert_run by
// tests/adversarial/make_cheats.sh, come before. Hostile files hold a copy
// (scripts/amalgamate.py); they choose `compute`.

namespace double_work {

inline int plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  const int status = expert_plan(problem, workspace_bytes);
  *workspace_bytes = static_cast<uint64_t>(problem->outputs[0].shape[0]) *
                     static_cast<uint64_t>(problem->outputs[0].shape[1]) * 2;  // a second C
  return status;
}

inline int run(const ptxb_args* args, int (*compute)(const ptxb_args*)) {
  void* scratch_out[1] = {args->workspace};
  ptxb_args for_show = *args;
  for_show.outputs = scratch_out;
  const int status = expert_run(&for_show);
  return status != PTXB_OK ? status : compute(args);
}

}  // namespace double_work
// ==== end tests/adversarial/blocks/double_work_entry.inc ====

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return double_work::plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  return double_work::run(args, fixed_gemm::run<WideMultiply>);
}
