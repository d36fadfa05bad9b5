#include "reference/attention_fp64.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace ptxb {
namespace {

void check(const AttentionShape& s, const std::vector<double>& q, const std::vector<double>& k,
           const std::vector<double>& v) {
  if (s.batch < 1 || s.heads < 1 || s.kv_heads < 1 || s.seq < 1 || s.head_dim < 1)
    throw InputError("attention shape: every size must be >= 1");
  if (s.heads % s.kv_heads != 0)
    throw InputError("attention shape: kv_heads " + std::to_string(s.kv_heads) +
                     " does not divide heads " + std::to_string(s.heads));
  if (static_cast<int64_t>(q.size()) != s.q_elements() ||
      static_cast<int64_t>(k.size()) != s.kv_elements() ||
      static_cast<int64_t>(v.size()) != s.kv_elements())
    throw InputError("attention inputs: sizes do not match the shape");
}

// Index helpers for [batch, heads, seq, head_dim] tensors.
struct Index {
  const AttentionShape& s;
  int64_t q(int64_t b, int64_t h, int64_t i) const {
    return ((b * s.heads + h) * s.seq + i) * s.head_dim;
  }
  int64_t kv(int64_t b, int64_t h, int64_t j) const {
    const int64_t kvh = h / (s.heads / s.kv_heads);
    return ((b * s.kv_heads + kvh) * s.seq + j) * s.head_dim;
  }
  int64_t row(int64_t b, int64_t h, int64_t i) const { return (b * s.heads + h) * s.seq + i; }
  bool visible(int64_t i, int64_t j) const { return !s.causal || j <= i; }
};

// Softmax probabilities of query row i (masked keys get 0) and its log-sum-exp.
double softmax_row(const Index& ix, const std::vector<double>& q, const std::vector<double>& k,
                   int64_t b, int64_t h, int64_t i, std::vector<double>& p) {
  const AttentionShape& s = ix.s;
  double max_score = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < s.seq; ++j) {
    p[j] = -std::numeric_limits<double>::infinity();
    if (!ix.visible(i, j)) continue;
    double dot = 0;
    for (int64_t d = 0; d < s.head_dim; ++d) dot += q[ix.q(b, h, i) + d] * k[ix.kv(b, h, j) + d];
    p[j] = s.scale * dot;
    max_score = std::max(max_score, p[j]);
  }
  double sum = 0;
  for (int64_t j = 0; j < s.seq; ++j) {
    p[j] = ix.visible(i, j) ? std::exp(p[j] - max_score) : 0.0;
    sum += p[j];
  }
  for (int64_t j = 0; j < s.seq; ++j) p[j] /= sum;
  return max_score + std::log(sum);
}

}  // namespace

AttentionForward attention_forward_fp64(const AttentionShape& s, const std::vector<double>& q,
                                        const std::vector<double>& k,
                                        const std::vector<double>& v) {
  check(s, q, k, v);
  const Index ix{s};
  AttentionForward out{std::vector<double>(q.size(), 0.0),
                       std::vector<double>(static_cast<size_t>(s.lse_elements()), 0.0)};
  std::vector<double> p(static_cast<size_t>(s.seq));
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads; ++h)
      for (int64_t i = 0; i < s.seq; ++i) {
        out.lse[ix.row(b, h, i)] = softmax_row(ix, q, k, b, h, i, p);
        for (int64_t j = 0; j < s.seq; ++j)
          for (int64_t d = 0; d < s.head_dim; ++d)
            out.out[ix.q(b, h, i) + d] += p[j] * v[ix.kv(b, h, j) + d];
      }
  return out;
}

AttentionGradients attention_backward_fp64(const AttentionShape& s, const std::vector<double>& q,
                                           const std::vector<double>& k,
                                           const std::vector<double>& v,
                                           const std::vector<double>& dout) {
  check(s, q, k, v);
  if (dout.size() != q.size()) throw InputError("attention dO: size does not match the shape");
  const Index ix{s};
  const AttentionForward fwd = attention_forward_fp64(s, q, k, v);
  AttentionGradients g{std::vector<double>(q.size(), 0.0), std::vector<double>(k.size(), 0.0),
                       std::vector<double>(v.size(), 0.0)};
  std::vector<double> p(static_cast<size_t>(s.seq)), dp(static_cast<size_t>(s.seq));
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads; ++h)
      for (int64_t i = 0; i < s.seq; ++i) {
        softmax_row(ix, q, k, b, h, i, p);
        double delta = 0;  // D_i = sum_d dO_id O_id
        for (int64_t d = 0; d < s.head_dim; ++d)
          delta += dout[ix.q(b, h, i) + d] * fwd.out[ix.q(b, h, i) + d];
        for (int64_t j = 0; j < s.seq; ++j) {
          dp[j] = 0;
          for (int64_t d = 0; d < s.head_dim; ++d) {
            dp[j] += dout[ix.q(b, h, i) + d] * v[ix.kv(b, h, j) + d];
            g.dv[ix.kv(b, h, j) + d] += p[j] * dout[ix.q(b, h, i) + d];
          }
        }
        for (int64_t j = 0; j < s.seq; ++j) {
          const double ds = p[j] * (dp[j] - delta);
          for (int64_t d = 0; d < s.head_dim; ++d) {
            g.dq[ix.q(b, h, i) + d] += s.scale * ds * k[ix.kv(b, h, j) + d];
            g.dk[ix.kv(b, h, j) + d] += s.scale * ds * q[ix.q(b, h, i) + d];
          }
        }
      }
  return g;
}

AttentionShape attention_shape(const Shape& shape) {
  AttentionShape s;
  s.batch = shape.at("B");
  s.heads = shape.at("H");
  s.kv_heads = shape.find("HKV").value_or(s.heads);
  s.seq = shape.at("S");
  s.head_dim = shape.at("D");
  s.causal = shape.find("causal").value_or(0) != 0;
  return s;
}

double attention_flops(const AttentionShape& s, bool backward) {
  double fwd = 4.0 * static_cast<double>(s.batch) * static_cast<double>(s.heads) *
               static_cast<double>(s.seq) * static_cast<double>(s.seq) *
               static_cast<double>(s.head_dim);
  if (s.causal) fwd /= 2;
  return backward ? 2.5 * fwd : fwd;
}

}  // namespace ptxb
