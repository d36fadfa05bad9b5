// Output comparison against the fp32 reference, and byte comparison for input-unchanged checks.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "verify/gpu_verify.hpp"

namespace ptxb {
namespace {

// A comparison's device memory (compare scratch): zeroed, first_index set to all ones, then
// filled by sum_squares_kernel (ref_sum_sq, for atol_rms) and compare_kernel.
struct DeviceStats {
  unsigned long long mismatches;
  unsigned long long nan_count;
  unsigned long long first_index;  // ULLONG_MAX when none
  unsigned int max_abs_bits;       // non-negative floats order like their bit patterns
  unsigned int max_rel_bits;
  double sum_sq_err;
  double sum_sq_ref;
  double ref_sum_sq;  // sum of the unrounded reference's squares, for atol_rms
};
static_assert(sizeof(DeviceStats) <= kCompareScratchBytes, "compare scratch too small");

template <class T>
__device__ __forceinline__ float to_float(T v);
template <>
__device__ __forceinline__ float to_float(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
template <>
__device__ __forceinline__ float to_float(__half v) {
  return __half2float(v);
}
template <>
__device__ __forceinline__ float to_float(float v) {
  return v;
}

template <class T>
__device__ __forceinline__ float round_like(float v);
template <>
__device__ __forceinline__ float round_like<__nv_bfloat16>(float v) {
  return __bfloat162float(__float2bfloat16_rn(v));
}
template <>
__device__ __forceinline__ float round_like<__half>(float v) {
  return __half2float(__float2half_rn(v));
}
template <>
__device__ __forceinline__ float round_like<float>(float v) {
  return v;
}

// The absolute tolerance applied: atol + atol_rms * rms(reference), rms from the sum of squares
// of `count` reference values. Rounded step by step (no fused multiply-add), so that the host
// (the reported atol) and the device (the applied one) get the same double.
__host__ __device__ __forceinline__ double applied_atol(const CompareTolerance& tol,
                                                        double ref_sum_sq, int64_t count) {
  if (tol.atol_rms <= 0) return tol.atol;
#ifdef __CUDA_ARCH__
  const double rms = count > 0 ? sqrt(__ddiv_rn(ref_sum_sq, static_cast<double>(count))) : 0.0;
  return __dadd_rn(tol.atol, __dmul_rn(tol.atol_rms, rms));
#else
  const double rms = count > 0 ? std::sqrt(ref_sum_sq / static_cast<double>(count)) : 0.0;
  volatile double scaled = tol.atol_rms * rms;  // volatile: never contracted into an FMA
  return tol.atol + scaled;
#endif
}

// R: the reference's element type (float, or an implementation's bf16 or f16 output).
template <class T, class R>
__global__ void compare_kernel(const T* __restrict__ out, const R* __restrict__ ref, int64_t count,
                               CompareTolerance tol, DeviceStats* stats) {
  // sum_squares_kernel, before this kernel on the stream, left the reference's sum of squares.
  tol.atol = applied_atol(tol, stats->ref_sum_sq, count);
  unsigned long long mismatches = 0, nans = 0, first = ~0ull;
  float max_abs = 0.f, max_rel = 0.f;
  double sq_err = 0, sq_ref = 0;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    const float got = to_float(out[i]);
    const float want = tol.round_reference ? round_like<T>(to_float(ref[i])) : to_float(ref[i]);
    const bool finite = isfinite(got);
    const float err = fabsf(got - want);
    const bool bad = !finite || err > tol.atol + tol.rtol * fabsf(want);
    if (!finite) ++nans;
    if (bad) {
      ++mismatches;
      first = min(first, static_cast<unsigned long long>(i));
    }
    if (finite) {
      max_abs = fmaxf(max_abs, err);
      if (want != 0.f) max_rel = fmaxf(max_rel, err / fabsf(want));
      sq_err += double(err) * err;
    }
    sq_ref += double(want) * want;
  }
  for (int off = 16; off > 0; off /= 2) {
    mismatches += __shfl_down_sync(~0u, mismatches, off);
    nans += __shfl_down_sync(~0u, nans, off);
    first = min(first, __shfl_down_sync(~0u, first, off));
    max_abs = fmaxf(max_abs, __shfl_down_sync(~0u, max_abs, off));
    max_rel = fmaxf(max_rel, __shfl_down_sync(~0u, max_rel, off));
    sq_err += __shfl_down_sync(~0u, sq_err, off);
    sq_ref += __shfl_down_sync(~0u, sq_ref, off);
  }
  if (threadIdx.x % 32 == 0) {
    if (mismatches) atomicAdd(&stats->mismatches, mismatches);
    if (nans) atomicAdd(&stats->nan_count, nans);
    if (first != ~0ull) atomicMin(&stats->first_index, first);
    atomicMax(&stats->max_abs_bits, __float_as_uint(max_abs));
    atomicMax(&stats->max_rel_bits, __float_as_uint(max_rel));
    atomicAdd(&stats->sum_sq_err, sq_err);
    atomicAdd(&stats->sum_sq_ref, sq_ref);
  }
}

template <class R>
__global__ void sum_squares_kernel(const R* __restrict__ ref, int64_t count, double* sum) {
  double local = 0;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    const double value = to_float(ref[i]);
    local += value * value;
  }
  for (int off = 16; off > 0; off /= 2) local += __shfl_down_sync(~0u, local, off);
  if (threadIdx.x % 32 == 0) atomicAdd(sum, local);
}

// Adds to *diff the number of bytes in which a and b differ: 16 bytes a load where both are
// 16-byte aligned, the rest (a tail, or misaligned ranges) a byte a load.
__global__ void count_diff_kernel(const uint8_t* a, const uint8_t* b, int64_t bytes,
                                  unsigned long long* diff) {
  const int64_t first = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  int64_t vectors = 0;
  if (((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b)) & 15) == 0) {
    vectors = bytes / 16;
    const auto* va = reinterpret_cast<const uint4*>(a);
    const auto* vb = reinterpret_cast<const uint4*>(b);
    for (int64_t i = first; i < vectors; i += stride) {
      const uint4 x = va[i], y = vb[i];
      // __vcmpne4: 0xFF in every byte that differs
      local += (__popc(__vcmpne4(x.x, y.x)) + __popc(__vcmpne4(x.y, y.y)) +
                __popc(__vcmpne4(x.z, y.z)) + __popc(__vcmpne4(x.w, y.w))) /
               8;
    }
  }
  for (int64_t i = 16 * vectors + first; i < bytes; i += stride) local += a[i] != b[i];
  for (int off = 16; off > 0; off /= 2) local += __shfl_down_sync(~0u, local, off);
  if (threadIdx.x % 32 == 0 && local) atomicAdd(diff, local);
}

constexpr int kBlock = 256;
constexpr int kGrid = 132 * 8;

template <class T>
double element_at(const void* out, int64_t index) {
  T value;
  PTXB_CHECK_CUDA(
      cudaMemcpy(&value, static_cast<const T*>(out) + index, sizeof(T), cudaMemcpyDeviceToHost));
  if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return double(__bfloat162float(value));
  else if constexpr (std::is_same_v<T, __half>)
    return double(__half2float(value));
  else
    return double(value);
}

template <class T, class R>
CompareStats compare_typed(const T* out, const R* ref, int64_t count, int64_t cols,
                           const CompareTolerance& tol, void* scratch, cudaStream_t stream) {
  auto* stats = static_cast<DeviceStats*>(scratch);
  // Memsets, not a copy from the host: a copy from pageable memory would wait for the stream.
  PTXB_CHECK_CUDA(cudaMemsetAsync(stats, 0, sizeof(DeviceStats), stream));
  PTXB_CHECK_CUDA(cudaMemsetAsync(&stats->first_index, 0xFF, sizeof stats->first_index, stream));
  if (tol.atol_rms > 0) {
    sum_squares_kernel<R><<<kGrid, kBlock, 0, stream>>>(ref, count, &stats->ref_sum_sq);
    PTXB_CHECK_CUDA(cudaGetLastError());
  }
  compare_kernel<T, R><<<kGrid, kBlock, 0, stream>>>(out, ref, count, tol, stats);
  PTXB_CHECK_CUDA(cudaGetLastError());
  DeviceStats s{};
  PTXB_CHECK_CUDA(cudaMemcpyAsync(&s, stats, sizeof s, cudaMemcpyDeviceToHost, stream));
  PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));

  CompareStats result;
  if (tol.atol_rms > 0)
    result.reference_rms = count > 0 ? std::sqrt(s.ref_sum_sq / static_cast<double>(count)) : 0.0;
  result.atol = applied_atol(tol, s.ref_sum_sq, count);
  result.count = count;
  result.mismatches = static_cast<int64_t>(s.mismatches);
  result.nan_count = static_cast<int64_t>(s.nan_count);
  float max_abs, max_rel;
  std::memcpy(&max_abs, &s.max_abs_bits, 4);
  std::memcpy(&max_rel, &s.max_rel_bits, 4);
  result.max_abs_error = max_abs;
  result.max_rel_error = max_rel;
  result.rel_frobenius = s.sum_sq_ref > 0 ? std::sqrt(s.sum_sq_err / s.sum_sq_ref)
                                          : (s.sum_sq_err > 0 ? INFINITY : 0.0);
  if (s.first_index != ~0ull) {
    Mismatch m;
    m.index = static_cast<int64_t>(s.first_index);
    m.row = m.index / cols;
    m.col = m.index % cols;
    m.got = element_at<T>(out, m.index);
    m.want = element_at<R>(ref, m.index);
    result.first_mismatch = m;
  }
  return result;
}

// compare_typed with the output's type T fixed, the reference's chosen by `ref_dtype`.
template <class T>
CompareStats compare_against(const T* out, const void* ref, DType ref_dtype, int64_t count,
                             int64_t cols, const CompareTolerance& tol, void* scratch,
                             cudaStream_t stream) {
  switch (ref_dtype) {
    case DType::kF32:
      return compare_typed(out, static_cast<const float*>(ref), count, cols, tol, scratch, stream);
    case DType::kBF16:
      return compare_typed(out, static_cast<const __nv_bfloat16*>(ref), count, cols, tol, scratch,
                           stream);
    case DType::kF16:
      return compare_typed(out, static_cast<const __half*>(ref), count, cols, tol, scratch, stream);
    default:
      PTXB_ASSERT(false,
                  "compare: unsupported reference dtype " + std::string(to_string(ref_dtype)));
  }
  return {};
}

}  // namespace

CompareStats compare_outputs(const void* out, DType dtype, const void* ref, DType ref_dtype,
                             int64_t count, int64_t cols, const CompareTolerance& tol,
                             cudaStream_t stream, void* scratch) {
  DeviceBuffer own;  // only without the caller's scratch
  if (scratch == nullptr) {
    own = DeviceBuffer(kCompareScratchBytes);
    scratch = own.data();
  }
  switch (dtype) {
    case DType::kBF16:
      return compare_against(static_cast<const __nv_bfloat16*>(out), ref, ref_dtype, count, cols,
                             tol, scratch, stream);
    case DType::kF16:
      return compare_against(static_cast<const __half*>(out), ref, ref_dtype, count, cols, tol,
                             scratch, stream);
    case DType::kF32:
      return compare_against(static_cast<const float*>(out), ref, ref_dtype, count, cols, tol,
                             scratch, stream);
    default:
      PTXB_ASSERT(false, "compare: unsupported dtype " + std::string(to_string(dtype)));
  }
  return {};
}

CompareStats compare_with_reference(const void* out, DType dtype, const float* ref, int64_t count,
                                    int64_t cols, const CompareTolerance& tol, cudaStream_t stream,
                                    void* scratch) {
  return compare_outputs(out, dtype, ref, DType::kF32, count, cols, tol, stream, scratch);
}

void add_differing_bytes(const std::vector<ByteComparison>& comparisons,
                         unsigned long long* counters, cudaStream_t stream) {
  for (const ByteComparison& c : comparisons) {
    if (c.bytes == 0) continue;
    const int grid = static_cast<int>(std::min<int64_t>(kGrid, (c.bytes / 16 + kBlock) / kBlock));
    count_diff_kernel<<<grid, kBlock, 0, stream>>>(static_cast<const uint8_t*>(c.a),
                                                   static_cast<const uint8_t*>(c.b), c.bytes,
                                                   counters + c.slot);
    PTXB_CHECK_CUDA(cudaGetLastError());
  }
}

int64_t count_differing_bytes(const void* a, const void* b, int64_t bytes, cudaStream_t stream) {
  DeviceBuffer diff(sizeof(unsigned long long));
  PTXB_CHECK_CUDA(cudaMemsetAsync(diff.data(), 0, diff.bytes(), stream));
  add_differing_bytes({{a, b, bytes, 0}}, diff.as<unsigned long long>(), stream);
  unsigned long long host = 0;
  PTXB_CHECK_CUDA(cudaMemcpyAsync(&host, diff.data(), sizeof host, cudaMemcpyDeviceToHost, stream));
  PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
  return static_cast<int64_t>(host);
}

}  // namespace ptxb
