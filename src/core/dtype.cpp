#include "core/dtype.hpp"

#include <array>
#include <utility>

namespace ptxb {
namespace {
struct DTypeInfo {
  DType dtype;
  std::string_view name;
  int64_t bytes;
  double roundoff;
};
constexpr std::array<DTypeInfo, 8> kInfo{{
    {DType::kBF16, "bf16", 2, 0x1p-8},
    {DType::kF16, "f16", 2, 0x1p-11},
    {DType::kF32, "f32", 4, 0x1p-24},
    {DType::kF8E4M3, "e4m3", 1, 0x1p-4},
    {DType::kF8E5M2, "e5m2", 1, 0x1p-3},
    {DType::kF64, "f64", 8, 0x1p-53},
    {DType::kI32, "int32", 4, 0},
    {DType::kI64, "int64", 8, 0},
}};
const DTypeInfo& info(DType dtype) {
  for (const auto& i : kInfo)
    if (i.dtype == dtype) return i;
  return kInfo[0];  // unreachable for valid enumerators
}
}  // namespace

std::string_view to_string(DType dtype) { return info(dtype).name; }
int64_t size_bytes(DType dtype) { return info(dtype).bytes; }
double unit_roundoff(DType dtype) { return info(dtype).roundoff; }
bool is_integer(DType dtype) { return dtype == DType::kI32 || dtype == DType::kI64; }

std::optional<DType> dtype_from_string(std::string_view name) {
  for (const auto& i : kInfo)
    if (i.name == name) return i.dtype;
  return std::nullopt;
}

}  // namespace ptxb
