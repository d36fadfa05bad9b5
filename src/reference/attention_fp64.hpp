// Scaled-dot-product attention in fp64 on the CPU, forward and backward: the plain, obviously
// correct definition that the fp32 GPU reference and the attention tasks are checked against on
// small shapes. Shares no code with baselines or solutions.
//
// Layout (row-major, contiguous): Q, O, dO, dQ [batch, heads, seq, head_dim]; K, V, dK, dV
// [batch, kv_heads, seq, head_dim] (grouped-query attention: query head h reads kv head
// h / (heads / kv_heads)); LSE [batch, heads, seq].
// Definitions: S = scale * Q K^T, with key j masked out for query i when causal and j > i;
// P = softmax(S) row-wise; O = P V; LSE_i = log(sum_j exp(S_ij)) (natural log).
// Backward of L with dL/dO = dO: dV = P^T dO; dP = dO V^T; D_i = sum_d dO_id O_id;
// dS = P * (dP - D); dQ = scale * dS K; dK = scale * dS^T Q (dK, dV summed over the query heads
// that share a kv head).
#pragma once

#include <cstdint>
#include <vector>

#include "core/shape.hpp"

namespace ptxb {

struct AttentionShape {
  int64_t batch = 1;
  int64_t heads = 1;     ///< query heads
  int64_t kv_heads = 1;  ///< key/value heads; divides heads
  int64_t seq = 1;       ///< query and key length
  int64_t head_dim = 1;
  bool causal = false;
  double scale = 1.0;  ///< softmax scale, usually 1/sqrt(head_dim)

  int64_t q_elements() const { return batch * heads * seq * head_dim; }
  int64_t kv_elements() const { return batch * kv_heads * seq * head_dim; }
  int64_t lse_elements() const { return batch * heads * seq; }
};

struct AttentionForward {
  std::vector<double> out;  ///< O
  std::vector<double> lse;  ///< LSE
};

struct AttentionGradients {
  std::vector<double> dq, dk, dv;
};

/// Throws InputError when the shape is invalid or a buffer has the wrong size.
AttentionForward attention_forward_fp64(const AttentionShape& s, const std::vector<double>& q,
                                        const std::vector<double>& k, const std::vector<double>& v);

/// Recomputes P from Q, K (the definition above); `dout` is dL/dO.
AttentionGradients attention_backward_fp64(const AttentionShape& s, const std::vector<double>& q,
                                           const std::vector<double>& k,
                                           const std::vector<double>& v,
                                           const std::vector<double>& dout);

/// Matrix-product FLOPs: forward 4 * batch * heads * seq^2 * head_dim (QK^T and PV), halved when
/// causal; backward 2.5 times the forward (five products instead of two), the convention of the
/// FlashAttention papers and of the cuDNN figures PTXBench compares with (docs/attention.md).
double attention_flops(const AttentionShape& s, bool backward);

/// The sizes of an attention task's shape: dims B, H, HKV (H when absent: no grouped-query
/// heads), S, D and the `causal` parameter (0 when absent). The scale keeps its default: it is
/// the task's scalar rule's to set.
AttentionShape attention_shape(const Shape& shape);

}  // namespace ptxb
