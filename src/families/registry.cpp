// The family registry: the list of family modules. A new family adds its module file
// (families/NAME_family.cpp, defining the accessor) and its accessor to the list below.
#include <vector>

#include "core/error.hpp"
#include "families/family.hpp"

namespace ptxb {

// The modules' accessors (each defined in its module file).
const Family& gemm_family();
const Family& attention_fwd_family();
const Family& attention_bwd_family();
const Family& gemm_bias_gelu_family();
const Family& gemm_fp8_family();
const Family& gemm_fp8_blockwise_family();
const Family& gemm_grouped_family();
const Family& attention_varlen_family();
const Family& attention_paged_family();

namespace {

// Every family, in report order.
const std::vector<const Family*>& all_families() {
  static const std::vector<const Family*> kAll = {
      &gemm_family(),           &attention_fwd_family(),    &attention_bwd_family(),
      &gemm_bias_gelu_family(), &gemm_fp8_family(),         &gemm_fp8_blockwise_family(),
      &gemm_grouped_family(),   &attention_varlen_family(), &attention_paged_family()};
  return kAll;
}

}  // namespace

double Family::scalar_value(const std::string& scalar, const Shape&) const {
  PTXB_ASSERT(false, "family " + std::string(name()) + " has no scalar '" + scalar + "'");
  return 0;
}

const Family* find_family(std::string_view name) {
  for (const Family* f : all_families())
    if (f->name() == name) return f;
  return nullptr;
}

const Family& family_of(std::string_view name) {
  const Family* f = find_family(name);
  PTXB_ASSERT(f != nullptr, "no family '" + std::string(name) + "'");
  return *f;
}

const std::vector<std::string>& known_families() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const Family* f : all_families()) names.emplace_back(f->name());
    return names;
  }();
  return kNames;
}

}  // namespace ptxb
