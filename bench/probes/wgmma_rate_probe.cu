// How fast does an SM run the wgmma shapes and schedules of the attention backward's kernels,
// with nothing else to do? The backward's dK/dV kernel (k1) runs its four products at about 60%
// of the dense bf16 peak and the dQ kernel (k2) its three at about 70% (docs/attention.md): k1's
// score products S^T and dP^T are m64n64k16 with both operands in shared memory, k2's m64n128k16.
// Each case below runs one schedule on every SM (one CTA of `wgs` consumer warpgroups, the
// operands zero tiles in shared memory, 128-byte swizzle), `steps` times, and prints its rate:
//   ss64 / rs64 / ss128 / rs128: one product shape (A from shared memory or registers), groups of
//     8 k-steps (K 128), two groups in flight;
//   k1: the expert's k1 step without its arithmetic (S^T and dP^T m64n64 SS x8 each, a wait,
//     dV m64n128 RS x4, a wait, dK m64n128 RS x4, a full drain);
//   k1_rsk: the same with S^T's A (the warpgroup's keys) from registers;
//   k2: the expert's k2 step without its arithmetic (S and dP m64n128 SS x8, a wait, dQ m64n128
//     RS x8, a drain).
// Build (repository root): nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I kernels
//   bench/probes/wgmma_rate_probe.cu -o wgmma_rate_probe
// Usage: wgmma_rate_probe [STEPS=2000]; one line per case: name, warpgroups, us, TFLOP/s.
// Answer (H100, bench/results/2026-12-06c-session, call 1): every product shape at 931-969
// TFLOP/s (dense peak 989), k1's schedule at 984 on two warpgroups, k2's at 946: the products'
// shapes do not hold k1 near 600; its step's other work does (Nsight Compute, calls 2 and 4).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "ptx/wgmma.cuh"

namespace {

#define ACC32                                                                                  \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define ACC64                                                                               \
  ACC32                                                                                     \
  ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, " \
  "%49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define D8(i)                                                                                 \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
      "+f"(d[i + 6]), "+f"(d[i + 7])
#define D32 D8(0), D8(8), D8(16), D8(24)
#define D64 D32, D8(32), D8(40), D8(48), D8(56)

__device__ __forceinline__ void ss(float (&d)[32], uint64_t a, uint64_t b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {" ACC32
      "}, %32, %33, p, 1, 1, 0, 0;\n}"
      : D32
      : "l"(a), "l"(b), "r"(1));
}
__device__ __forceinline__ void ss(float (&d)[64], uint64_t a, uint64_t b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {" ACC64
      "}, %64, %65, p, 1, 1, 0, 0;\n}"
      : D64
      : "l"(a), "l"(b), "r"(1));
}
__device__ __forceinline__ void rs(float (&d)[32], const uint32_t (&a)[4], uint64_t b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {" ACC32
      "}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}"
      : D32
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
__device__ __forceinline__ void rs(float (&d)[64], const uint32_t (&a)[4], uint64_t b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {" ACC64
      "}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}"
      : D64
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}

enum class Case { kSs64, kRs64, kSs128, kRs128, kK1, kK1RsK, kK2 };
constexpr const char* kNames[] = {"ss64", "rs64", "ss128", "rs128", "k1", "k1_rsk", "k2"};
// FLOPs of one step of a warpgroup: a product shape's two groups of 8 k-steps, or the schedules'
// products (k1: 2 x m64n64k128 + 2 x m64n128k64; k2: 2 x m64n128k128 + m64n128k128).
constexpr double kStepFlops[] = {2 * 8 * 2.0 * 64 * 64 * 16,  2 * 8 * 2.0 * 64 * 64 * 16,
                                 2 * 8 * 2.0 * 64 * 128 * 16, 2 * 8 * 2.0 * 64 * 128 * 16,
                                 4 * 2.0 * 64 * 64 * 128,     4 * 2.0 * 64 * 64 * 128,
                                 3 * 2.0 * 64 * 128 * 128};
constexpr int kTileBytes = 128 * 128 * 2;  // one (128, 128) bf16 operand tile
constexpr int kSmemBytes = 4 * kTileBytes + 1024;

__device__ __forceinline__ uint64_t desc(const uint8_t* tile, int kk) {
  return wgmma_desc_advance(wgmma_desc_sw128(tile, 16, 1024), (kk / 4) * 16384 + (kk % 4) * 32);
}

// One product shape's step: two groups of 8 k-steps (K 128), into acc0 then acc1, A from shared
// memory (kShared) or registers, each group committed and waited for with the other in flight.
template <bool kShared, int kN>
__device__ __forceinline__ void two_groups(float (&acc0)[kN], float (&acc1)[kN],
                                           const uint8_t* a_tile, const uint8_t* b_tile,
                                           const uint32_t (&frag)[8][4]) {
#pragma unroll
  for (int g = 0; g < 2; ++g) {
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      if constexpr (kShared)
        ss(g ? acc1 : acc0, desc(a_tile, kk), desc(b_tile, kk));
      else
        rs(g ? acc1 : acc0, frag[kk], desc(b_tile, kk));
    }
    wgmma_commit();
    wgmma_wait<1>();
  }
}

template <Case kCase>
__global__ void __launch_bounds__(256, 1) rate_kernel(int steps, float* sink) {
  extern __shared__ uint8_t raw[];
  uint8_t* base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~1023ull);
  for (int i = threadIdx.x; i < 4 * kTileBytes / 16; i += blockDim.x)
    reinterpret_cast<uint4*>(base)[i] = make_uint4(0, 0, 0, 0);
  __syncthreads();
  const uint8_t* a_tile = base + warpgroup_index() % 2 * kTileBytes;  // each warpgroup's A
  const uint8_t* b_tile = base + 2 * kTileBytes;
  const uint8_t* b2_tile = base + 3 * kTileBytes;
  uint32_t frag[8][4];  // a register A operand: K 128
#pragma unroll
  for (int i = 0; i < 8; ++i) frag[i][0] = frag[i][1] = frag[i][2] = frag[i][3] = threadIdx.x & 1;
  float s[32], dp[32], dv[64], dk[64];
#pragma unroll
  for (int i = 0; i < 32; ++i) s[i] = dp[i] = 0.f;
#pragma unroll
  for (int i = 0; i < 64; ++i) dv[i] = dk[i] = 0.f;
  float s2[64], dp2[64];
  if constexpr (kCase == Case::kK2) {
#pragma unroll
    for (int i = 0; i < 64; ++i) s2[i] = dp2[i] = 0.f;
  }
  for (int step = 0; step < steps; ++step) {
    wgmma_fence();
    if constexpr (kCase == Case::kSs64 || kCase == Case::kRs64) {
      two_groups<kCase == Case::kSs64>(s, dp, a_tile, b_tile, frag);
    } else if constexpr (kCase == Case::kSs128 || kCase == Case::kRs128) {
      two_groups<kCase == Case::kSs128>(dv, dk, a_tile, b_tile, frag);
    } else if constexpr (kCase == Case::kK1 || kCase == Case::kK1RsK) {
#pragma unroll
      for (int kk = 0; kk < 8; ++kk) {
        if constexpr (kCase == Case::kK1)
          ss(s, desc(a_tile, kk), desc(b_tile, kk));
        else
          rs(s, frag[kk], desc(b_tile, kk));
      }
      wgmma_commit();
#pragma unroll
      for (int kk = 0; kk < 8; ++kk) ss(dp, desc(a_tile + 8192, kk), desc(b2_tile, kk));
      wgmma_commit();
      wgmma_wait<1>();
      fence_regs(s);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) rs(dv, frag[kk], desc(b_tile, kk));
      wgmma_commit();
      wgmma_wait<1>();
      fence_regs(dp);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) rs(dk, frag[kk + 4], desc(b2_tile, kk));
      wgmma_commit();
      wgmma_wait<0>();
      fence_regs(dv);
      fence_regs(dk);
    } else {
#pragma unroll
      for (int kk = 0; kk < 8; ++kk) ss(s2, desc(a_tile, kk), desc(b_tile, kk));
      wgmma_commit();
#pragma unroll
      for (int kk = 0; kk < 8; ++kk) ss(dp2, desc(a_tile + 8192, kk), desc(b2_tile, kk));
      wgmma_commit();
      wgmma_wait<0>();
      fence_regs(s2);
      fence_regs(dp2);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 8; ++kk) rs(dv, frag[kk], desc(b_tile, kk));
      wgmma_commit();
      wgmma_wait<0>();
      fence_regs(dv);
    }
  }
  wgmma_wait<0>();
  float sum = 0.f;
#pragma unroll
  for (int i = 0; i < 32; ++i) sum += s[i] + dp[i];
#pragma unroll
  for (int i = 0; i < 64; ++i) sum += dv[i] + dk[i];
  if constexpr (kCase == Case::kK2) {
#pragma unroll
    for (int i = 0; i < 64; ++i) sum += s2[i] + dp2[i];
  }
  if (sum != 0.f) sink[threadIdx.x] = sum;  // never: every operand is zero
}

template <Case kCase>
void run_case(int sms, int wgs, int steps, float* sink) {
  auto* kernel = rate_kernel<kCase>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
  kernel<<<sms, wgs * 128, kSmemBytes>>>(steps, sink);  // warm-up
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  float best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(start);
    kernel<<<sms, wgs * 128, kSmemBytes>>>(steps, sink);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0.f;
    cudaEventElapsedTime(&ms, start, stop);
    if (ms < best) best = ms;
  }
  if (cudaGetLastError() != cudaSuccess) {
    std::printf("%-7s %d  failed\n", kNames[static_cast<int>(kCase)], wgs);
    return;
  }
  const double flops = kStepFlops[static_cast<int>(kCase)] * steps * wgs * sms;
  std::printf("%-7s %d  %9.1f us  %6.1f TFLOP/s\n", kNames[static_cast<int>(kCase)], wgs,
              best * 1e3, flops / (best * 1e-3) / 1e12);
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 2000;
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  float* sink = nullptr;
  cudaMalloc(&sink, 256 * sizeof(float));
  std::printf("%s, %d SMs, %d steps\n", prop.name, prop.multiProcessorCount, steps);
  for (int wgs = 1; wgs <= 2; ++wgs) {
    run_case<Case::kSs64>(prop.multiProcessorCount, wgs, steps, sink);
    run_case<Case::kRs64>(prop.multiProcessorCount, wgs, steps, sink);
    run_case<Case::kSs128>(prop.multiProcessorCount, wgs, steps, sink);
    run_case<Case::kRs128>(prop.multiProcessorCount, wgs, steps, sink);
    run_case<Case::kK1>(prop.multiProcessorCount, wgs, steps, sink);
    run_case<Case::kK1RsK>(prop.multiProcessorCount, wgs, steps, sink);
    run_case<Case::kK2>(prop.multiProcessorCount, wgs, steps, sink);
  }
  return 0;
}
