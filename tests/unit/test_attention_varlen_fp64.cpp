// Variable-length attention on the CPU (reference/attention_varlen_fp64.hpp) and the ragged
// batches it is drawn on (families/structured_values.hpp, draw_sequence_offsets): every sequence
// attends to itself only, as if alone; the offsets cover the tokens with lengths from a single
// token to the batch's maximum.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.hpp"
#include "families/structured_values.hpp"
#include "random_values.hpp"
#include "reference/attention_varlen_fp64.hpp"

namespace ptxb {
namespace {

TEST(SequenceOffsets, CoverTheTokensWithLengthsFromOneToTheMaximum) {
  struct Case {
    int64_t batch, total, max_len;
  };
  for (const Case c : {Case{16, 40000, 16384}, Case{64, 9000, 4096}, Case{7, 7 * 300, 300},
                       Case{5, 4 + 1000, 1000}, Case{1, 77, 77}, Case{300, 300 * 17, 64}})
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      const std::vector<int64_t> o = draw_sequence_offsets(c.batch, c.total, c.max_len, seed);
      ASSERT_EQ(static_cast<int64_t>(o.size()), c.batch + 1);
      EXPECT_EQ(o.front(), 0);
      EXPECT_EQ(o.back(), c.total);
      int64_t longest = 0;
      for (size_t b = 0; b + 1 < o.size(); ++b) {
        const int64_t len = o[b + 1] - o[b];
        EXPECT_GE(len, 1) << "sequence " << b << " seed " << seed;
        EXPECT_LE(len, c.max_len) << "sequence " << b << " seed " << seed;
        longest = std::max(longest, len);
      }
      EXPECT_EQ(longest, c.max_len) << "the batch's maximum is the shape's";
      EXPECT_EQ(draw_sequence_offsets(c.batch, c.total, c.max_len, seed), o) << "same seed";
    }
  // A mixed batch: single tokens beside long prompts.
  const std::vector<int64_t> o = draw_sequence_offsets(64, 64 * 2000, 16384, 3);
  int64_t single = 0, long_ones = 0;
  for (size_t b = 0; b + 1 < o.size(); ++b) {
    single += o[b + 1] - o[b] == 1;
    long_ones += o[b + 1] - o[b] >= 4096;
  }
  EXPECT_GT(single, 0);
  EXPECT_GT(long_ones, 0);
  EXPECT_NE(draw_sequence_offsets(8, 1000, 500, 1), draw_sequence_offsets(8, 1000, 500, 2));
}

// A task's lengths are a function of its shape (the "sequence_offsets" kind): the same B, T, S
// give the same batch, another T another one; the family's FLOPs sum over those lengths.
TEST(SequenceOffsets, AShapeHasOneBatch) {
  EXPECT_EQ(shape_sequence_offsets(16, 32768, 16384), shape_sequence_offsets(16, 32768, 16384));
  EXPECT_NE(shape_sequence_offsets(16, 32768, 16384), shape_sequence_offsets(16, 32769, 16384));
  EXPECT_TRUE(sequence_offsets_fit(3, 300, 200));
  EXPECT_FALSE(sequence_offsets_fit(3, 601, 200));
  EXPECT_FALSE(sequence_offsets_fit(3, 201, 200));
  const std::vector<int64_t> o = shape_sequence_offsets(5, 700, 256);
  VarlenAttentionShape s{8, 2, 128, true, 1.0, o};
  double flops = 0;
  for (size_t b = 0; b + 1 < o.size(); ++b) {
    const double len = static_cast<double>(o[b + 1] - o[b]);
    flops += 4.0 * 8 * len * len * 128 / 2;
  }
  EXPECT_DOUBLE_EQ(attention_varlen_flops(s), flops);
}

TEST(SequenceOffsets, ImpossibleTotalsAreRefused) {
  EXPECT_THROW(draw_sequence_offsets(4, 4 * 10 + 1, 10, 1), InternalError);  // over B * max
  EXPECT_THROW(draw_sequence_offsets(4, 3 + 10 - 1, 10, 1), InternalError);  // no room for max
  EXPECT_THROW(draw_sequence_offsets(0, 10, 10, 1), InternalError);
}

// Each sequence of the packed batch equals the plain forward of that sequence alone (B = 1), for
// grouped-query heads, causal and not, with a single-token sequence among them.
TEST(AttentionVarlenFp64, EverySequenceAttendsToItselfAlone) {
  for (const bool causal : {false, true}) {
    VarlenAttentionShape s{4, 2, 3, causal, 0.6, {0, 5, 6, 13}};
    const auto q = random_values(s.q_elements(), 1), k = random_values(s.kv_elements(), 2),
               v = random_values(s.kv_elements(), 3);
    const AttentionForward packed = attention_varlen_forward_fp64(s, q, k, v);
    for (int64_t b = 0; b < s.batch(); ++b) {
      const int64_t first = s.offsets[b], len = s.offsets[b + 1] - first;
      AttentionShape one{1, s.heads, s.kv_heads, len, s.head_dim, causal, s.scale};
      std::vector<double> qb, kb, vb;  // [1, heads, len, D] from [T, heads, D]
      for (int64_t h = 0; h < s.heads; ++h)
        for (int64_t t = 0; t < len; ++t)
          for (int64_t d = 0; d < s.head_dim; ++d)
            qb.push_back(q[((first + t) * s.heads + h) * s.head_dim + d]);
      for (int64_t h = 0; h < s.kv_heads; ++h)
        for (int64_t t = 0; t < len; ++t)
          for (int64_t d = 0; d < s.head_dim; ++d) {
            kb.push_back(k[((first + t) * s.kv_heads + h) * s.head_dim + d]);
            vb.push_back(v[((first + t) * s.kv_heads + h) * s.head_dim + d]);
          }
      const AttentionForward alone = attention_forward_fp64(one, qb, kb, vb);
      for (int64_t h = 0; h < s.heads; ++h)
        for (int64_t t = 0; t < len; ++t) {
          EXPECT_DOUBLE_EQ(packed.lse[(first + t) * s.heads + h], alone.lse[h * len + t]);
          for (int64_t d = 0; d < s.head_dim; ++d)
            EXPECT_DOUBLE_EQ(packed.out[((first + t) * s.heads + h) * s.head_dim + d],
                             alone.out[(h * len + t) * s.head_dim + d]);
        }
    }
  }
}

// Keys of one sequence never reach another: changing the second sequence's K and V leaves the
// others' outputs as they were; a single-token sequence's output is its own V.
TEST(AttentionVarlenFp64, SequencesDoNotSeeEachOther) {
  VarlenAttentionShape s{2, 1, 4, false, 0.5, {0, 6, 7, 11}};
  const auto q = random_values(s.q_elements(), 4);
  auto k = random_values(s.kv_elements(), 5), v = random_values(s.kv_elements(), 6);
  const AttentionForward before = attention_varlen_forward_fp64(s, q, k, v);
  for (int64_t t = 6; t < 7; ++t)
    for (int64_t d = 0; d < s.head_dim; ++d) {
      k[t * s.head_dim + d] += 3.0;
      v[t * s.head_dim + d] -= 2.0;
    }
  const AttentionForward after = attention_varlen_forward_fp64(s, q, k, v);
  for (const int64_t t : {0, 5, 7, 10})
    for (int64_t h = 0; h < s.heads; ++h)
      for (int64_t d = 0; d < s.head_dim; ++d) {
        const size_t i = static_cast<size_t>((t * s.heads + h) * s.head_dim + d);
        EXPECT_DOUBLE_EQ(after.out[i], before.out[i]) << "token " << t;
      }
  for (int64_t h = 0; h < s.heads; ++h)
    for (int64_t d = 0; d < s.head_dim; ++d)
      EXPECT_NEAR(after.out[(6 * s.heads + h) * s.head_dim + d], v[6 * s.head_dim + d], 1e-15);
}

TEST(AttentionVarlenFp64, FlopsSumTheSequences) {
  VarlenAttentionShape s{16, 4, 128, false, 1.0, {0, 1000, 1001, 5097}};
  const double per = 4.0 * 16 * 128;
  EXPECT_DOUBLE_EQ(attention_varlen_flops(s), per * (1000.0 * 1000 + 1 + 4096.0 * 4096));
  s.causal = true;
  EXPECT_DOUBLE_EQ(attention_varlen_flops(s), per * (1000.0 * 1000 + 1 + 4096.0 * 4096) / 2);
}

TEST(AttentionVarlenFp64, BadOffsetsAreClearErrors) {
  const auto x = random_values(10 * 2, 7);
  VarlenAttentionShape s{1, 1, 2, false, 1.0, {0, 6, 4, 10}};
  EXPECT_THROW(attention_varlen_forward_fp64(s, x, x, x), InputError);  // decreasing
  s.offsets = {1, 10};
  EXPECT_THROW(attention_varlen_forward_fp64(s, x, x, x), InputError);  // not from 0
  s.offsets = {0, 9};
  EXPECT_THROW(attention_varlen_forward_fp64(s, x, x, x), InputError);  // sizes
}

}  // namespace
}  // namespace ptxb
