// Element types of task tensors; the numeric codes are the submission ABI's
// (include/ptxbench/abi.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ptxb {

enum class DType : int32_t {
  kBF16 = 1,
  kF16 = 2,
  kF32 = 3,
  kF8E4M3 = 4,
  kF8E5M2 = 5,
  kF64 = 6,
  kI32 = 7,  ///< offsets, lengths, page tables (docs/tasks.md, "Integer inputs")
  kI64 = 8,
};

std::string_view to_string(DType dtype);
std::optional<DType> dtype_from_string(std::string_view name);
int64_t size_bytes(DType dtype);
/// True for the integer types (kI32, kI64).
bool is_integer(DType dtype);
/// Unit roundoff (half an ulp at 1.0) of the type: 2^-8 for bf16, 2^-11 for f16, 2^-24 for f32;
/// 0 for integers.
double unit_roundoff(DType dtype);

}  // namespace ptxb
