// What cuDNN's ragged (THD) SDPA needs beside Q, K, V and O, derived from a variable-length
// problem's cumulative sequence offsets cu_seqlens [B+1]: the sequence lengths [B] (both
// seq_len_q and seq_len_kv: a prefill attends within its sequence) and the ragged offsets [B+1]
// of Q and O (cu_seqlens * H * D elements) and of K and V (cu_seqlens * HKV * D), all int32 on
// the device. The baseline derives them on the host from the trusted copy of cu_seqlens
// (cuda/host_mirror.hpp) and uploads them outside timing; cuDNN 9.24's cumulative-length inputs
// and ragged-offset multipliers would take cu_seqlens itself, our 9.14 takes neither.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "baselines/cudnn_sdpa_problem.hpp"
#include "cuda/device.hpp"

namespace ptxb::cudnn_sdpa {

struct RaggedTensors {
  std::vector<int64_t> cu_seqlens;  ///< what they were derived from
  DeviceBuffer seq_len, qo_offsets, kv_offsets;

  /// Points the graph's uids kSeqLenQ, kSeqLenKV, kRaggedQ, kRaggedK, kRaggedV, kRaggedO at them.
  void bind(std::unordered_map<int64_t, void*>& pointers) const;
};

/// The tensors of `cu_seqlens` (B+1 offsets from 0 to T, non-decreasing) for `dims`; uploads
/// synchronously. Throws InputError when cu_seqlens does not fit dims (its count, its ends, a
/// length outside [0, S]).
RaggedTensors make_ragged(const std::vector<int64_t>& cu_seqlens, const Dims& dims);

/// int32 values in a device buffer of their size, copied before this returns (the baseline's small
/// index tensors: ragged offsets, lengths, page tables of its plan trials).
DeviceBuffer upload_int32(const std::vector<int32_t>& values);

/// B+1 offsets of a batch of T tokens split as evenly as B sequences allow (each at most S):
/// the plan trials' stand-in for lengths plan() cannot see.
std::vector<int64_t> even_cu_seqlens(const Dims& dims);

}  // namespace ptxb::cudnn_sdpa
