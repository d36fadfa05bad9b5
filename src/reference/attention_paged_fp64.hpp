// Decode attention over a paged KV cache in fp64 on the CPU: the definition a paged-decode task's
// GPU reference and solutions are checked against. B sequences, each with q_len new query tokens
// and a KV history of len_b tokens (the new tokens included: they are its last q_len positions)
// held in pages of P tokens of a shared pool; page_table[b][p] names the pool page that holds
// tokens p*P .. p*P + P - 1 of sequence b (tables are shuffled: pages are not in pool order).
//
// Layout (row-major, contiguous): Q, O [B, q_len, H, D]; K and V caches [num_pages, P, HKV, D]
// (the vLLM layout; grouped-query: query head h reads kv head h / (H / HKV)); page_table
// [B, max_pages]; LSE [B, q_len, H] (natural log).
// Masking is causal and bottom-right aligned: query i of sequence b sits at position
// len_b - q_len + i and sees the keys j <= that position (every key when q_len = 1).
#pragma once

#include <cstdint>
#include <vector>

#include "reference/attention_fp64.hpp"

namespace ptxb {

struct PagedDecodeShape {
  int64_t q_len = 1;     ///< new query tokens per sequence
  int64_t heads = 1;     ///< query heads
  int64_t kv_heads = 1;  ///< divides heads
  int64_t head_dim = 1;
  int64_t page_size = 16;  ///< tokens per page
  int64_t num_pages = 1;   ///< pages in the pool
  double scale = 1.0;
  std::vector<int64_t> seq_lens;    ///< B kv lengths, each in [q_len, max_pages * page_size]
  std::vector<int64_t> page_table;  ///< [B, max_pages] pool page indices
  int64_t max_pages = 1;            ///< table columns per sequence

  int64_t batch() const { return static_cast<int64_t>(seq_lens.size()); }
  int64_t q_elements() const { return batch() * q_len * heads * head_dim; }
  int64_t cache_elements() const { return num_pages * page_size * kv_heads * head_dim; }
  /// Element index of (token j of sequence b, kv head g, d) in a cache.
  int64_t cache_index(int64_t b, int64_t j, int64_t g, int64_t d) const;
};

/// out [B, q_len, H, D] and lse [B, q_len, H]. Throws InputError when the lengths, the table or a
/// buffer size are invalid.
AttentionForward attention_paged_decode_fp64(const PagedDecodeShape& s,
                                             const std::vector<double>& q,
                                             const std::vector<double>& k_cache,
                                             const std::vector<double>& v_cache);

/// The matrix-product FLOPs: 4 H D q_len len_b per sequence (every query against the whole
/// history; the causal triangle of the q_len new tokens is not subtracted), summed.
double attention_paged_decode_flops(const PagedDecodeShape& s);

}  // namespace ptxb
