// The attention problems the cuDNN baseline accepts (docs/attention.md): the tensors a ptxb_problem
// of each direction must hand over, checked and reduced to a few sizes, and the uids that bind
// them to the cuDNN graph. Plain C++: no cuDNN, no frontend.
#pragma once

#include <ptxbench/abi.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "baselines/cudnn_sdpa.hpp"

namespace ptxb::cudnn_sdpa {

/// Sizes and options of one attention problem. Q, O, dO [B,H,S,D]; K, V [B,HKV,S,D]; LSE [B,H,S].
/// Variable-length: Q, O [T,H,D], K, V [T,HKV,D], B sequences of at most S tokens, T in all.
/// Paged decode: seq = SQ (new tokens per sequence), Q, O [B,SQ,H,D], K/V caches [pages,
/// page_size,HKV,D], tables [B,table_width], LSE [B,SQ,H].
struct Dims {
  int64_t batch = 0, heads = 0, kv_heads = 0, seq = 0, head_dim = 0;
  int64_t tokens = 0;  ///< T (variable-length only)
  bool varlen = false;
  bool paged = false;
  int64_t pages = 0, page_size = 0, table_width = 0;  ///< paged decode only
  bool causal = false;
  float scale = 0.f;
  nlohmann::json to_json() const;
};

/// Graph tensor uids, numbered in the ABI's order (inputs, then outputs); then the
/// variable-length forward's cu_seqlens (an ABI input the graph does not take) and the tensors
/// the baseline derives from it (baselines/cudnn_sdpa_ragged.hpp).
enum Uid : int64_t {
  kQ = 1,
  kK,
  kV,
  kO,
  kDO,
  kStats,
  kDQ,
  kDK,
  kDV,
  kCuSeqlens,
  kSeqLenQ,
  kSeqLenKV,
  kRaggedQ,
  kRaggedK,
  kRaggedV,
  kRaggedO,
  kPageTable,   ///< paged decode: the ABI's page_table, cuDNN's K table
  kPageTableV,  ///< the same table bound again as cuDNN's V table
};

/// The problem's dimensions, or the reason it is not an attention problem of `direction`
/// (tensor and scalar counts, dtypes, ranks, shapes, row-major contiguity, H % HKV).
std::variant<Dims, std::string> parse_problem(const ptxb_problem& problem, SdpaDirection direction);

/// The uids of the ABI's tensors in its order. Forward: Q, K, V | O, LSE; backward: Q, K, V, O,
/// dO, LSE | dQ, dK, dV; variable-length forward: Q, K, V, cu_seqlens | O; paged decode: Q,
/// K_cache, V_cache, seq_lens (cuDNN's seq_len_kv), page_table | O, LSE.
const std::vector<int64_t>& abi_uids(SdpaDirection direction);

/// Bytes of each ABI tensor of `direction`, in abi_uids order (for scratch buffers).
std::vector<size_t> tensor_bytes(const Dims& dims, SdpaDirection direction);

/// Index of the fp32 LSE among the ABI tensors of `direction` (the others are bf16, but for the
/// int32 cu_seqlens, seq_lens and page_table); -1 for the variable-length forward (no LSE).
int lse_index(SdpaDirection direction);

/// Element strides of a contiguous row-major tensor of extents `dims`.
std::vector<int64_t> row_major_strides(const std::vector<int64_t>& dims);

}  // namespace ptxb::cudnn_sdpa
