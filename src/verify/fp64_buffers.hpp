// fp64 copies for the references: bf16 inputs widened exactly, fp64 results rounded once to fp32.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/dtype.hpp"
#include "cuda/device.hpp"

namespace ptxb {

/// A new device buffer holding the `count` bf16 values at `src` as doubles (exact).
DeviceBuffer widened_bf16(const void* src, int64_t count, cudaStream_t stream);

/// The same for `dtype` (bf16, f16, f32, E4M3); InternalError for another.
DeviceBuffer widened(const void* src, DType dtype, int64_t count, cudaStream_t stream);

/// dst[i] = (float)src[i], round to nearest, for `count` elements.
void narrow_to_f32(const double* src, float* dst, int64_t count, cudaStream_t stream);

}  // namespace ptxb
