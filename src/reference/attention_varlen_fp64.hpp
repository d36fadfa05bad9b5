// Variable-length (ragged batch) attention forward in fp64 on the CPU: the definition that a
// variable-length prefill task's GPU reference and solutions are checked against. B sequences of
// lengths len_b = offsets[b+1] - offsets[b] are packed one after the other along the token axis
// (the THD layout): Q, O [T, H, D], K, V [T, HKV, D] (T = offsets[B], row-major, grouped-query as
// in attention_fp64.hpp), LSE [T, H]. Each sequence attends to itself only (causal: key j of a
// sequence masked for its query i when j > i, positions counted from the sequence's start), so
// its rows equal attention_forward_fp64 of that sequence alone.
#pragma once

#include <cstdint>
#include <vector>

#include "reference/attention_fp64.hpp"

namespace ptxb {

struct VarlenAttentionShape {
  int64_t heads = 1;
  int64_t kv_heads = 1;  ///< divides heads
  int64_t head_dim = 1;
  bool causal = false;
  double scale = 1.0;
  std::vector<int64_t> offsets;  ///< B+1 non-decreasing token offsets from 0 to T

  int64_t batch() const { return static_cast<int64_t>(offsets.size()) - 1; }
  int64_t tokens() const { return offsets.empty() ? 0 : offsets.back(); }
  int64_t q_elements() const { return tokens() * heads * head_dim; }
  int64_t kv_elements() const { return tokens() * kv_heads * head_dim; }
};

/// out [T, H, D] and lse [T, H]. Throws InputError when the offsets or a buffer size are invalid.
AttentionForward attention_varlen_forward_fp64(const VarlenAttentionShape& s,
                                               const std::vector<double>& q,
                                               const std::vector<double>& k,
                                               const std::vector<double>& v);

/// The matrix-product FLOPs of the batch: the sum over its sequences of attention_flops of one
/// sequence (4 H len^2 D, halved when causal).
double attention_varlen_flops(const VarlenAttentionShape& s);

}  // namespace ptxb
