// The GPU side of the variable-length attention forward family (families/attention_varlen_family):
// Q, K, V [T, heads, D] packed sequence after sequence, cu_seqlens [B+1] -> O [T, H, D]. The
// reference runs each sequence through the dense attention reference (fp64 products through
// cuBLASLt, rounded once to fp32): the sequence gathered into [heads, len, D], its output scattered
// back. It reads the pristine cu_seqlens (what the candidate was given). The baseline is cuDNN's
// SDPA on the ragged layout (baselines/cudnn_sdpa_ragged.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "baselines/cudnn_sdpa.hpp"
#include "core/error.hpp"
#include "cuda/cuda_check.hpp"
#include "verify/gpu_verify.hpp"
#include "worker/family_device.hpp"

namespace ptxb {

/// hsd [heads, len, D] = rows tok0 .. tok0 + len of thd [T, heads, D] (bf16);
/// worker/attention_varlen_reference.cu.
void gather_sequence_bf16(const void* thd, void* hsd, int64_t tok0, int64_t len, int64_t heads,
                          int64_t dim, cudaStream_t stream);
/// Rows tok0 .. tok0 + len of thd [T, heads, D] = hsd [heads, len, D] (fp32).
void scatter_sequence_f32(const float* hsd, float* thd, int64_t tok0, int64_t len, int64_t heads,
                          int64_t dim, cudaStream_t stream);

namespace {

std::vector<int64_t> device_offsets(const void* cu_seqlens, int64_t count, cudaStream_t stream) {
  std::vector<int32_t> narrow(static_cast<size_t>(count));
  PTXB_CHECK_CUDA(cudaMemcpyAsync(narrow.data(), cu_seqlens, narrow.size() * sizeof(int32_t),
                                  cudaMemcpyDeviceToHost, stream));
  PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
  return {narrow.begin(), narrow.end()};
}

class AttentionVarlenDevice final : public FamilyDevice {
 public:
  std::string_view name() const override { return "attention_fwd_varlen"; }

  void compute_reference(DeviceProblem& p, cudaStream_t stream) const override {
    const Shape& shape = p.shape();
    const int64_t heads = shape.at("H"), kv_heads = shape.find("HKV").value_or(heads);
    const int64_t dim = shape.at("D"), max_len = shape.at("S");
    const std::vector<int64_t> offsets =
        device_offsets(p.pristine("cu_seqlens"), p.input_elements("cu_seqlens"), stream);
    AttentionDims d;
    d.heads = heads;
    d.kv_heads = kv_heads;
    d.head_dim = dim;
    d.causal = shape.find("causal").value_or(0) != 0;
    d.scale =
        static_cast<float>(p.scalar("scale").value_or(1.0 / std::sqrt(static_cast<double>(dim))));
    // Scratch: slot 0 the gathered bf16 Q, K, V of one sequence (as floats' worth of bytes),
    // slot 1 its fp32 O and LSE; sized for the longest sequence.
    const int64_t q_len = heads * max_len * dim, kv_len = kv_heads * max_len * dim;
    float* in = p.scratch(0, (q_len + 2 * kv_len + 1) / 2);
    float* out = p.scratch(1, q_len + heads * max_len);
    auto* q = reinterpret_cast<uint16_t*>(in);
    uint16_t *k = q + q_len, *v = k + kv_len;
    float* o = p.reference("O");
    for (size_t b = 0; b + 1 < offsets.size(); ++b) {
      const int64_t tok0 = offsets[b], len = offsets[b + 1] - offsets[b];
      PTXB_ASSERT(len >= 1 && len <= max_len, "cu_seqlens: a length outside [1, S]");
      gather_sequence_bf16(p.pristine("Q"), q, tok0, len, heads, dim, stream);
      gather_sequence_bf16(p.pristine("K"), k, tok0, len, kv_heads, dim, stream);
      gather_sequence_bf16(p.pristine("V"), v, tok0, len, kv_heads, dim, stream);
      d.seq = len;
      // NOTE: a tile sized to the sequence: the reference allocates its fp64 scratch per call.
      const int64_t tile = std::min(kAttentionTileElements, std::max<int64_t>(1 << 20, len * len));
      reference_attention_forward(q, k, v, out, out + heads * len * dim, d, stream, tile);
      scatter_sequence_f32(out, o, tok0, len, heads, dim, stream);
    }
  }

  std::unique_ptr<Implementation> make_baseline(const TaskSpec& task) const override {
    PTXB_ASSERT(task.baseline.library == "cudnn",
                "varlen attention baseline " + task.baseline.library);
    return std::make_unique<CudnnSdpa>(SdpaDirection::kVarlenForward);
  }
};

}  // namespace

const FamilyDevice& attention_varlen_device() {
  static const AttentionVarlenDevice kDevice;
  return kDevice;
}

}  // namespace ptxb
