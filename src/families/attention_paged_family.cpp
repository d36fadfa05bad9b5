// The paged decode attention family (docs/attention.md, "Decode over a paged KV cache"): B
// sequences, each with SQ new query tokens (1-8) against its KV history of len_b tokens (the new
// ones included, as its last SQ positions), the history held in pages of P tokens of a shared
// pool of NP pages. Q, O [B, SQ, H, D]; K_cache, V_cache [NP, P, HKV, D] (the vLLM layout);
// seq_lens [B] (int32, `values = { kind = "sequence_lengths", total = "T", max = "SK", min =
// "SMIN" }`: T KV tokens in all, the longest SK, none shorter than SMIN; a task needs SMIN >= SQ,
// the new tokens being part of the history, since without `min` the lengths start at 1);
// page_table [B, W] (int32, `values = { kind = "page_table", lengths = "seq_lens", page = "P",
// pages = "NP" }`); LSE [B, SQ, H]. Masking is causal and bottom-right aligned
// (reference/attention_paged_fp64.hpp). Scalars: scale and max_seqlen (SK). FLOPs: 4 H D SQ len_b
// summed over the lengths the shape implies, as attention_paged_decode_flops counts them (the
// causal triangle of the new tokens is not subtracted): 4 H D SQ T, whatever the mix.
#include <cmath>

#include "families/family.hpp"
#include "families/structured_values.hpp"
#include "reference/attention_paged_fp64.hpp"

namespace ptxb {
namespace {

class AttentionPagedFamily final : public Family {
 public:
  std::string_view name() const override { return "attention_decode_paged"; }
  std::vector<std::string> required_dims() const override {
    return {"B", "SQ", "T", "SK", "H", "HKV", "D", "P", "NP", "W"};
  }
  std::string dims_hint() const override {
    return "B sequences of SQ new tokens, T KV tokens in all, SK the longest history; H query "
           "and HKV key/value heads of D; pages of P tokens, NP in the pool, W per table row; "
           "SMIN (at least SQ; optional in the schema) the shortest history";
  }
  std::vector<std::string> scalars() const override { return {"scale", "max_seqlen"}; }
  std::vector<FamilyTensor> tensors() const override {
    return {{"Q", true, {DType::kBF16}},         {"K_cache", true, {DType::kBF16}},
            {"V_cache", true, {DType::kBF16}},   {"seq_lens", true, {DType::kI32}},
            {"page_table", true, {DType::kI32}}, {"O", false, {DType::kBF16, DType::kF32}},
            {"LSE", false, {DType::kF32}}};
  }
  std::vector<std::string> references() const override { return {"attention_decode_paged_fp32"}; }
  std::string reference_version(const std::string&) const override { return "1"; }
  std::vector<std::string> baselines() const override { return {"cudnn"}; }
  double flops(const Shape& s) const override {
    // NOTE: a shape whose sizes admit no batch gets 0 here; the loader then refuses it
    // (tasks/spec.cpp, check_sequence_offsets).
    const int64_t min_len = s.find("SMIN").value_or(1);  // as the worker draws (min_length)
    if (!sequence_lengths_fit(s.at("B"), s.at("T"), s.at("SK"), min_len)) return 0;
    PagedDecodeShape p;
    p.q_len = s.at("SQ");
    p.heads = s.at("H");
    p.head_dim = s.at("D");
    p.seq_lens = shape_sequence_lengths(s.at("B"), s.at("T"), s.at("SK"), min_len);
    return attention_paged_decode_flops(p);
  }
  double scalar_value(const std::string& scalar, const Shape& s) const override {
    if (scalar == "scale") return 1.0 / std::sqrt(static_cast<double>(s.at("D")));
    if (scalar == "max_seqlen") return static_cast<double>(s.at("SK"));
    return Family::scalar_value(scalar, s);
  }
  int report_rank() const override { return 8; }
};

}  // namespace

const Family& attention_paged_family() {
  static const AttentionPagedFamily kFamily;
  return kFamily;
}

}  // namespace ptxb
