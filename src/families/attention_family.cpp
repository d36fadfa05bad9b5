// The attention families, forward and backward (docs/attention.md): softmax(Q K^T * scale) V with
// an optional causal mask and grouped-query heads, FLOPs 4*B*H*S^2*D (halved when causal; the
// backward counted as 2.5 times the forward).
#include <cmath>

#include "families/family.hpp"
#include "reference/attention_fp64.hpp"

namespace ptxb {
namespace {

class AttentionFamily final : public Family {
 public:
  explicit AttentionFamily(bool backward) : backward_(backward) {}
  std::string_view name() const override { return backward_ ? "attention_bwd" : "attention_fwd"; }
  std::vector<std::string> required_dims() const override { return {"B", "H", "S", "D"}; }
  std::string dims_hint() const override { return "HKV is optional, for grouped-query attention"; }
  std::vector<std::string> scalars() const override { return {"scale", "causal"}; }
  std::vector<FamilyTensor> tensors() const override {
    // The fp32 references read bf16 Q, K, V, O, dO and an fp32 LSE; outputs are compared as
    // bf16 or f32.
    const std::vector<DType> bf16 = {DType::kBF16}, f32 = {DType::kF32};
    const std::vector<DType> out = {DType::kBF16, DType::kF32};
    if (!backward_)
      return {{"Q", true, bf16},
              {"K", true, bf16},
              {"V", true, bf16},
              {"O", false, out},
              {"LSE", false, f32}};
    return {{"Q", true, bf16},  {"K", true, bf16},  {"V", true, bf16},
            {"O", true, bf16},  {"dO", true, bf16}, {"LSE", true, f32},
            {"dQ", false, out}, {"dK", false, out}, {"dV", false, out}};
  }
  bool has_causal_flag() const override { return true; }
  std::vector<std::string> references() const override {
    return {backward_ ? "attention_bwd_fp32" : "attention_fwd_fp32"};
  }
  // 2: computed in fp64 (matrix products through cuBLASLt), outputs rounded to fp32 once; 1 was
  // fp32 SIMT throughout.
  std::string reference_version(const std::string&) const override { return "2"; }
  std::vector<std::string> baselines() const override { return {"cudnn"}; }
  double flops(const Shape& s) const override {
    return attention_flops(attention_shape(s), backward_);
  }
  double scalar_value(const std::string& scalar, const Shape& s) const override {
    if (scalar == "scale") return 1.0 / std::sqrt(static_cast<double>(s.at("D")));
    if (scalar == "causal") return static_cast<double>(s.find("causal").value_or(0));
    return Family::scalar_value(scalar, s);
  }
  int report_rank() const override { return backward_ ? 2 : 1; }

 private:
  bool backward_;
};

}  // namespace

const Family& attention_fwd_family() {
  static const AttentionFamily kFamily(false);
  return kFamily;
}

const Family& attention_bwd_family() {
  static const AttentionFamily kFamily(true);
  return kFamily;
}

}  // namespace ptxb
