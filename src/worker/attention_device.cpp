// The GPU side of the attention families (docs/attention.md). Tensor names follow the family's
// rule (families/attention_family.cpp): forward Q, K, V -> O, LSE; backward Q, K, V, O, dO,
// LSE -> dQ, dK, dV, where O and LSE are derived: the reference forward of the drawn Q, K, V.
// Both are timed against cuDNN's SDPA.
#include <cmath>

#include "baselines/cudnn_sdpa.hpp"
#include "core/error.hpp"
#include "reference/attention_fp64.hpp"
#include "verify/gpu_verify.hpp"
#include "worker/family_device.hpp"

namespace ptxb {
namespace {

AttentionDims attention_dims(const DeviceProblem& p) {
  const AttentionShape s = attention_shape(p.shape());
  AttentionDims d;
  d.batch = s.batch;
  d.heads = s.heads;
  d.kv_heads = s.kv_heads;
  d.seq = s.seq;
  d.head_dim = s.head_dim;
  d.causal = s.causal;
  // The scale the candidate is given (its scalar), 1/sqrt(D) by the family's scalar rule.
  d.scale = static_cast<float>(
      p.scalar("scale").value_or(1.0 / std::sqrt(static_cast<double>(d.head_dim))));
  return d;
}

void check_baseline(const TaskSpec& task) {
  PTXB_ASSERT(task.baseline.library == "cudnn", "attention baseline " + task.baseline.library);
}

class AttentionFwdDevice final : public FamilyDevice {
 public:
  std::string_view name() const override { return "attention_fwd"; }

  void compute_reference(DeviceProblem& p, cudaStream_t stream) const override {
    reference_attention_forward(p.pristine("Q"), p.pristine("K"), p.pristine("V"), p.reference("O"),
                                p.reference("LSE"), attention_dims(p), stream);
  }

  std::unique_ptr<Implementation> make_baseline(const TaskSpec& task) const override {
    check_baseline(task);
    return std::make_unique<CudnnSdpa>(SdpaDirection::kForward);
  }
};

class AttentionBwdDevice final : public FamilyDevice {
 public:
  std::string_view name() const override { return "attention_bwd"; }

  DerivedInputs derived_inputs(const TaskSpec&) const override {
    return {{"O", "LSE"}, {"Q", "K", "V"}};
  }

  void derive_inputs(DeviceProblem& p, cudaStream_t stream) const override {
    const int64_t o_count = p.input_elements("O");
    float* o_fp32 = p.scratch(0, o_count);
    reference_attention_forward(p.input("Q"), p.input("K"), p.input("V"), o_fp32,
                                static_cast<float*>(p.input("LSE")), attention_dims(p), stream);
    f32_to_bf16(o_fp32, p.input("O"), o_count, stream);
  }

  void compute_reference(DeviceProblem& p, cudaStream_t stream) const override {
    // The reference reads the O the candidate was given (bf16), widened to fp32.
    const int64_t o_count = p.input_elements("O");
    const AttentionDims dims = attention_dims(p);
    float* o_fp32 = p.scratch(0, o_count);
    float* delta = p.scratch(1, dims.batch * dims.heads * dims.seq);
    bf16_to_f32(p.pristine("O"), o_fp32, o_count, stream);
    reference_attention_backward(
        p.pristine("Q"), p.pristine("K"), p.pristine("V"), p.pristine("dO"), o_fp32,
        static_cast<const float*>(p.pristine("LSE")), delta, p.reference("dQ"), p.reference("dK"),
        p.reference("dV"), dims, stream);
  }

  std::unique_ptr<Implementation> make_baseline(const TaskSpec& task) const override {
    check_baseline(task);
    return std::make_unique<CudnnSdpa>(SdpaDirection::kBackward);
  }
};

}  // namespace

const FamilyDevice& attention_fwd_device() {
  static const AttentionFwdDevice kDevice;
  return kDevice;
}

const FamilyDevice& attention_bwd_device() {
  static const AttentionBwdDevice kDevice;
  return kDevice;
}

}  // namespace ptxb
