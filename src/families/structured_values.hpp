// Structured inputs (docs/tasks.md, "Structured inputs"): values with rules a random draw would
// break, drawn from a seed (the same seed gives the same values): integers on the host here,
// scales on the device by the same rule (verify/gpu_verify.hpp, fill_scales: a host draw of
// large block-scale tensors every timing round was too slow); draw_scales stays for host tests.
// Grouped GEMM needs group offsets, variable-length attention cumulative sequence lengths, paged
// decode page tables (integers); scaled fp8 GEMMs need positive scale factors (floats).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ptxb {

/// How a structured input tensor is filled (task.toml `values`).
struct StructuredValues {
  /// Integer tensors: "offsets": a rank-1 tensor [G+1] of non-decreasing offsets from 0 to the
  /// size of the dimension `total` (G groups, some empty, sizes skewed like MoE routing).
  /// "sequence_offsets": a rank-1 tensor [B+1] of cumulative sequence lengths from 0 to the size
  /// of `total`, every length in [1, size of `max`] and one exactly that (a ragged batch; drawn
  /// from the shape alone, so every case of a shape has the same lengths and its FLOPs are
  /// exact: shape_sequence_offsets). "permutation": every value of [0, elements) once, in random
  /// order (a page table over shuffled pages). Float tensors: "scales": positive factors, each
  /// 2^e (1 + m/8) with e in [-3, 3] and m in [0, 7] (dequantization scales of fp8 operands;
  /// exact in fp32, products with small integers stay exact).
  std::string kind;
  std::string total;  ///< "offsets", "sequence_offsets": the dimension the last offset equals
  std::string max;    ///< "sequence_offsets": the dimension no sequence length exceeds
};

/// The kinds StructuredValues knows for integer tensors: "offsets", "sequence_offsets",
/// "permutation".
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

/// A random permutation of [0, n).
std::vector<int64_t> draw_permutation(int64_t n, uint64_t seed);

/// n scale factors of the "scales" kind.
std::vector<double> draw_scales(int64_t n, uint64_t seed);

}  // namespace ptxb
