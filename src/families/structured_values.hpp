// Structured inputs (docs/tasks.md, "Structured inputs"): values with rules a random draw would
// break, drawn from a seed (the same seed gives the same values): integers on the host here,
// scales on the device by the same rule (verify/gpu_verify.hpp, fill_scales: a host draw of
// large block-scale tensors every timing round was too slow); draw_scales stays for host tests.
// Grouped GEMM needs group offsets, variable-length attention cumulative sequence lengths, paged
// decode sequence lengths and page tables (integers); scaled fp8 GEMMs need positive scale factors
// (floats).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/shape.hpp"

namespace ptxb {

/// How a structured input tensor is filled (task.toml `values`).
struct StructuredValues {
  /// Integer tensors: "offsets": a rank-1 tensor [G+1] of non-decreasing offsets from 0 to the
  /// size of the dimension `total` (G groups, some empty, sizes skewed like MoE routing).
  /// "sequence_offsets": a rank-1 tensor [B+1] of cumulative sequence lengths from 0 to the size
  /// of `total`, every length in [1, size of `max`] and one exactly that (a ragged batch; drawn
  /// from the shape alone, so every case of a shape has the same lengths and its FLOPs are
  /// exact: shape_sequence_offsets). "permutation": every value of [0, elements) once, in random
  /// order. "sequence_lengths": a rank-1 tensor [B] of sequence lengths summing to `total`, each
  /// in [size of `min` (1 without it), size of `max`], one exactly `max` (a decode batch's KV
  /// lengths; like "sequence_offsets", a function of the shape). "page_table": a rank-2 tensor
  /// [B, width]: row b lists the pool pages (of `page` tokens each, `pages` in the pool) holding
  /// sequence b of the "sequence_lengths" tensor `lengths`, ceil(len_b / page) distinct pages in
  /// the order of a shuffled pool, then zeros. Float tensors: "scales": positive factors, each
  /// 2^e (1 + m/8) with e in [-3, 3] and m in [0, 7] (dequantization scales of fp8 operands;
  /// exact in fp32, products with small integers stay exact).
  std::string kind;
  /// "offsets", "sequence_offsets", "sequence_lengths": the dimension the last offset (or the
  /// lengths' sum) equals
  std::string total;
  /// "sequence_offsets", "sequence_lengths": the dimension no sequence length exceeds
  std::string max;
  std::string min;      ///< "sequence_lengths": the dimension every length reaches ("" = 1)
  std::string lengths;  ///< "page_table": the "sequence_lengths" tensor it pages
  std::string page;     ///< "page_table": the dimension of a page's tokens
  std::string pages;    ///< "page_table": the dimension of the pool's pages
};

/// The kinds StructuredValues knows for integer tensors: "offsets", "sequence_offsets",
/// "permutation", "sequence_lengths", "page_table".
const std::vector<std::string>& integer_value_kinds();
/// ... and for float tensors: "scales".
const std::vector<std::string>& float_value_kinds();

/// G+1 offsets from 0 to `total` (G = groups >= 1): group sizes drawn from a heavy-tailed
/// distribution, about one group in eight empty and about one in eight of a single row (when
/// `total` allows), the rest proportional to the draw; exactly `total` in all.
std::vector<int64_t> draw_offsets(int64_t groups, int64_t total, uint64_t seed);

/// B+1 cumulative sequence offsets from 0 to `total` for a ragged batch of B = `batch`
/// sequences (variable-length attention, THD layout): every length in [1, max_len], one of them
/// exactly max_len (the batch's maximum is the shape's), about one in eight a single token (a
/// decode step inside a prefill batch), the rest heavy-tailed; exactly `total` in all. Needs
/// batch >= 1, max_len >= 1 and batch - 1 + max_len <= total <= batch * max_len.
std::vector<int64_t> draw_sequence_offsets(int64_t batch, int64_t total, int64_t max_len,
                                           uint64_t seed);

/// The "sequence_offsets" of a shape: draw_sequence_offsets with a seed made of the three sizes,
/// so that the lengths (and the FLOPs they imply) are a function of the shape.
std::vector<int64_t> shape_sequence_offsets(int64_t batch, int64_t total, int64_t max_len);

/// Whether draw_sequence_offsets accepts these sizes (batch - 1 + max_len <= total <= batch *
/// max_len, all positive).
bool sequence_offsets_fit(int64_t batch, int64_t total, int64_t max_len);

/// Whether shape_sequence_lengths accepts these sizes: 1 <= min_len <= max_len and the lengths
/// above min_len - 1 fit sequence_offsets_fit.
bool sequence_lengths_fit(int64_t batch, int64_t total, int64_t max_len, int64_t min_len);

/// The "sequence_lengths" of a shape: B lengths in [min_len, max_len], one exactly max_len,
/// summing to `total` (min_len - 1 plus the lengths of shape_sequence_offsets(batch, total -
/// batch (min_len - 1), max_len - (min_len - 1))), a function of the sizes.
std::vector<int64_t> shape_sequence_lengths(int64_t batch, int64_t total, int64_t max_len,
                                            int64_t min_len);

/// The shortest length a "sequence_lengths" input `v` allows at `shape`: the size of its `min`
/// dimension, 1 without one.
int64_t min_length(const StructuredValues& v, const Shape& shape);

/// Pages of `page` tokens that `lengths` need: the sum of ceil(len / page).
int64_t pages_needed(const std::vector<int64_t>& lengths, int64_t page);

/// A "page_table" [lengths.size(), width] (row-major) over a pool of `pages` pages: the pool's
/// pages in a random order (from `seed`), handed out sequence by sequence, ceil(len_b / page) to
/// row b, the rest of the row 0. Needs width >= ceil(max len / page) and pages >=
/// pages_needed(lengths, page).
std::vector<int64_t> draw_page_table(const std::vector<int64_t>& lengths, int64_t page,
                                     int64_t width, int64_t pages, uint64_t seed);

/// A random permutation of [0, n).
std::vector<int64_t> draw_permutation(int64_t n, uint64_t seed);

/// n scale factors of the "scales" kind.
std::vector<double> draw_scales(int64_t n, uint64_t seed);

}  // namespace ptxb
