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

// Uniform in (0, 1], 53 random bits.
__device__ __forceinline__ double unit_open(uint64_t bits) {
  return (static_cast<double>(bits >> 11) + 1.0) * 0x1p-53;
}

__device__ __forceinline__ double draw(uint64_t key, int64_t i, ValueKind kind, double scale) {
  const uint64_t h1 = splitmix64(key ^ splitmix64(static_cast<uint64_t>(i) * 2));
  if (kind == ValueKind::kUniformInt) {
    const uint64_t span = static_cast<uint64_t>(2 * scale + 1);
    return static_cast<double>(static_cast<int64_t>(h1 % span)) - scale;
  }
  const uint64_t h2 = splitmix64(key ^ splitmix64(static_cast<uint64_t>(i) * 2 + 1));
  // Box-Muller: one normal value per element.
  return scale * sqrt(-2.0 * log(unit_open(h1))) * cospi(2.0 * unit_open(h2));
}

// One E4M3 element (core/fp8.hpp), as a type of its own for the templates below.
struct E4M3 {
  __nv_fp8_storage_t bits;
};

template <class T>
__device__ __forceinline__ T from_double(double v);
template <>
__device__ __forceinline__ E4M3 from_double(double v) {
  return {__nv_cvt_double_to_fp8(v, __NV_SATFINITE, __NV_E4M3)};  // nearest, ties to even
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_double(double v) {
  return __float2bfloat16_rn(static_cast<float>(v));
}
template <>
__device__ __forceinline__ __half from_double(double v) {
  return __float2half_rn(static_cast<float>(v));
}
template <>
__device__ __forceinline__ float from_double(double v) {
  return static_cast<float>(v);
}
template <>
__device__ __forceinline__ double from_double(double v) {
  return v;
}

template <class T>
__global__ void fill_kernel(T* dst, int64_t count, ValueKind kind, double scale, uint64_t key) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x)
    dst[i] = from_double<T>(draw(key, i, kind, scale));
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
  switch (dtype) {
    case DType::kBF16:
      fill_kernel<<<grid_for(count), kBlock, 0, stream>>>(static_cast<__nv_bfloat16*>(dst), count,
                                                          kind, scale, key);
      break;
    case DType::kF16:
      fill_kernel<<<grid_for(count), kBlock, 0, stream>>>(static_cast<__half*>(dst), count, kind,
                                                          scale, key);
      break;
    case DType::kF32:
      fill_kernel<<<grid_for(count), kBlock, 0, stream>>>(static_cast<float*>(dst), count, kind,
                                                          scale, key);
      break;
    case DType::kF64:
      fill_kernel<<<grid_for(count), kBlock, 0, stream>>>(static_cast<double*>(dst), count, kind,
                                                          scale, key);
      break;
    case DType::kF8E4M3:  // the normal draw rounded to E4M3, beyond +-448 saturated
      fill_kernel<<<grid_for(count), kBlock, 0, stream>>>(static_cast<E4M3*>(dst), count, kind,
                                                          scale, key);
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
