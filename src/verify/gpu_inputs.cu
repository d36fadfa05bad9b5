// Counter-based input generation and output poisoning (see gpu_verify.hpp).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cmath>

#include "cuda/cuda_check.hpp"
#include "verify/gpu_verify.hpp"

namespace ptxb {
namespace {

__device__ __forceinline__ uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// An integer in [-scale, scale], uniform, from one hash of the element's index.
__device__ __forceinline__ float uniform_int(uint64_t key, int64_t i, float scale) {
  const uint64_t h = splitmix64(key ^ splitmix64(static_cast<uint64_t>(i) * 2));
  const uint64_t span = static_cast<uint64_t>(2 * scale + 1);
  return static_cast<float>(static_cast<int64_t>(h % span)) - scale;
}

// Two standard normal values for elements 2 * pair and 2 * pair + 1, from one hash of the pair's
// index: Box-Muller in fp32 on two 24-bit uniforms (tails to 5.77 sigma). The tasks draw bf16 and
// e4m3 inputs this way (an fp32 or fp64 input would get fp32 values). The fp64 version (two hashes
// and a log, sqrt and cospi in fp64 per element) made redrawing a timed GEMM's input sets cost the
// H200 more time than the timed calls (docs/timing.md).
__device__ __forceinline__ float2 normal_pair(uint64_t key, int64_t pair) {
  const uint64_t h = splitmix64(key ^ splitmix64(static_cast<uint64_t>(pair) * 2 + 1));
  const float u1 = (static_cast<float>(h >> 40) + 1.0f) * 0x1p-24f;      // (0, 1]
  const float u2 = static_cast<float>((h >> 8) & 0xFFFFFFu) * 0x1p-24f;  // [0, 1)
  const float r = sqrtf(-2.0f * logf(u1));
  float s = 0, c = 0;
  sincospif(2.0f * u2, &s, &c);
  return make_float2(r * c, r * s);
}

// One E4M3 element (core/fp8.hpp), as a type of its own for the templates below.
struct E4M3 {
  __nv_fp8_storage_t bits;
};

template <class T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ E4M3 from_float(float v) {
  return {__nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3)};  // nearest, ties to even
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float(float v) {
  return __float2bfloat16_rn(v);
}
template <>
__device__ __forceinline__ __half from_float(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __forceinline__ float from_float(float v) {
  return v;
}
template <>
__device__ __forceinline__ double from_float(float v) {
  return v;
}

template <class T>
__global__ void fill_kernel(T* dst, int64_t count, ValueKind kind, float scale, uint64_t key) {
  const int64_t pairs = (count + 1) / 2;
  for (int64_t p = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; p < pairs;
       p += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = 2 * p;
    float2 v;
    if (kind == ValueKind::kNormal) {
      v = normal_pair(key, p);
      v.x *= scale;
      v.y *= scale;
    } else {
      v = make_float2(uniform_int(key, i, scale), uniform_int(key, i + 1, scale));
    }
    dst[i] = from_float<T>(v.x);
    if (i + 1 < count) dst[i + 1] = from_float<T>(v.y);
  }
}

__global__ void fill_bytes_kernel(uint8_t* dst, int64_t bytes, uint8_t value) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < bytes;
       i += int64_t(gridDim.x) * blockDim.x)
    dst[i] = value;
}

constexpr int kBlock = 256;
int grid_for(int64_t count) {
  return static_cast<int>(std::min<int64_t>((count + kBlock - 1) / kBlock, 132 * 16));
}

// 2^e (1 + m/8), e in [-3, 3] and m in [0, 7] from one hash of the element's index (the
// "scales" rule of families/structured_values.hpp, drawn on the device).
__global__ void scales_kernel(float* dst, int64_t count, uint64_t key) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x) {
    const uint64_t h = splitmix64(key ^ splitmix64(static_cast<uint64_t>(i)));
    const int e = static_cast<int>(h % 7) - 3;
    const int m = static_cast<int>((h >> 32) % 8);
    dst[i] = ldexpf(1.f + static_cast<float>(m) / 8.f, e);
  }
}

}  // namespace

void fill_scales(float* dst, int64_t count, uint64_t seed, uint64_t stream_id,
                 cudaStream_t stream) {
  if (count == 0) return;
  const uint64_t key = (seed * 0x2545F4914F6CDD1Dull) ^ (stream_id << 32 | stream_id) ^ 0x5CA1E5ull;
  scales_kernel<<<grid_for(count), kBlock, 0, stream>>>(dst, count, key);
  PTXB_CHECK_CUDA(cudaGetLastError());
}

void fill_random(void* dst, DType dtype, int64_t count, ValueKind kind, double scale, uint64_t seed,
                 uint64_t stream_id, cudaStream_t stream) {
  if (count == 0) return;
  const uint64_t key = (seed * 0x2545F4914F6CDD1Dull) ^ (stream_id << 32 | stream_id);
  const int grid = grid_for((count + 1) / 2);  // a thread draws a pair of elements
  const auto s = static_cast<float>(scale);
  switch (dtype) {
    case DType::kBF16:
      fill_kernel<<<grid, kBlock, 0, stream>>>(static_cast<__nv_bfloat16*>(dst), count, kind, s,
                                               key);
      break;
    case DType::kF16:
      fill_kernel<<<grid, kBlock, 0, stream>>>(static_cast<__half*>(dst), count, kind, s, key);
      break;
    case DType::kF32:
      fill_kernel<<<grid, kBlock, 0, stream>>>(static_cast<float*>(dst), count, kind, s, key);
      break;
    case DType::kF64:
      fill_kernel<<<grid, kBlock, 0, stream>>>(static_cast<double*>(dst), count, kind, s, key);
      break;
    case DType::kF8E4M3:  // the normal draw rounded to E4M3, beyond +-448 saturated
      fill_kernel<<<grid, kBlock, 0, stream>>>(static_cast<E4M3*>(dst), count, kind, s, key);
      break;
    default:
      PTXB_ASSERT(false, "fill_random: unsupported dtype " + std::string(to_string(dtype)));
  }
  PTXB_CHECK_CUDA(cudaGetLastError());
}

namespace {

__global__ void bf16_to_f32_kernel(const __nv_bfloat16* src, float* dst, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x)
    dst[i] = __bfloat162float(src[i]);
}

__global__ void f32_to_bf16_kernel(const float* src, __nv_bfloat16* dst, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x)
    dst[i] = __float2bfloat16_rn(src[i]);
}

constexpr int kConvertBlock = 256;
constexpr int kConvertGrid = 132 * 8;

}  // namespace

void bf16_to_f32(const void* src, float* dst, int64_t count, cudaStream_t stream) {
  bf16_to_f32_kernel<<<kConvertGrid, kConvertBlock, 0, stream>>>(
      static_cast<const __nv_bfloat16*>(src), dst, count);
  PTXB_CHECK_CUDA(cudaGetLastError());
}

void f32_to_bf16(const float* src, void* dst, int64_t count, cudaStream_t stream) {
  f32_to_bf16_kernel<<<kConvertGrid, kConvertBlock, 0, stream>>>(
      src, static_cast<__nv_bfloat16*>(dst), count);
  PTXB_CHECK_CUDA(cudaGetLastError());
}

void poison(void* dst, DType dtype, int64_t count, cudaStream_t stream) {
  const int64_t bytes = count * size_bytes(dtype);
  // 0xFF bytes are a NaN in every IEEE-like float type (all-ones exponent, nonzero mantissa),
  // bf16/f16/f32/f64 and e5m2 alike; e4m3's NaN is also 0x7F/0xFF.
  fill_bytes_kernel<<<grid_for(bytes), kBlock, 0, stream>>>(static_cast<uint8_t*>(dst), bytes,
                                                            0xFF);
  PTXB_CHECK_CUDA(cudaGetLastError());
}

}  // namespace ptxb
