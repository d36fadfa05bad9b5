// Adversarial submission: wgmma executed, but only for show.
//
// Situation: a correct SIMT GEMM (FFMA, fp32 accumulation, 128x128 tiles through shared memory)
// in which warpgroup 0 of every CTA really executes ONE wgmma.mma_async m64n8k16 (fence, commit,
// wait) on a zeroed shared-memory scratch tile. Its result is finite and reaches C only if it were
// NaN, so C is untouched. HGMMA runs (R1 > 0), but it covers 64*8*16 of the 128*128*K products of
// each tile: a FLOP share of about 1/(2*K) (0.0005 at K = 1024), far below the 0.9 floor.
// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=low_instruction_share target=wgmma.mma_async
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <cstdint>

// ==== begin kernels/ptx/smem.cuh (generated: scripts/amalgamate.py) ====
// Shared-memory addresses as PTX instructions take them (the 32-bit offset in the shared window),
// and the fence between the generic and the async proxy's view of shared memory.

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
// Orders this thread's generic-proxy accesses of shared memory (plain stores, cp.async, an
// mbarrier.init) before later async-proxy accesses (wgmma operand reads, TMA, bulk copies).
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
// A float of shared memory at generic address p by ld.shared, where the compiler cannot see that
// p is shared (it would emit a generic load). Volatile, with a memory clobber: it stays after the
// mbarrier wait that makes the value visible.
__device__ __forceinline__ float ld_shared_f32(const void* p) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(smem_addr(p)) : "memory");
  return v;
}
// Stores 32 bits at shared-memory address `addr` (smem_addr) by st.shared, where a store through
// a generic pointer would take a generic store (ST.E: a 64-bit address register per pointer).
__device__ __forceinline__ void st_shared_b32(uint32_t addr, uint32_t v) {
  asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
// ==== end kernels/ptx/smem.cuh ====
// ==== begin kernels/ptx/wgmma.cuh (generated: scripts/amalgamate.py) ====
// Hopper warpgroup MMA plumbing: the warpgroup index, shared-memory matrix descriptors, fence /
// commit / wait, and the register fence that keeps the compiler from moving accumulator accesses
// across an asynchronous wgmma. The mma_async instructions themselves are written where they are
// used (one form per tile shape and operand source).

// The calling thread's warpgroup (128 consecutive threads of the block), read from lane 0.
// NOTE: threadIdx.x / 128 is the same in every lane of a warp, but ptxas does not know it; read
// through shfl.sync it is known warp-uniform, and what derives from it (shared-memory offsets,
// descriptors, barrier addresses) stays in uniform registers: fewer instructions in the
// consumers' loops (2-5% faster fp8 GEMM and attention backward experts on an H100). Call it with
// every lane of the warp active.
__device__ __forceinline__ int warpgroup_index() {
  return __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);
}

// Descriptor of a tile stored with the 128-byte swizzle: start address, leading byte offset
// (LBO) and stride byte offset (SBO), each encoded as (bytes & 0x3FFFF) >> 4; swizzle mode 1.
// K-major tiles: LBO is unused (16), SBO = 1024 (8 rows of 128 bytes).
__device__ __forceinline__ uint64_t wgmma_desc_sw128(const void* p, uint32_t lbo, uint32_t sbo) {
  uint64_t desc = (smem_addr(p) & 0x3FFFF) >> 4;
  desc |= uint64_t((lbo & 0x3FFFF) >> 4) << 16;
  desc |= uint64_t((sbo & 0x3FFFF) >> 4) << 32;
  desc |= uint64_t(1) << 62;  // 128-byte swizzle
  return desc;
}
// `desc` with its start address `bytes` further (a multiple of 16): the k-slices of a tile take
// the first slice's descriptor plus their offset instead of a descriptor formed from each address
// (a mask, a shift and an or each). The start address field (bits 0-13, in 16-byte units) cannot
// carry into the next field: every shared-memory address lies below 256 KB.
__device__ __forceinline__ uint64_t wgmma_desc_advance(uint64_t desc, uint32_t bytes) {
  return desc + (bytes >> 4);
}
// The descriptor of the k-slice `bytes` into a K-major 128-byte-swizzled tile (LBO 16, SBO 1024),
// whose own descriptor is `tile_desc`: stepped from it (kStep) or formed from the slice's address.
// The GEMM experts' consumers take one of the two forms by a knob (kStepDescriptors).
template <bool kStep>
__device__ __forceinline__ uint64_t wgmma_desc_sw128_slice(const void* tile, uint64_t tile_desc,
                                                           uint32_t bytes) {
  if constexpr (kStep) return wgmma_desc_advance(tile_desc, bytes);
  return wgmma_desc_sw128(static_cast<const uint8_t*>(tile) + bytes, 16, 1024);
}
// Descriptor of an unswizzled tile of 8x16-byte core matrices, LBO and SBO as above.
__device__ __forceinline__ uint64_t wgmma_desc_interleaved(const void* p, uint32_t lbo,
                                                           uint32_t sbo) {
  uint64_t desc = (smem_addr(p) & 0x3FFFF) >> 4;
  desc |= uint64_t((lbo & 0x3FFFF) >> 4) << 16;
  desc |= uint64_t((sbo & 0x3FFFF) >> 4) << 32;
  return desc;  // base offset 0, no swizzle
}
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
// Waits until at most kPending committed wgmma groups are still in flight.
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
}
// Ties registers to this point of the program: the compiler may not move their reads above a
// preceding wgmma.wait_group nor their writes below a following wgmma.
template <int kN>
__device__ __forceinline__ void fence_regs(float (&r)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(r[i])::"memory");
}
template <int kN>
__device__ __forceinline__ void fence_regs(uint32_t (&r)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+r"(r[i])::"memory");
}
// ==== end kernels/ptx/wgmma.cuh ====

namespace {

constexpr int kBlockM = 128;
constexpr int kBlockN = 128;
constexpr int kBlockK = 16;
constexpr int kThreads = 256;       // 16x16 threads, each an 8x8 block of C
constexpr int kLoadsPerThread = 1;  // (128 rows x 16 k) bf16 = 256 chunks of 16 bytes per operand

// ---- the show-only tensor-core work: wgmma m64n8k16 on a small zeroed bf16 scratch tile ----
struct WgmmaScratch {
  alignas(128) __nv_bfloat16 a[64 * 16];  // (64, 16): 8x2 core matrices of (8 rows, 16 bytes)
  // (8, 16) is all that m64n8k16 reads; NOTE: sized like `a` so that every reading of the two
  // descriptor offsets stays inside zeroed scratch (garbage could be NaN and reach C).
  alignas(128) __nv_bfloat16 b[64 * 16];
};

// wgmma m64n8k16, bf16 x bf16 -> f32, A and B from shared memory (K-major); scale_d 0 overwrites d.
__device__ __forceinline__ void wgmma_m64n8k16(float (&d)[4], uint64_t desc_a, uint64_t desc_b,
                                               int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;"
      "\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

// One wgmma by warpgroup 0 (threads 0..127, warp-uniform). Its result is finite (zeros in, zeros
// out); it reaches C only if it were NaN, which keeps the instruction live without touching C.
__device__ __forceinline__ void tensor_core_probe(const WgmmaScratch& scratch, __nv_bfloat16* c,
                                                  int M, int N) {
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  wgmma_fence();
  wgmma_m64n8k16(d, wgmma_desc_interleaved(scratch.a, 128, 256),
                 wgmma_desc_interleaved(scratch.b, 128, 256), 0);
  wgmma_commit();
  wgmma_wait<0>();
  const float sum = d[0] + d[1] + d[2] + d[3];
  if (sum != sum && M > 0 && N > 0) c[0] = __float2bfloat16_rn(sum);
}

// ---- the SIMT GEMM that really computes C ----
// Loads one (128, 16) bf16 tile of a row-major (rows, K) matrix into registers: thread t takes
// row t % 128, k-chunk t / 128 (8 bf16 = 16 bytes). Rows >= rows and k >= K read as zero.
__device__ __forceinline__ uint4 load_chunk(const __nv_bfloat16* src, int rows, int K, int row0,
                                            int k0) {
  const int row = row0 + threadIdx.x % kBlockM;
  const int k = k0 + (threadIdx.x / kBlockM) * 8;
  if (row >= rows || k >= K) return make_uint4(0, 0, 0, 0);  // K % 8 == 0: chunk all in or out
  return __ldg(reinterpret_cast<const uint4*>(src + static_cast<int64_t>(row) * K + k));
}

// Stores a chunk transposed as fp32: tile[k][row], (kBlockK, kBlockM).
__device__ __forceinline__ void store_chunk(float (*tile)[kBlockM], uint4 chunk) {
  const int row = threadIdx.x % kBlockM;
  const int k = (threadIdx.x / kBlockM) * 8;
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
  __shared__ WgmmaScratch scratch;

  // Zero the scratch: the probe reads defined data and its result is exactly 0.
  for (int i = threadIdx.x; i < 64 * 16; i += kThreads) scratch.a[i] = __float2bfloat16_rn(0.f);
  for (int i = threadIdx.x; i < 64 * 16; i += kThreads) scratch.b[i] = __float2bfloat16_rn(0.f);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic writes -> wgmma reads
  __syncthreads();
  // NOTE: executed by every CTA: one wgmma (four HGMMA warp instructions) per CTA, for show.
  if (threadIdx.x < 128) tensor_core_probe(scratch, c, M, N);

  const int m0 = blockIdx.y * kBlockM;
  const int n0 = blockIdx.x * kBlockN;
  const int ty = threadIdx.x / 16, tx = threadIdx.x % 16;
  float acc[8][8];
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
    if (kb + 1 < k_blocks) {  // prefetch the next tile into registers while computing this one
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
    __syncthreads();  // the tiles are overwritten at the top of the next iteration
  }

  // Thread (ty, tx) owns rows {ty*4 + i, 64 + ty*4 + i} and cols {tx*4 + j, 64 + tx*4 + j}.
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = m0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
    if (row >= M) continue;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int col = n0 + (j < 4 ? tx * 4 + j : 64 + tx * 4 + j - 4);
      if (col < N) c[static_cast<int64_t>(row) * N + col] = __float2bfloat16_rn(acc[i][j]);
    }
  }
}

static_assert(kBlockM * kBlockK / 8 == kThreads * kLoadsPerThread, "one 16-byte chunk per thread");
static_assert(kBlockN == kBlockM, "load_chunk serves both operands");

bool is_row_major_2d(const ptxb_tensor_desc& t, int64_t rows, int64_t cols) {
  return t.dtype == PTXB_BF16 && t.rank == 2 && t.shape[0] == rows && t.shape[1] == cols &&
         t.strides[0] == cols && t.strides[1] == 1;
}

enum Status : int { kBadProblem = 1, kLaunchFailed = 3 };

}  // namespace

extern "C" int ptxb_run(const ptxb_args* args) {
  const ptxb_problem& p = *args->problem;
  if (p.num_inputs != 2 || p.num_outputs != 1) return kBadProblem;
  const int64_t M = p.inputs[0].shape[0], K = p.inputs[0].shape[1], N = p.inputs[1].shape[0];
  if (!is_row_major_2d(p.inputs[0], M, K) || !is_row_major_2d(p.inputs[1], N, K) ||
      !is_row_major_2d(p.outputs[0], M, N) || K % 8 != 0 || M > INT32_MAX || N > INT32_MAX ||
      K > INT32_MAX)
    return kBadProblem;
  const dim3 grid(static_cast<unsigned>((N + kBlockN - 1) / kBlockN),
                  static_cast<unsigned>((M + kBlockM - 1) / kBlockM));
  gemm_bf16_simt<<<grid, kThreads, 0, static_cast<cudaStream_t>(args->stream)>>>(
      static_cast<const __nv_bfloat16*>(args->inputs[0]),
      static_cast<const __nv_bfloat16*>(args->inputs[1]),
      static_cast<__nv_bfloat16*>(args->outputs[0]), static_cast<int>(M), static_cast<int>(N),
      static_cast<int>(K));
  return cudaGetLastError() == cudaSuccess ? PTXB_OK : kLaunchFailed;
}
