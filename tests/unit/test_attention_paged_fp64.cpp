// Decode attention over a paged KV cache on the CPU (reference/attention_paged_fp64.hpp): the new
// queries' rows equal the last rows of the dense causal attention of the whole sequence (bottom-
// right alignment), whatever order the pages sit in the pool; single- and multi-token queries,
// grouped-query heads; bad tables and lengths are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "core/error.hpp"
#include "random_values.hpp"
#include "reference/attention_paged_fp64.hpp"

namespace ptxb {
namespace {

// Two sequences (37 and 20 tokens) in pages of 16 of a pool of 6 pages (one unused), the table
// shuffled; H 8 over HKV 2, D 8.
PagedDecodeShape small_shape(int64_t q_len) {
  PagedDecodeShape s;
  s.q_len = q_len;
  s.heads = 8;
  s.kv_heads = 2;
  s.head_dim = 8;
  s.page_size = 16;
  s.num_pages = 6;
  s.scale = 0.35;
  s.seq_lens = {37, 20};
  s.max_pages = 3;
  s.page_table = {4, 0, 5, 2, 3, 1};  // sequence 0: pages 4, 0, 5; sequence 1: 2, 3 (1 unused)
  return s;
}

TEST(AttentionPagedFp64, NewRowsEqualTheDenseCausalRowsOfTheSequence) {
  for (const int64_t q_len : {1, 4}) {
    const PagedDecodeShape s = small_shape(q_len);
    const auto q = random_values(s.q_elements(), 1);
    const auto k = random_values(s.cache_elements(), 2), v = random_values(s.cache_elements(), 3);
    const AttentionForward decode = attention_paged_decode_fp64(s, q, k, v);
    const int64_t D = s.head_dim;
    for (int64_t b = 0; b < s.batch(); ++b) {
      const int64_t len = s.seq_lens[b];
      AttentionShape dense{1, s.heads, s.kv_heads, len, D, true, s.scale};
      // Q [1, H, len, D]: earlier rows drawn (they do not matter), the last q_len the new ones.
      std::vector<double> qd = random_values(dense.q_elements(), 4), kd, vd;
      for (int64_t i = 0; i < q_len; ++i)
        for (int64_t h = 0; h < s.heads; ++h)
          for (int64_t d = 0; d < D; ++d)
            qd[(h * len + len - q_len + i) * D + d] = q[((b * q_len + i) * s.heads + h) * D + d];
      for (int64_t g = 0; g < s.kv_heads; ++g)
        for (int64_t j = 0; j < len; ++j)
          for (int64_t d = 0; d < D; ++d) {
            kd.push_back(k[s.cache_index(b, j, g, d)]);
            vd.push_back(v[s.cache_index(b, j, g, d)]);
          }
      const AttentionForward want = attention_forward_fp64(dense, qd, kd, vd);
      for (int64_t i = 0; i < q_len; ++i)
        for (int64_t h = 0; h < s.heads; ++h) {
          const int64_t row = (b * q_len + i) * s.heads + h, dense_row = h * len + len - q_len + i;
          EXPECT_NEAR(decode.lse[row], want.lse[dense_row], 1e-12) << b << " " << i << " " << h;
          for (int64_t d = 0; d < D; ++d)
            EXPECT_NEAR(decode.out[row * D + d], want.out[dense_row * D + d], 1e-12);
        }
    }
  }
}

// Moving the pages within the pool and the table with them changes nothing; reading the pages in
// table-slot order instead of through the table (the adversarial shortcut) does.
TEST(AttentionPagedFp64, PagesAreFoundThroughTheTable) {
  const PagedDecodeShape s = small_shape(4);
  const auto q = random_values(s.q_elements(), 5);
  const auto k = random_values(s.cache_elements(), 6), v = random_values(s.cache_elements(), 7);
  const AttentionForward base = attention_paged_decode_fp64(s, q, k, v);

  std::vector<int64_t> where(static_cast<size_t>(s.num_pages));  // page p moves to where[p]
  std::iota(where.begin(), where.end(), 0);
  std::shuffle(where.begin(), where.end(), std::mt19937(9));
  const int64_t page_elements = s.page_size * s.kv_heads * s.head_dim;
  std::vector<double> k2(k.size()), v2(v.size());
  for (int64_t p = 0; p < s.num_pages; ++p)
    for (int64_t e = 0; e < page_elements; ++e) {
      k2[where[p] * page_elements + e] = k[p * page_elements + e];
      v2[where[p] * page_elements + e] = v[p * page_elements + e];
    }
  PagedDecodeShape moved = s;
  for (int64_t& page : moved.page_table) page = where[page];
  const AttentionForward same = attention_paged_decode_fp64(moved, q, k2, v2);
  for (size_t i = 0; i < base.out.size(); ++i) EXPECT_DOUBLE_EQ(same.out[i], base.out[i]);

  PagedDecodeShape in_order = s;  // sequence b's pages taken as b * max_pages + p
  std::iota(in_order.page_table.begin(), in_order.page_table.end(), 0);
  const AttentionForward wrong = attention_paged_decode_fp64(in_order, q, k, v);
  double diff = 0;
  for (size_t i = 0; i < base.out.size(); ++i) diff += std::fabs(wrong.out[i] - base.out[i]);
  EXPECT_GT(diff, 1.0);
}

TEST(AttentionPagedFp64, BadTablesAndLengthsAreRefused) {
  const PagedDecodeShape s = small_shape(4);
  const auto q = random_values(s.q_elements(), 1);
  const auto k = random_values(s.cache_elements(), 2), v = random_values(s.cache_elements(), 3);
  PagedDecodeShape bad = s;
  bad.page_table[1] = 6;  // past the pool
  EXPECT_THROW(attention_paged_decode_fp64(bad, q, k, v), InputError);
  bad = s;
  bad.seq_lens[1] = 3;  // fewer tokens than new queries
  EXPECT_THROW(attention_paged_decode_fp64(bad, q, k, v), InputError);
  bad = s;
  bad.seq_lens[0] = 49;  // more than its 3 pages hold
  EXPECT_THROW(attention_paged_decode_fp64(bad, q, k, v), InputError);
  bad = s;
  bad.page_table.pop_back();
  EXPECT_THROW(attention_paged_decode_fp64(bad, q, k, v), InputError);
  EXPECT_THROW(attention_paged_decode_fp64(s, q, k, std::vector<double>(3)), InputError);
  EXPECT_DOUBLE_EQ(attention_paged_decode_flops(s), 4.0 * 8 * 8 * 4 * (37 + 20));
}

}  // namespace
}  // namespace ptxb
