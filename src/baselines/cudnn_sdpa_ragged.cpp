#include "baselines/cudnn_sdpa_ragged.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "cuda/cuda_check.hpp"

namespace ptxb::cudnn_sdpa {

DeviceBuffer upload_int32(const std::vector<int32_t>& values) {
  DeviceBuffer buffer(values.size() * sizeof(int32_t));
  PTXB_CHECK_CUDA(cudaMemcpy(buffer.data(), values.data(), buffer.bytes(), cudaMemcpyHostToDevice));
  return buffer;
}

void RaggedTensors::bind(std::unordered_map<int64_t, void*>& pointers) const {
  pointers[kSeqLenQ] = seq_len.data();
  pointers[kSeqLenKV] = seq_len.data();
  pointers[kRaggedQ] = qo_offsets.data();
  pointers[kRaggedO] = qo_offsets.data();
  pointers[kRaggedK] = kv_offsets.data();
  pointers[kRaggedV] = kv_offsets.data();
}

RaggedTensors make_ragged(const std::vector<int64_t>& cu_seqlens, const Dims& d) {
  if (static_cast<int64_t>(cu_seqlens.size()) != d.batch + 1 || cu_seqlens.front() != 0 ||
      cu_seqlens.back() != d.tokens)
    throw InputError("cu_seqlens: " + std::to_string(cu_seqlens.size()) +
                     " offsets, expected B+1 = " + std::to_string(d.batch + 1) +
                     " from 0 to T = " + std::to_string(d.tokens));
  std::vector<int32_t> lengths, qo, kv;
  for (int64_t b = 0; b <= d.batch; ++b) {
    qo.push_back(static_cast<int32_t>(cu_seqlens[b] * d.heads * d.head_dim));
    kv.push_back(static_cast<int32_t>(cu_seqlens[b] * d.kv_heads * d.head_dim));
    if (b == d.batch) break;
    const int64_t length = cu_seqlens[b + 1] - cu_seqlens[b];
    if (length < 0 || length > d.seq)
      throw InputError("cu_seqlens: sequence " + std::to_string(b) + " has " +
                       std::to_string(length) +
                       " tokens, outside [0, S = " + std::to_string(d.seq) + "]");
    lengths.push_back(static_cast<int32_t>(length));
  }
  RaggedTensors r;
  r.cu_seqlens = cu_seqlens;
  r.seq_len = upload_int32(lengths);
  r.qo_offsets = upload_int32(qo);
  r.kv_offsets = upload_int32(kv);
  return r;
}

std::vector<int64_t> even_cu_seqlens(const Dims& d) {
  std::vector<int64_t> offsets(static_cast<size_t>(d.batch) + 1, 0);
  for (int64_t b = 0; b < d.batch; ++b) {
    const int64_t share = (d.tokens - offsets[b]) / (d.batch - b);  // the rest spread evenly
    offsets[b + 1] = offsets[b] + std::min(share, d.seq);
  }
  offsets.back() = d.tokens;
  return offsets;
}

}  // namespace ptxb::cudnn_sdpa
