#include "reference/attention_varlen_fp64.hpp"

#include <string>

#include "core/error.hpp"

namespace ptxb {
namespace {

void check(const VarlenAttentionShape& s, const std::vector<double>& q,
           const std::vector<double>& k, const std::vector<double>& v) {
  if (s.offsets.size() < 2 || s.offsets.front() != 0)
    throw InputError("varlen attention: offsets must start at 0 and hold B+1 >= 2 values");
  for (size_t b = 0; b + 1 < s.offsets.size(); ++b)
    if (s.offsets[b + 1] < s.offsets[b])
      throw InputError("varlen attention: offsets decrease at sequence " + std::to_string(b));
  if (static_cast<int64_t>(q.size()) != s.q_elements() ||
      static_cast<int64_t>(k.size()) != s.kv_elements() ||
      static_cast<int64_t>(v.size()) != s.kv_elements())
    throw InputError("varlen attention: a buffer's size does not match the offsets and heads");
}

// Sequence b's tokens of a [T, heads, D] tensor, as [1, heads, len, D].
std::vector<double> gather(const std::vector<double>& x, int64_t first, int64_t len, int64_t heads,
                           int64_t dim) {
  std::vector<double> out(static_cast<size_t>(len * heads * dim));
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t t = 0; t < len; ++t)
      for (int64_t d = 0; d < dim; ++d)
        out[static_cast<size_t>((h * len + t) * dim + d)] =
            x[static_cast<size_t>(((first + t) * heads + h) * dim + d)];
  return out;
}

AttentionShape sequence_shape(const VarlenAttentionShape& s, int64_t len) {
  return {1, s.heads, s.kv_heads, len, s.head_dim, s.causal, s.scale};
}

}  // namespace

AttentionForward attention_varlen_forward_fp64(const VarlenAttentionShape& s,
                                               const std::vector<double>& q,
                                               const std::vector<double>& k,
                                               const std::vector<double>& v) {
  check(s, q, k, v);
  AttentionForward out{std::vector<double>(q.size(), 0.0),
                       std::vector<double>(static_cast<size_t>(s.tokens() * s.heads), 0.0)};
  for (int64_t b = 0; b < s.batch(); ++b) {
    const int64_t first = s.offsets[b], len = s.offsets[b + 1] - first;
    if (len == 0) continue;
    const AttentionForward one =
        attention_forward_fp64(sequence_shape(s, len), gather(q, first, len, s.heads, s.head_dim),
                               gather(k, first, len, s.kv_heads, s.head_dim),
                               gather(v, first, len, s.kv_heads, s.head_dim));
    for (int64_t h = 0; h < s.heads; ++h)
      for (int64_t t = 0; t < len; ++t) {
        out.lse[static_cast<size_t>((first + t) * s.heads + h)] =
            one.lse[static_cast<size_t>(h * len + t)];
        for (int64_t d = 0; d < s.head_dim; ++d)
          out.out[static_cast<size_t>(((first + t) * s.heads + h) * s.head_dim + d)] =
              one.out[static_cast<size_t>((h * len + t) * s.head_dim + d)];
      }
  }
  return out;
}

double attention_varlen_flops(const VarlenAttentionShape& s) {
  double flops = 0;
  for (int64_t b = 0; b < s.batch(); ++b)
    flops += attention_flops(sequence_shape(s, s.offsets[b + 1] - s.offsets[b]), false);
  return flops;
}

}  // namespace ptxb
