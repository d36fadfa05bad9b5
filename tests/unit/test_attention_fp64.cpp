// The fp64 CPU attention reference against closed-form cases (uniform scores, one-hot keys),
// grouped-query heads against duplicated heads (forward and backward), and its backward pass
// against central finite differences of L = sum(O * dO).
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "families/family.hpp"
#include "random_values.hpp"
#include "reference/attention_fp64.hpp"
#include "tasks/spec.hpp"

namespace ptxb {
namespace {

TEST(AttentionFp64, UniformScoresAverageTheVisibleValues) {
  for (const bool causal : {false, true}) {
    AttentionShape s{1, 2, 2, 6, 3, causal, 0.5};
    const std::vector<double> q(static_cast<size_t>(s.q_elements()), 0.0);  // all scores 0
    const auto k = random_values(s.kv_elements(), 1), v = random_values(s.kv_elements(), 2);
    const AttentionForward f = attention_forward_fp64(s, q, k, v);
    for (int64_t h = 0; h < s.heads; ++h)
      for (int64_t i = 0; i < s.seq; ++i) {
        const int64_t visible = causal ? i + 1 : s.seq;
        EXPECT_NEAR(f.lse[h * s.seq + i], std::log(double(visible)), 1e-12);
        for (int64_t d = 0; d < s.head_dim; ++d) {
          double mean = 0;
          for (int64_t j = 0; j < visible; ++j) mean += v[(h * s.seq + j) * s.head_dim + d];
          EXPECT_NEAR(f.out[(h * s.seq + i) * s.head_dim + d], mean / visible, 1e-12);
        }
      }
  }
}

TEST(AttentionFp64, OneHotKeysSelectOneValue) {
  // Q_i = e_i, K_j = 50 e_j: query i scores 50 on key i and 0 elsewhere.
  AttentionShape s{1, 1, 1, 4, 4, false, 1.0};
  std::vector<double> q(16, 0.0), k(16, 0.0);
  for (int i = 0; i < 4; ++i) q[i * 4 + i] = 1, k[i * 4 + i] = 50;
  const auto v = random_values(16, 3);
  const AttentionForward f = attention_forward_fp64(s, q, k, v);
  for (int i = 0; i < 16; ++i) EXPECT_NEAR(f.out[i], v[i], 1e-18 + 1e-15 * std::fabs(v[i]));
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(f.lse[i], 50 + std::log1p(3 * std::exp(-50.0)), 1e-12);
}

TEST(AttentionFp64, GroupedQueryHeadsEqualDuplicatedKvHeads) {
  AttentionShape gqa{2, 4, 2, 5, 3, true, 0.7};
  AttentionShape mha = gqa;
  mha.kv_heads = 4;
  const auto q = random_values(gqa.q_elements(), 4), k = random_values(gqa.kv_elements(), 5),
             v = random_values(gqa.kv_elements(), 6);
  std::vector<double> k4, v4;  // kv head h/2 copied to heads h
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t h = 0; h < 4; ++h)
      for (int64_t e = 0; e < 5 * 3; ++e) {
        k4.push_back(k[(b * 2 + h / 2) * 15 + e]);
        v4.push_back(v[(b * 2 + h / 2) * 15 + e]);
      }
  const AttentionForward a = attention_forward_fp64(gqa, q, k, v);
  const AttentionForward b = attention_forward_fp64(mha, q, k4, v4);
  for (size_t i = 0; i < a.out.size(); ++i) EXPECT_DOUBLE_EQ(a.out[i], b.out[i]);
}

// The backward with groups of G query heads per kv head equals the plain multi-head backward with
// every kv head copied G times, dK and dV summed over the copies: what sm90/attention/bwd-bf16-gqa
// asks for, with groups of 2, 4 and 8 and a single kv head.
TEST(AttentionFp64, GroupedQueryBackwardSumsTheGroupsGradients) {
  for (const int64_t kv_heads : {4, 2, 1}) {
    AttentionShape gqa{2, 8, kv_heads, 6, 3, kv_heads == 2, 0.7};
    AttentionShape mha = gqa;
    mha.kv_heads = gqa.heads;
    const int64_t group = gqa.heads / kv_heads, slice = gqa.seq * gqa.head_dim;
    const auto q = random_values(gqa.q_elements(), 21), k = random_values(gqa.kv_elements(), 22),
               v = random_values(gqa.kv_elements(), 23), dout = random_values(gqa.q_elements(), 24);
    std::vector<double> k_copied, v_copied;
    for (int64_t b = 0; b < gqa.batch; ++b)
      for (int64_t h = 0; h < gqa.heads; ++h)
        for (int64_t e = 0; e < slice; ++e) {
          k_copied.push_back(k[(b * kv_heads + h / group) * slice + e]);
          v_copied.push_back(v[(b * kv_heads + h / group) * slice + e]);
        }
    const AttentionGradients g = attention_backward_fp64(gqa, q, k, v, dout);
    const AttentionGradients m = attention_backward_fp64(mha, q, k_copied, v_copied, dout);
    for (size_t i = 0; i < g.dq.size(); ++i) EXPECT_NEAR(g.dq[i], m.dq[i], 1e-12) << "dQ " << i;
    std::vector<double> dk_sum(g.dk.size(), 0.0), dv_sum(g.dv.size(), 0.0);
    for (int64_t b = 0; b < gqa.batch; ++b)
      for (int64_t h = 0; h < gqa.heads; ++h)
        for (int64_t e = 0; e < slice; ++e) {
          const int64_t to = (b * kv_heads + h / group) * slice + e;
          dk_sum[to] += m.dk[(b * gqa.heads + h) * slice + e];
          dv_sum[to] += m.dv[(b * gqa.heads + h) * slice + e];
        }
    for (size_t i = 0; i < g.dk.size(); ++i) {
      EXPECT_NEAR(g.dk[i], dk_sum[i], 1e-12) << "dK " << i << " with " << kv_heads << " kv heads";
      EXPECT_NEAR(g.dv[i], dv_sum[i], 1e-12) << "dV " << i << " with " << kv_heads << " kv heads";
    }
  }
}

double loss(const AttentionShape& s, const std::vector<double>& q, const std::vector<double>& k,
            const std::vector<double>& v, const std::vector<double>& dout) {
  const AttentionForward f = attention_forward_fp64(s, q, k, v);
  double l = 0;
  for (size_t i = 0; i < dout.size(); ++i) l += f.out[i] * dout[i];
  return l;
}

TEST(AttentionFp64, BackwardMatchesFiniteDifferences) {
  for (const bool causal : {false, true}) {
    AttentionShape s{1, 2, 1, 5, 3, causal, 0.6};
    auto q = random_values(s.q_elements(), 7), k = random_values(s.kv_elements(), 8),
         v = random_values(s.kv_elements(), 9);
    const auto dout = random_values(s.q_elements(), 10);
    const AttentionGradients g = attention_backward_fp64(s, q, k, v, dout);
    const double eps = 1e-6;
    auto check = [&](std::vector<double>& x, const std::vector<double>& grad, const char* name) {
      for (size_t i = 0; i < x.size(); ++i) {
        const double keep = x[i];
        x[i] = keep + eps;
        const double up = loss(s, q, k, v, dout);
        x[i] = keep - eps;
        const double down = loss(s, q, k, v, dout);
        x[i] = keep;
        EXPECT_NEAR(grad[i], (up - down) / (2 * eps), 1e-7) << name << "[" << i << "]";
      }
    };
    check(q, g.dq, "dQ");
    check(k, g.dk, "dK");  // K and V feed both query heads: the sums over heads are checked too
    check(v, g.dv, "dV");
  }
}

TEST(AttentionFp64, FlopsFollowTheConvention) {
  AttentionShape s{4, 16, 16, 4096, 128, false, 1.0};
  EXPECT_DOUBLE_EQ(attention_flops(s, false), 4.0 * 4 * 16 * 4096.0 * 4096 * 128);
  EXPECT_DOUBLE_EQ(attention_flops(s, true), 2.5 * attention_flops(s, false));
  s.causal = true;
  EXPECT_DOUBLE_EQ(attention_flops(s, false), 2.0 * 4 * 16 * 4096.0 * 4096 * 128);
}

TEST(AttentionFp64, TaskFlopsUseTheCausalParameterAndTheDims) {
  const Family& family = family_of("attention_bwd");
  Shape shape{{{"B", 4}, {"H", 16}, {"HKV", 4}, {"S", 4096}, {"D", 128}, {"causal", 1}}};
  EXPECT_DOUBLE_EQ(family.flops(shape), 2.5 * 2.0 * 4 * 16 * 4096.0 * 4096 * 128);
  shape.dims.back().second = 0;
  EXPECT_DOUBLE_EQ(family.flops(shape), 2.5 * 4.0 * 4 * 16 * 4096.0 * 4096 * 128);
}

TEST(AttentionFp64, ShapeDimsWithTheirDefaults) {
  const AttentionShape gqa = attention_shape(
      Shape{{{"B", 2}, {"H", 16}, {"HKV", 4}, {"S", 1000}, {"D", 128}, {"causal", 1}}});
  EXPECT_EQ(gqa.batch, 2);
  EXPECT_EQ(gqa.heads, 16);
  EXPECT_EQ(gqa.kv_heads, 4);
  EXPECT_EQ(gqa.seq, 1000);
  EXPECT_EQ(gqa.head_dim, 128);
  EXPECT_TRUE(gqa.causal);
  // Without HKV every query head has its own key/value head; without causal, no mask.
  const AttentionShape plain = attention_shape(Shape{{{"B", 1}, {"H", 8}, {"S", 64}, {"D", 64}}});
  EXPECT_EQ(plain.kv_heads, 8);
  EXPECT_FALSE(plain.causal);
}

TEST(AttentionFp64, ScalarsFollowTheShape) {
  TaskSpec task;
  task.family = "attention_fwd";
  task.scalars = {"scale", "causal"};
  const Shape shape{{{"B", 1}, {"H", 2}, {"S", 8}, {"D", 64}, {"causal", 1}}};
  EXPECT_EQ(scalar_values(task, shape), (std::vector<double>{0.125, 1.0}));
  task.scalars = {"causal"};
  EXPECT_EQ(scalar_values(task, Shape{{{"D", 128}}}), (std::vector<double>{0.0}));
  EXPECT_TRUE(family_of("gemm").scalars().empty());
}

TEST(AttentionFp64, BadShapesAreInputErrors) {
  AttentionShape s{1, 3, 2, 4, 2, false, 1.0};
  const std::vector<double> q(24), kv(16);
  EXPECT_THROW(attention_forward_fp64(s, q, kv, kv), InputError) << "2 does not divide 3";
  s.kv_heads = 1;
  EXPECT_THROW(attention_forward_fp64(s, q, kv, kv), InputError) << "kv buffers too large";
}

}  // namespace
}  // namespace ptxb
