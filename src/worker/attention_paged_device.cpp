// The GPU side of the paged decode attention family (families/attention_paged_family.cpp): Q
// [B,SQ,H,D], K_cache, V_cache [NP,P,HKV,D], seq_lens [B], page_table [B,W] -> O [B,SQ,H,D],
// LSE [B,SQ,H]. The reference is the fp64 paged decode of verify/gpu_reference_paged.cu on the
// pristine inputs (what the candidate was given: its keys reached through the same table); the
// baseline cuDNN's SDPA over the paged cache (baselines/cudnn_sdpa.hpp, kPagedDecode).
#include <cuda_runtime.h>

#include <cmath>

#include "baselines/cudnn_sdpa.hpp"
#include "core/error.hpp"
#include "verify/gpu_verify.hpp"
#include "worker/family_device.hpp"

namespace ptxb {
namespace {

class AttentionPagedDevice final : public FamilyDevice {
 public:
  std::string_view name() const override { return "attention_decode_paged"; }

  void compute_reference(DeviceProblem& p, cudaStream_t stream) const override {
    const Shape& shape = p.shape();
    PagedDecodeDims d;
    d.batch = shape.at("B");
    d.q_len = shape.at("SQ");
    d.heads = shape.at("H");
    d.kv_heads = shape.at("HKV");
    d.head_dim = shape.at("D");
    d.page_size = shape.at("P");
    d.table_width = shape.at("W");
    d.scale = static_cast<float>(
        p.scalar("scale").value_or(1.0 / std::sqrt(static_cast<double>(d.head_dim))));
    reference_paged_decode(p.pristine("Q"), p.pristine("K_cache"), p.pristine("V_cache"),
                           static_cast<const int32_t*>(p.pristine("seq_lens")),
                           static_cast<const int32_t*>(p.pristine("page_table")), p.reference("O"),
                           p.reference("LSE"), d, stream);
  }

  std::unique_ptr<Implementation> make_baseline(const TaskSpec& task) const override {
    PTXB_ASSERT(task.baseline.library == "cudnn",
                "paged decode attention baseline " + task.baseline.library);
    return std::make_unique<CudnnSdpa>(SdpaDirection::kPagedDecode);
  }
};

}  // namespace

const FamilyDevice& attention_paged_device() {
  static const AttentionPagedDevice kDevice;
  return kDevice;
}

}  // namespace ptxb
