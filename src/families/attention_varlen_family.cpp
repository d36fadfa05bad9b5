// The variable-length attention forward family (docs/attention.md, "Variable-length prefill"): a
// ragged batch of B sequences packed along the token axis (THD layout), Q, O [T, H, D], K, V
// [T, HKV, D], cumulative sequence offsets cu_seqlens [B+1] (int32, on the device only), every
// sequence attending to itself only (causal or not). Scalars: scale, causal and max_seqlen (the
// longest sequence, S: what a kernel sizes its grid by, as FlashAttention's varlen API takes it).
// FLOPs: the sum over the sequences of 4 H len^2 D (halved when causal), from the lengths the
// shape implies (a task's cu_seqlens is `values = { kind = "sequence_offsets", total = "T",
// max = "S" }` with shape ["B+1"]: the lengths are a function of B, T and S).
#include <cmath>

#include "families/family.hpp"
#include "families/structured_values.hpp"
#include "reference/attention_varlen_fp64.hpp"

namespace ptxb {
namespace {

class AttentionVarlenFamily final : public Family {
 public:
  std::string_view name() const override { return "attention_fwd_varlen"; }
  std::vector<std::string> required_dims() const override { return {"B", "T", "S", "H", "D"}; }
  std::string dims_hint() const override {
    return "B sequences, T tokens in all, S the longest; HKV is optional, for grouped-query "
           "attention";
  }
  std::vector<std::string> scalars() const override { return {"scale", "causal", "max_seqlen"}; }
  std::vector<FamilyTensor> tensors() const override {
    return {{"Q", true, {DType::kBF16}},
            {"K", true, {DType::kBF16}},
            {"V", true, {DType::kBF16}},
            {"cu_seqlens", true, {DType::kI32}},
            {"O", false, {DType::kBF16, DType::kF32}}};
  }
  bool has_causal_flag() const override { return true; }
  std::vector<std::string> references() const override { return {"attention_fwd_varlen_fp32"}; }
  // 1: each sequence through the dense attention reference (fp64 products through cuBLASLt),
  // rounded to fp32 once.
  std::string reference_version(const std::string&) const override { return "1"; }
  std::vector<std::string> baselines() const override { return {"cudnn"}; }
  double flops(const Shape& s) const override {
    // NOTE: a shape whose sizes admit no batch gets 0 here; the loader then refuses it
    // (tasks/spec.cpp, check_sequence_offsets).
    if (!sequence_offsets_fit(s.at("B"), s.at("T"), s.at("S"))) return 0;
    return attention_varlen_flops(varlen_shape(s));
  }
  double scalar_value(const std::string& scalar, const Shape& s) const override {
    if (scalar == "scale") return 1.0 / std::sqrt(static_cast<double>(s.at("D")));
    if (scalar == "causal") return static_cast<double>(s.find("causal").value_or(0));
    if (scalar == "max_seqlen") return static_cast<double>(s.at("S"));
    return Family::scalar_value(scalar, s);
  }
  int report_rank() const override { return 7; }

  static VarlenAttentionShape varlen_shape(const Shape& s) {
    VarlenAttentionShape v;
    v.heads = s.at("H");
    v.kv_heads = s.find("HKV").value_or(v.heads);
    v.head_dim = s.at("D");
    v.causal = s.find("causal").value_or(0) != 0;
    v.scale = 1.0 / std::sqrt(static_cast<double>(v.head_dim));
    v.offsets = shape_sequence_offsets(s.at("B"), s.at("T"), s.at("S"));
    return v;
  }
};

}  // namespace

const Family& attention_varlen_family() {
  static const AttentionVarlenFamily kFamily;
  return kFamily;
}

}  // namespace ptxb
