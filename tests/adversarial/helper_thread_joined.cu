// Hostile submission: the launch comes from a helper thread that is joined before returning.
//
// Attack: ptxb_run starts a std::thread that launches a correct SIMT GEMM on args->stream and
// joins it before returning. The result is correct and ordered on the right stream, and no extra
// thread is alive after the call, so a thread-count check before/after sees nothing. It models
// candidate code that hides work in its own threads (a thread pool, a launcher thread).
// Caught by: the CUPTI monitor: a kernel launched from a host thread other than the caller's.
// The worker ends at that first violation, before any case is judged (max_cases=0).
// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=rejected_cheat max_cases=0
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <cstdint>
#include <optional>
#include <thread>

namespace {

// ==== begin tests/adversarial/blocks/simt_gemm.inc (generated: scripts/amalgamate.py) ====
// A correct SIMT GEMM, the honest work under a hostile submission's attack. Hostile files hold
// a copy (scripts/amalgamate.py); the attack is what they add around it.
// C = A * B^T; A (M, K), B (N, K), C (M, N), all bf16 row-major. One CTA computes a (128, 128)
// tile of C with 256 threads, each an 8x8 block; K advances 16 at a time through shared memory
// (fp32, transposed). Products accumulate in fp32 registers (fmaf) and are rounded to bf16 once.
// Rows past M or N and k past K load as zero and stores are guarded, so any M, N and any
// K % 8 == 0 (16-byte row chunks; pointers are 256-byte aligned) are correct.
constexpr int kBlockM = 128;   // rows of C per CTA
constexpr int kBlockN = 128;   // columns of C per CTA
constexpr int kBlockK = 16;    // k per shared-memory stage
constexpr int kThreads = 256;  // (16, 16) threads, each an (8, 8) block of C

static_assert(kBlockM * kBlockK / 8 == kThreads, "one 16-byte chunk per thread per operand");
static_assert(kBlockN == kBlockM, "load_chunk serves both operands");

// One 16-byte chunk (8 bf16) of a (kBlockM, kBlockK) tile of a row-major (rows, K) matrix:
// thread t takes row t % 128 and k-chunk t / 128. K % 8 == 0, so a chunk is all in or all out.
__device__ __forceinline__ uint4 load_chunk(const __nv_bfloat16* __restrict__ src, int rows, int K,
                                            int row0, int k0) {
  const int row = row0 + static_cast<int>(threadIdx.x) % kBlockM;
  const int k = k0 + (static_cast<int>(threadIdx.x) / kBlockM) * 8;
  if (row >= rows || k >= K) return make_uint4(0u, 0u, 0u, 0u);
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
    gemm_bf16_simt(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
                   __nv_bfloat16* __restrict__ c, int M, int N, int K) {
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

  const int k_blocks = (K + kBlockK - 1) / kBlockK;
  uint4 next_a = load_chunk(a, M, K, m0, 0);
  uint4 next_b = load_chunk(b, N, K, n0, 0);
  for (int kb = 0; kb < k_blocks; ++kb) {
    store_chunk(a_tile, next_a);
    store_chunk(b_tile, next_b);
    __syncthreads();
    if (kb + 1 < k_blocks) {  // prefetch the next stage into registers while this one computes
      next_a = load_chunk(a, M, K, m0, (kb + 1) * kBlockK);
      next_b = load_chunk(b, N, K, n0, (kb + 1) * kBlockK);
    }
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
    __syncthreads();  // the tiles are overwritten at the top of the next stage
  }

#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = m0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
    if (row >= M) continue;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int col = n0 + (j < 4 ? tx * 4 + j : 64 + tx * 4 + (j - 4));
      if (col < N) c[static_cast<int64_t>(row) * N + col] = __float2bfloat16_rn(acc[i][j]);
    }
  }
}

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

// Enqueues C = A * B^T on `stream`; the launch error, if any.
cudaError_t launch_gemm(const void* a, const void* b, void* c, GemmDims d, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((d.N + kBlockN - 1) / kBlockN),
                  static_cast<unsigned>((d.M + kBlockM - 1) / kBlockM));
  gemm_bf16_simt<<<grid, kThreads, 0, stream>>>(static_cast<const __nv_bfloat16*>(a),
                                                static_cast<const __nv_bfloat16*>(b),
                                                static_cast<__nv_bfloat16*>(c), d.M, d.N, d.K);
  return cudaGetLastError();
}

enum Status : int { kBadProblem = 1, kLaunchFailed = 3, kAttackFailed = 7 };
// ==== end tests/adversarial/blocks/simt_gemm.inc ====

}  // namespace

extern "C" int ptxb_run(const ptxb_args* args) {
  const std::optional<GemmDims> d = gemm_dims(*args->problem);
  if (!d) return kBadProblem;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return kAttackFailed;
  cudaError_t launched = cudaErrorUnknown;
  std::thread helper([&] {
    (void)cudaSetDevice(device);  // a new thread starts on device 0
    launched = launch_gemm(args->inputs[0], args->inputs[1], args->outputs[0], *d,
                           static_cast<cudaStream_t>(args->stream));
  });
  helper.join();
  return launched == cudaSuccess ? PTXB_OK : kLaunchFailed;
}
