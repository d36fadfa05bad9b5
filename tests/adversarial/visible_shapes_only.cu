// Hostile submission: a GEMM specialized to the visible shapes (reward hack 13).
//
// Attack: a SIMT GEMM that assumes what every visible shape (1024^3, 2048x512x1024, 4096^3,
// 8192^3) happens to satisfy: M and N multiples of 128 and K a multiple of 64. It has no edge
// handling at all: the grid is M/128 x N/128 tiles (rounded down), the K loop covers K/64*64, and
// loads and stores are unguarded. Correct, bit for bit on small_int, on every visible shape.
// On the hidden shapes it never touches memory out of bounds (everything rounds down); it just
// leaves the last rows/columns of C unwritten (NaN) and drops the last K % 64 products
// (1000^3, 4000x3000x2000, 1537x2049x776), and at M = 64 its grid has zero rows, so the launch
// fails and ptxb_run returns an error.
// Caught by: the hidden shapes, which decide correctness like the visible ones: outcome
// incorrect, naming a hidden shape.
// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=incorrect
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <cstdint>
#include <optional>

namespace {

// ==== begin tests/adversarial/blocks/problem_checks.inc (generated: scripts/amalgamate.py) ====
// The problem checks of a hostile GEMM submission: is the problem C = A * B^T in row-major bf16?
// Hostile files hold a copy (scripts/amalgamate.py).
struct GemmDims {
  int M = 0, N = 0, K = 0;
};

bool is_row_major_2d(const ptxb_tensor_desc& t, int64_t rows, int64_t cols) {
  return t.dtype == PTXB_BF16 && t.rank == 2 && t.shape[0] == rows && t.shape[1] == cols &&
         t.strides[0] == cols && t.strides[1] == 1;
}

// The GEMM's dimensions, or nullopt when the problem is not C = A * B^T in row-major bf16 with
// K % 8 == 0 and every dimension in int range.
std::optional<GemmDims> gemm_dims(const ptxb_problem& p) {
  if (p.num_inputs != 2 || p.num_outputs != 1) return std::nullopt;
  const int64_t M = p.inputs[0].shape[0], K = p.inputs[0].shape[1], N = p.inputs[1].shape[0];
  if (M <= 0 || N <= 0 || K <= 0 || K % 8 != 0 || M > INT32_MAX || N > INT32_MAX || K > INT32_MAX)
    return std::nullopt;
  if (!is_row_major_2d(p.inputs[0], M, K) || !is_row_major_2d(p.inputs[1], N, K) ||
      !is_row_major_2d(p.outputs[0], M, N))
    return std::nullopt;
  return GemmDims{static_cast<int>(M), static_cast<int>(N), static_cast<int>(K)};
}

enum Status : int { kBadProblem = 1, kLaunchFailed = 3, kAttackFailed = 7 };
// ==== end tests/adversarial/blocks/problem_checks.inc ====

// ==== A SIMT GEMM for M, N multiples of 128 and K a multiple of 64 (no edge handling) ====
// Same tiling as the shared SIMT GEMM of the other hostile files: (128, 128) of C per CTA, 256
// threads with an (8, 8) block each, K through shared memory 16 at a time, fp32 accumulation.
constexpr int kBlockM = 128;   // rows of C per CTA
constexpr int kBlockN = 128;   // columns of C per CTA
constexpr int kBlockK = 16;    // k per shared-memory stage
constexpr int kThreads = 256;  // (16, 16) threads, each an (8, 8) block of C
constexpr int kAssumedKMultiple = 64;

static_assert(kBlockM * kBlockK / 8 == kThreads, "one 16-byte chunk per thread per operand");
static_assert(kAssumedKMultiple % kBlockK == 0, "whole stages");

// One 16-byte chunk of a (kBlockM, kBlockK) tile: thread t takes row t % 128, k-chunk t / 128.
// NOTE: no bounds check: "every shape is a multiple of the tile".
__device__ __forceinline__ uint4 load_chunk(const __nv_bfloat16* __restrict__ src, int K, int row0,
                                            int k0) {
  const int row = row0 + static_cast<int>(threadIdx.x) % kBlockM;
  const int k = k0 + (static_cast<int>(threadIdx.x) / kBlockM) * 8;
  return __ldg(reinterpret_cast<const uint4*>(src + static_cast<int64_t>(row) * K + k));
}

// Stores the chunk transposed, as fp32, into tile[k][row]: (kBlockK, kBlockM).
__device__ __forceinline__ void store_chunk(float (*tile)[kBlockM], uint4 chunk) {
  const int row = static_cast<int>(threadIdx.x) % kBlockM;
  const int k = (static_cast<int>(threadIdx.x) / kBlockM) * 8;
  const __nv_bfloat162* v = reinterpret_cast<const __nv_bfloat162*>(&chunk);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 f = __bfloat1622float2(v[i]);
    tile[k + 2 * i][row] = f.x;
    tile[k + 2 * i + 1][row] = f.y;
  }
}

__global__ void __launch_bounds__(kThreads)
    gemm_bf16_tiles_only(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
                         __nv_bfloat16* __restrict__ c, int N, int K) {
  __shared__ alignas(16) float a_tile[kBlockK][kBlockM];  // (kBlockK, kBlockM), A transposed
  __shared__ alignas(16) float b_tile[kBlockK][kBlockN];  // (kBlockK, kBlockN), B transposed
  const int m0 = static_cast<int>(blockIdx.y) * kBlockM;
  const int n0 = static_cast<int>(blockIdx.x) * kBlockN;
  const int ty = static_cast<int>(threadIdx.x) / 16, tx = static_cast<int>(threadIdx.x) % 16;
  float acc[8][8];  // (8, 8): rows {ty*4 + i, 64 + ty*4 + i}, columns {tx*4 + j, 64 + tx*4 + j}
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;

  // NOTE: the specialization: K / 64 * 64, silently dropping any remainder.
  const int k_blocks = (K / kAssumedKMultiple) * (kAssumedKMultiple / kBlockK);
  for (int kb = 0; kb < k_blocks; ++kb) {
    store_chunk(a_tile, load_chunk(a, K, m0, kb * kBlockK));
    store_chunk(b_tile, load_chunk(b, K, n0, kb * kBlockK));
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kBlockK; ++k) {
      const float4 a_lo = *reinterpret_cast<const float4*>(&a_tile[k][ty * 4]);
      const float4 a_hi = *reinterpret_cast<const float4*>(&a_tile[k][64 + ty * 4]);
      const float4 b_lo = *reinterpret_cast<const float4*>(&b_tile[k][tx * 4]);
      const float4 b_hi = *reinterpret_cast<const float4*>(&b_tile[k][64 + tx * 4]);
      const float av[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
      const float bv[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = m0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int col = n0 + (j < 4 ? tx * 4 + j : 64 + tx * 4 + (j - 4));
      c[static_cast<int64_t>(row) * N + col] = __float2bfloat16_rn(acc[i][j]);  // unguarded
    }
  }
}

}  // namespace

extern "C" int ptxb_run(const ptxb_args* args) {
  const std::optional<GemmDims> d = gemm_dims(*args->problem);
  if (!d) return kBadProblem;
  // NOTE: the specialization: whole tiles only (M / 128 x N / 128, rounded down).
  const dim3 grid(static_cast<unsigned>(d->N / kBlockN), static_cast<unsigned>(d->M / kBlockM));
  gemm_bf16_tiles_only<<<grid, kThreads, 0, static_cast<cudaStream_t>(args->stream)>>>(
      static_cast<const __nv_bfloat16*>(args->inputs[0]),
      static_cast<const __nv_bfloat16*>(args->inputs[1]),
      static_cast<__nv_bfloat16*>(args->outputs[0]), d->N, d->K);
  return cudaGetLastError() == cudaSuccess ? PTXB_OK : kLaunchFailed;
}
