// The pieces of the FA3-style attention experts (arXiv 2407.08608) that do not depend on the
// problem's layout: the mbarrier wait with the dev harness's watchdog, the consumers' named
// barriers, exp2, the wgmma operand descriptors (K-major Q and K, MN-major V, 128-byte swizzle)
// and instructions (S = Q K^T from shared memory, O += P V with P in registers), the accumulator
// fragment map, P's packing into bf16 A fragments, and the online-softmax step and rescale.
// Tiles of 128 or 64 keys (the score fragments' size says which) and head dims 64, 96, 128 and
// 256. Needs, declared before it by the expert: kChunk (head-dim columns per TMA box),
// kChunkBytes (the default distance between a tile's boxes), kSplitPvDefault, and
// PTXB_ATTN_WATCHDOG. Experts hold a copy (scripts/amalgamate.py); the wgmma wrappers are
// [[maybe_unused]] as each expert uses the shapes of its head dims only.
#pragma once

#include <cuda_bf16.h>

#include <cmath>
#include <cstdint>

#include "ptx/barrier.cuh"
#include "ptx/mbarrier.cuh"
#include "ptx/smem.cuh"
#include "ptx/wgmma.cuh"

// NOTE: no namespace of its own: the copy sits inside the expert's anonymous namespace, after the
// constants above.
#if PTXB_ATTN_WATCHDOG
__device__ unsigned int g_watchdog_timeouts = 0;
#endif

// mbar_wait, or with PTXB_ATTN_WATCHDOG a wait that gives up after about 2^31 cycles and counts
// the timeout in g_watchdog_timeouts.
__device__ __forceinline__ void mbar_wait_checked(uint64_t* bar, uint32_t parity) {
#if PTXB_ATTN_WATCHDOG
  const uint32_t addr = smem_addr(bar);
  if (mbar_try_wait(addr, parity)) return;
  const long long start = clock64();
  while (!mbar_try_wait(addr, parity)) {
    // NOTE: after the first timeout every wait gives up at once, so a broken kernel ends quickly.
    if (*static_cast<volatile unsigned int*>(&g_watchdog_timeouts) != 0 ||
        clock64() - start > (1ll << 31)) {
      atomicAdd(&g_watchdog_timeouts, 1u);
      return;
    }
  }
#else
  mbar_wait(bar, parity);
#endif
}

__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// ---- wgmma operands and instructions ----
// K-major operand (Q, K) in the 128-byte swizzle: leading byte offset unused (16), stride byte
// offset 1024 (8 rows of 128 bytes). Stepping k by 16 elements inside a swizzled row adds 32 bytes
// to the start; the next 64 columns are the next box (+16 KiB).
__device__ __forceinline__ uint64_t desc_k_major(const void* p) {
  return wgmma_desc_sw128(p, 16, 1024);
}
// MN-major operand (V as the (keys, D) B matrix of P V, N = D contiguous) in the 128-byte
// swizzle. PTX ISA canonical layout for MN-major SW128, in elements with T = 8 bf16:
// ((T,8,m),(8,k)) : ((1,T,LBO),(8T,SBO)): a swizzle atom is 64 N-contiguous values (one 128-byte
// row) x 8 consecutive k (keys) at a 128-byte pitch, exactly 8 rows of our TMA box. Hence
// LBO = distance between 64-wide N blocks = the next box (kBoxBytes: 16 KiB for 128 keys), and
// SBO = distance between 8-key groups = 1024 bytes. The k-th 16-key slice starts 16 rows
// (2048 bytes) further, an atom boundary, so the base-offset field stays 0.
template <uint32_t kBoxBytes = kChunkBytes>
__device__ __forceinline__ uint64_t desc_mn_major(const void* p) {
  return wgmma_desc_sw128(p, kBoxBytes, 1024);
}

#define PTXB_ACC8(d, i)                                                                       \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
      "+f"(d[i + 6]), "+f"(d[i + 7])
#define PTXB_ACC32(d) PTXB_ACC8(d, 0), PTXB_ACC8(d, 8), PTXB_ACC8(d, 16), PTXB_ACC8(d, 24)
#define PTXB_ACC48(d) PTXB_ACC32(d), PTXB_ACC8(d, 32), PTXB_ACC8(d, 40)
#define PTXB_ACC64(d) PTXB_ACC48(d), PTXB_ACC8(d, 48), PTXB_ACC8(d, 56)
#define PTXB_REGS32                                                                            \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define PTXB_ACC128(d)                                                                   \
  PTXB_ACC64(d), PTXB_ACC8(d, 64), PTXB_ACC8(d, 72), PTXB_ACC8(d, 80), PTXB_ACC8(d, 88), \
      PTXB_ACC8(d, 96), PTXB_ACC8(d, 104), PTXB_ACC8(d, 112), PTXB_ACC8(d, 120)
#define PTXB_REGS48 \
  PTXB_REGS32       \
  ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47"
#define PTXB_REGS64                                                                              \
  PTXB_REGS32                                                                                    \
  ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, " \
  "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"

// D(64x128) (+)= A(64x16, smem K-major) * B(16x128, smem K-major); overwrites D when scale_d == 0.
[[maybe_unused]] __device__ __forceinline__ void wgmma_ss_m64n128k16(float (&d)[64],
                                                                     uint64_t desc_a,
                                                                     uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {" PTXB_REGS64
      "}, %64, %65, p, 1, 1, 0, 0;\n}\n"
      : PTXB_ACC64(d)
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}
// D(64x64) (+)= A(64x16, smem K-major) * B(16x64, smem K-major); overwrites D when scale_d == 0.
[[maybe_unused]] __device__ __forceinline__ void wgmma_ss_m64n64k16(float (&d)[32], uint64_t desc_a,
                                                                    uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {" PTXB_REGS32
      "}, %32, %33, p, 1, 1, 0, 0;\n}\n"
      : PTXB_ACC32(d)
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}
// D(64x128) += A(64x16, registers) * B(16x128, smem MN-major: imm-trans-b = 1).
[[maybe_unused]] __device__ __forceinline__ void wgmma_rs_m64n128k16_tb(float (&d)[64],
                                                                        const uint32_t* a,
                                                                        uint64_t desc_b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {" PTXB_REGS64
               "}, {%64, %65, %66, %67}, %68, 1, 1, 1, 1;\n"
               : PTXB_ACC64(d)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b));
}
// D(64x64) += A(64x16, registers) * B(16x64, smem MN-major: imm-trans-b = 1).
[[maybe_unused]] __device__ __forceinline__ void wgmma_rs_m64n64k16_tb(float (&d)[32],
                                                                       const uint32_t* a,
                                                                       uint64_t desc_b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {" PTXB_REGS32
               "}, {%32, %33, %34, %35}, %36, 1, 1, 1, 1;\n"
               : PTXB_ACC32(d)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b));
}
// D(64x96) += A(64x16, registers) * B(16x96, smem MN-major: imm-trans-b = 1). The 96 columns
// are a whole 64-wide swizzle block and half of the next (LBO away).
[[maybe_unused]] __device__ __forceinline__ void wgmma_rs_m64n96k16_tb(float (&d)[48],
                                                                       const uint32_t* a,
                                                                       uint64_t desc_b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n96k16.f32.bf16.bf16 {" PTXB_REGS48
               "}, {%48, %49, %50, %51}, %52, 1, 1, 1, 1;\n"
               : PTXB_ACC48(d)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b));
}
// D(64x256) += A(64x16, registers) * B(16x256, smem MN-major: imm-trans-b = 1).
[[maybe_unused]] __device__ __forceinline__ void wgmma_rs_m64n256k16_tb(float (&d)[128],
                                                                        const uint32_t* a,
                                                                        uint64_t desc_b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {" PTXB_REGS64
               ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
               "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
               "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, "
               "%110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, "
               "%123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, 1, 1, 1, 1;\n"
               : PTXB_ACC128(d)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b));
}
#undef PTXB_ACC8
#undef PTXB_ACC32
#undef PTXB_ACC128
#undef PTXB_ACC48
#undef PTXB_ACC64
#undef PTXB_REGS32
#undef PTXB_REGS48
#undef PTXB_REGS64

// ---- fragments ----
// Element (i, h, e) of an m64nN fp32 accumulator is acc[4*i + 2*h + e]: row frag_row(h) of the
// warpgroup's 64 rows, column frag_col(i, e). The bf16 A operand of m64nNk16 has the same
// (row, column) map for its 16 columns, so the accumulator of S (keys 16k..16k+15 = entries
// 8k..8k+7) becomes the k-th A fragment by packing consecutive pairs (pack_p).
__device__ __forceinline__ int frag_row(int h) {
  return (threadIdx.x % 128) / 32 * 16 + (threadIdx.x % 32) / 4 + 8 * h;
}
__device__ __forceinline__ int frag_col(int i, int e) { return 8 * i + 2 * (threadIdx.x % 4) + e; }

__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);  // lo in the low half
  return *reinterpret_cast<const uint32_t*>(&v);
}
// (64, N) fp32 fragment (kS = N / 2 entries) -> N/16 bf16 A fragments of 4 registers each.
template <int kS>
__device__ __forceinline__ void pack_p(const float (&s)[kS], uint32_t (&pa)[kS / 2]) {
#pragma unroll
  for (int k = 0; k < kS / 2; ++k) pa[k] = pack_bf16x2(s[2 * k], s[2 * k + 1]);
}

// S(64, N) = Q(64 rows of this warpgroup, kHeadDim) K(N, kHeadDim)^T for tiles of N = 128 or 64
// keys (kS = N / 2 entries); kHeadDim a multiple of 16. The 64-column boxes of Q lie kQBoxBytes
// apart, those of K kKBoxBytes. Issue only.
template <int kHeadDim, uint32_t kQBoxBytes = kChunkBytes, uint32_t kKBoxBytes = kChunkBytes,
          int kS>
__device__ __forceinline__ void issue_qk(float (&s)[kS], const __nv_bfloat16* q_rows,
                                         const __nv_bfloat16* k_tile) {
  static_assert(kS == 64 || kS == 32, "tiles of 128 or 64 keys");
  const uint64_t qd = desc_k_major(q_rows), kd = desc_k_major(k_tile);
#pragma unroll
  for (int kk = 0; kk < kHeadDim / 16; ++kk) {
    const uint32_t column = (kk % 4) * 32;  // 16 columns further inside the box
    const uint32_t q_off = (kk / 4) * kQBoxBytes + column, k_off = (kk / 4) * kKBoxBytes + column;
    if constexpr (kS == 64) {
      wgmma_ss_m64n128k16(s, wgmma_desc_advance(qd, q_off), wgmma_desc_advance(kd, k_off),
                          kk > 0 ? 1 : 0);
    } else {
      wgmma_ss_m64n64k16(s, wgmma_desc_advance(qd, q_off), wgmma_desc_advance(kd, k_off),
                         kk > 0 ? 1 : 0);
    }
  }
}
// O(64, 2 kO) += P(64, N) V(N, 2 kO), P as N/16 bf16 A fragments (kP = N / 4 registers), V's
// 64-column boxes kVBoxBytes apart. By the accumulator's size: kO = 32 (head dim 64), 48 (96:
// one m64n96), 64 (128: one m64n128, or two m64n64 when kSplit), 128 (256: one m64n256; two
// m64n128 made ptxas serialize the wgmma for want of registers). Issue only.
template <bool kSplit = kSplitPvDefault, uint32_t kVBoxBytes = kChunkBytes, int kO, int kP>
__device__ __forceinline__ void issue_pv(float (&o)[kO], const uint32_t (&pa)[kP],
                                         const __nv_bfloat16* v_tile) {
  static_assert(kO == 32 || kO == 48 || kO == 64 || kO == 128, "head dim 64, 96, 128 or 256");
  const uint64_t vd = desc_mn_major<kVBoxBytes>(v_tile);
#pragma unroll
  for (int kk = 0; kk < kP / 4; ++kk) {
    const uint64_t desc = wgmma_desc_advance(vd, kk * 16 * kChunk * 2);  // 16 keys: 16 rows
    // NOTE: columns 64c.. of an m64nN fragment are entries 32c.. (i >= 8c).
    if constexpr (kO == 32) {
      wgmma_rs_m64n64k16_tb(o, &pa[4 * kk], desc);
    } else if constexpr (kO == 48) {
      wgmma_rs_m64n96k16_tb(o, &pa[4 * kk], desc);
    } else if constexpr (kO == 128) {
      wgmma_rs_m64n256k16_tb(o, &pa[4 * kk], desc);
    } else if constexpr (kSplit) {
      wgmma_rs_m64n64k16_tb(*reinterpret_cast<float(*)[32]>(&o[0]), &pa[4 * kk], desc);
      wgmma_rs_m64n64k16_tb(*reinterpret_cast<float(*)[32]>(&o[32]), &pa[4 * kk],
                            wgmma_desc_advance(desc, kVBoxBytes));
    } else {
      wgmma_rs_m64n128k16_tb(o, &pa[4 * kk], desc);
    }
  }
}

// ---- softmax ----
// One online-softmax step on a raw score tile. m (running row max of raw scores) and l (this
// thread's share of the running row sum, relative to m) are updated; s becomes
// P = exp2(scale_log2 * (s - m)); corr is the factor that rescales the earlier O and l.
// kRowGuard: only the rows below `rows` count; a warp skips its rows h (frag_row(h) of its lanes,
// 8 consecutive rows) when all of them are at or past `rows` (their m, l and corr stay as they
// were: those rows are never stored), so that padding rows cost no arithmetic.
template <bool kRowGuard = false, int kS>
__device__ __forceinline__ void softmax_step(float (&s)[kS], float (&m)[2], float (&l)[2],
                                             float (&corr)[2], float scale_log2, int rows = 0) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    if (kRowGuard && (threadIdx.x % 128) / 32 * 16 + 8 * h >= rows) continue;
    float mx = m[h];
#pragma unroll
    for (int i = 0; i < kS / 4; ++i) mx = fmaxf(mx, fmaxf(s[4 * i + 2 * h], s[4 * i + 2 * h + 1]));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));  // the 4 threads of a row (quad)
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
    // NOTE: a row with no visible key so far keeps m = -inf; subtracting 0 keeps P = 0, not NaN.
    const float neg_max = mx == -INFINITY ? 0.f : -mx * scale_log2;
    corr[h] = exp2_approx(fmaf(m[h], scale_log2, neg_max));  // 0 on the first tile (m = -inf)
    m[h] = mx;
    float sum = 0.f;
#pragma unroll
    for (int i = 0; i < kS / 4; ++i)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        float& x = s[4 * i + 2 * h + e];
        x = exp2_approx(fmaf(x, scale_log2, neg_max));
        sum += x;
      }
    l[h] = fmaf(l[h], corr[h], sum);
  }
}

// kRowGuard: as in softmax_step, a warp's rows h at or past `rows` are left alone.
template <int kN, bool kRowGuard = false>
__device__ __forceinline__ void rescale(float (&o)[kN], const float (&corr)[2], int rows = 0) {
#pragma unroll
  for (int i = 0; i < kN / 4; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      if (kRowGuard && (threadIdx.x % 128) / 32 * 16 + 8 * h >= rows) continue;
      o[4 * i + 2 * h] *= corr[h];
      o[4 * i + 2 * h + 1] *= corr[h];
    }
}
