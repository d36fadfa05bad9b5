#include "reference/attention_paged_fp64.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace ptxb {
namespace {

void check(const PagedDecodeShape& s, const std::vector<double>& q,
           const std::vector<double>& k_cache, const std::vector<double>& v_cache) {
  if (s.batch() < 1 || s.q_len < 1 || s.heads < 1 || s.kv_heads < 1 || s.heads % s.kv_heads != 0 ||
      s.page_size < 1 || s.max_pages < 1)
    throw InputError("paged decode: sizes must be positive and HKV must divide H");
  if (static_cast<int64_t>(s.page_table.size()) != s.batch() * s.max_pages)
    throw InputError("paged decode: the page table must hold B * max_pages entries");
  for (int64_t b = 0; b < s.batch(); ++b) {
    const int64_t len = s.seq_lens[static_cast<size_t>(b)];
    if (len < s.q_len || len > s.max_pages * s.page_size)
      throw InputError("paged decode: sequence " + std::to_string(b) + " has " +
                       std::to_string(len) + " tokens, outside [q_len, max_pages * P]");
    for (int64_t p = 0; p < (len + s.page_size - 1) / s.page_size; ++p) {
      const int64_t page = s.page_table[static_cast<size_t>(b * s.max_pages + p)];
      if (page < 0 || page >= s.num_pages)
        throw InputError("paged decode: sequence " + std::to_string(b) + " names page " +
                         std::to_string(page) + " of a pool of " + std::to_string(s.num_pages));
    }
  }
  if (static_cast<int64_t>(q.size()) != s.q_elements() ||
      static_cast<int64_t>(k_cache.size()) != s.cache_elements() ||
      static_cast<int64_t>(v_cache.size()) != s.cache_elements())
    throw InputError("paged decode: a buffer's size does not match the shape");
}

}  // namespace

int64_t PagedDecodeShape::cache_index(int64_t b, int64_t j, int64_t g, int64_t d) const {
  const int64_t page = page_table[static_cast<size_t>(b * max_pages + j / page_size)];
  return ((page * page_size + j % page_size) * kv_heads + g) * head_dim + d;
}

AttentionForward attention_paged_decode_fp64(const PagedDecodeShape& s,
                                             const std::vector<double>& q,
                                             const std::vector<double>& k_cache,
                                             const std::vector<double>& v_cache) {
  check(s, q, k_cache, v_cache);
  AttentionForward out{std::vector<double>(q.size(), 0.0),
                       std::vector<double>(static_cast<size_t>(s.batch() * s.q_len * s.heads))};
  const int64_t group = s.heads / s.kv_heads, D = s.head_dim;
  std::vector<double> scores;
  for (int64_t b = 0; b < s.batch(); ++b) {
    const int64_t len = s.seq_lens[static_cast<size_t>(b)];
    for (int64_t i = 0; i < s.q_len; ++i) {
      const int64_t visible = len - s.q_len + i + 1;  // keys 0 .. position (bottom-right)
      for (int64_t h = 0; h < s.heads; ++h) {
        const int64_t g = h / group, row = (b * s.q_len + i) * s.heads + h;
        scores.assign(static_cast<size_t>(visible), 0.0);
        double max = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < visible; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += q[static_cast<size_t>(row * D + d)] *
                   k_cache[static_cast<size_t>(s.cache_index(b, j, g, d))];
          scores[static_cast<size_t>(j)] = s.scale * dot;
          max = std::max(max, s.scale * dot);
        }
        double sum = 0;
        for (double& x : scores) sum += (x = std::exp(x - max));
        for (int64_t j = 0; j < visible; ++j)
          for (int64_t d = 0; d < D; ++d)
            out.out[static_cast<size_t>(row * D + d)] +=
                scores[static_cast<size_t>(j)] / sum *
                v_cache[static_cast<size_t>(s.cache_index(b, j, g, d))];
        out.lse[static_cast<size_t>(row)] = max + std::log(sum);
      }
    }
  }
  return out;
}

double attention_paged_decode_flops(const PagedDecodeShape& s) {
  double flops = 0;
  for (const int64_t len : s.seq_lens)
    flops += 4.0 * static_cast<double>(s.heads * s.head_dim * s.q_len) * static_cast<double>(len);
  return flops;
}

}  // namespace ptxb
