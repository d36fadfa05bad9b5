#include "worker/family_device.hpp"

#include <vector>

#include "core/error.hpp"

namespace ptxb {

// The modules' accessors (each defined in its module file).
const FamilyDevice& gemm_device();
const FamilyDevice& attention_fwd_device();
const FamilyDevice& attention_bwd_device();
const FamilyDevice& gemm_bias_gelu_device();
const FamilyDevice& gemm_fp8_device();
const FamilyDevice& gemm_fp8_blockwise_device();
const FamilyDevice& gemm_grouped_device();
const FamilyDevice& attention_varlen_device();
const FamilyDevice& attention_paged_device();

const FamilyDevice& family_device(std::string_view name) {
  static const std::vector<const FamilyDevice*> kAll = {
      &gemm_device(),           &attention_fwd_device(),    &attention_bwd_device(),
      &gemm_bias_gelu_device(), &gemm_fp8_device(),         &gemm_fp8_blockwise_device(),
      &gemm_grouped_device(),   &attention_varlen_device(), &attention_paged_device()};
  for (const FamilyDevice* f : kAll)
    if (f->name() == name) return *f;
  PTXB_ASSERT(false, "no GPU module for family '" + std::string(name) + "'");
  return *kAll[0];
}

}  // namespace ptxb
