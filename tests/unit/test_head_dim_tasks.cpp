// The attention tasks at one head dim each (fwd-bf16-d96, fwd-bf16-d256, bwd-bf16-d96): the spec of
// their base task at that head dim only, and the fp64 references at those head dims.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "random_values.hpp"
#include "reference/attention_fp64.hpp"
#include "shipped_tasks.hpp"
#include "tasks/spec.hpp"

namespace ptxb {
namespace {

using testing::catalog;
using testing::kTasksRoot;

struct HeadDimTask {
  const char* id;
  const char* base;  // the task it is at one head dim
  int64_t head_dim;
};

const HeadDimTask kTasks[] = {{"sm90/attention/fwd-bf16-d96", "sm90/attention/fwd-bf16", 96},
                              {"sm90/attention/fwd-bf16-d256", "sm90/attention/fwd-bf16", 256},
                              {"sm90/attention/bwd-bf16-d96", "sm90/attention/bwd-bf16", 96}};

void expect_same_tolerances(const DistributionSpec& a, const DistributionSpec& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.scale, b.scale);
  EXPECT_EQ(a.atol, b.atol);
  EXPECT_EQ(a.atol_rms, b.atol_rms);
  EXPECT_EQ(a.rtol, b.rtol);
  EXPECT_EQ(a.max_rel_frobenius, b.max_rel_frobenius);
  ASSERT_EQ(a.outputs.size(), b.outputs.size());
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    EXPECT_EQ(a.outputs[i].output, b.outputs[i].output);
    EXPECT_EQ(a.outputs[i].atol, b.outputs[i].atol);
  }
}

TEST(HeadDimTasks, AreTheirBaseTaskAtOneHeadDim) {
  for (const HeadDimTask& t : kTasks) {
    SCOPED_TRACE(t.id);
    const TaskSpec task = find_task(kTasksRoot, catalog(), t.id);
    const TaskSpec base = find_task(kTasksRoot, catalog(), t.base);
    EXPECT_EQ(task.family, base.family);
    EXPECT_EQ(task.dims, base.dims);
    EXPECT_EQ(task.scalars, base.scalars);
    EXPECT_EQ(task.baseline.library, base.baseline.library);
    EXPECT_EQ(task.correctness.reference, base.correctness.reference);
    EXPECT_EQ(task.correctness.seeds, base.correctness.seeds);
    ASSERT_EQ(task.correctness.distributions.size(), base.correctness.distributions.size());
    for (size_t i = 0; i < task.correctness.distributions.size(); ++i)
      expect_same_tolerances(task.correctness.distributions[i], base.correctness.distributions[i]);
    ASSERT_EQ(task.targets.size(), base.targets.size());
    for (size_t i = 0; i < task.targets.size(); ++i) {
      EXPECT_EQ(task.targets[i].instruction, base.targets[i].instruction);
      EXPECT_EQ(task.targets[i].required, base.targets[i].required);
      EXPECT_EQ(task.targets[i].min_flop_share, base.targets[i].min_flop_share);
      EXPECT_EQ(task.targets[i].max_nontarget_flop_share, base.targets[i].max_nontarget_flop_share);
    }
    // Every shape at the head dim; timed with and without the mask and one hidden timed shape;
    // a ragged length (no multiple of 64) among the hidden shapes.
    bool timed_causal = false, timed_full = false, hidden_timed = false, ragged = false;
    for (const ShapeCase& c : task.shapes) {
      EXPECT_EQ(c.shape.at("D"), t.head_dim) << c.shape.to_string();
      const bool causal = c.shape.find("causal").value_or(0) != 0;
      if (c.timed && !c.hidden) (causal ? timed_causal : timed_full) = true;
      if (c.timed && c.hidden) hidden_timed = true;
      if (c.hidden && c.shape.at("S") % 64 != 0) ragged = true;
    }
    EXPECT_TRUE(timed_causal && timed_full && hidden_timed && ragged);
    // The scale the ABI passes is 1/sqrt(D).
    EXPECT_DOUBLE_EQ(scalar_values(task, task.shapes.front().shape).front(),
                     1.0 / std::sqrt(static_cast<double>(t.head_dim)));
  }
}

// At the head dims 96 and 256, all scores equal (Q = 0) make O the mean of the visible values and
// LSE the log of their count, as at any head dim.
TEST(HeadDimTasks, ForwardReferenceAveragesUniformScores) {
  for (const int64_t d : {96, 256})
    for (const bool causal : {false, true}) {
      AttentionShape s{1, 2, 1, 5, d, causal, 1.0 / std::sqrt(double(d))};
      const std::vector<double> q(static_cast<size_t>(s.q_elements()), 0.0);
      const auto k = random_values(s.kv_elements(), 21), v = random_values(s.kv_elements(), 22);
      const AttentionForward f = attention_forward_fp64(s, q, k, v);
      for (int64_t h = 0; h < s.heads; ++h)
        for (int64_t i = 0; i < s.seq; ++i) {
          const int64_t visible = causal ? i + 1 : s.seq;
          EXPECT_NEAR(f.lse[h * s.seq + i], std::log(double(visible)), 1e-12);
          for (int64_t c = 0; c < d; ++c) {
            double mean = 0;
            for (int64_t j = 0; j < visible; ++j) mean += v[j * d + c];
            EXPECT_NEAR(f.out[(h * s.seq + i) * d + c], mean / visible, 1e-12);
          }
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

// The backward reference at D 96 against central finite differences of sum(O * dO).
TEST(HeadDimTasks, BackwardReferenceMatchesFiniteDifferencesAtD96) {
  AttentionShape s{1, 1, 1, 3, 96, true, 1.0 / std::sqrt(96.0)};
  auto q = random_values(s.q_elements(), 23), k = random_values(s.kv_elements(), 24),
       v = random_values(s.kv_elements(), 25);
  const auto dout = random_values(s.q_elements(), 26);
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
  check(k, g.dk, "dK");
  check(v, g.dv, "dV");
}

}  // namespace
}  // namespace ptxb
