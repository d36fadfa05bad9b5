// The attention parts of DeviceProblem: the references (attention_fwd_fp32, attention_bwd_fp32)
// and the backward's derived inputs. Tensor names follow tasks/sm90/attention/*/task.toml:
// forward Q, K, V -> O, LSE; backward Q, K, V, O, dO, LSE -> dQ, dK, dV.
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "reference/attention_fp64.hpp"
#include "worker/problem.hpp"

namespace ptxb {

bool DeviceProblem::has_derived_inputs() const {
  return task_.correctness.reference == "attention_bwd_fp32";
}

bool DeviceProblem::is_free_input(size_t index) const {
  return !has_derived_inputs() || input_names_[index] == "dO";
}

size_t DeviceProblem::input_index(const std::string& name) const {
  for (size_t i = 0; i < input_names_.size(); ++i)
    if (input_names_[i] == name) return i;
  PTXB_ASSERT(false, "reference " + task_.correctness.reference + " needs an input named " + name);
  return 0;
}

size_t DeviceProblem::output_index(const std::string& name) const {
  for (size_t i = 0; i < output_names_.size(); ++i)
    if (output_names_[i] == name) return i;
  PTXB_ASSERT(false, "reference " + task_.correctness.reference + " needs an output named " + name);
  return 0;
}

float* DeviceProblem::scratch(size_t slot, int64_t floats) {
  const size_t bytes = static_cast<size_t>(floats) * sizeof(float);
  if (scratch_[slot].bytes() < bytes) scratch_[slot] = DeviceBuffer(bytes);
  return scratch_[slot].as<float>();
}

AttentionDims DeviceProblem::attention_dims() const {
  const AttentionShape s = attention_shape(shape_);
  AttentionDims d;
  d.batch = s.batch;
  d.heads = s.heads;
  d.kv_heads = s.kv_heads;
  d.seq = s.seq;
  d.head_dim = s.head_dim;
  d.causal = s.causal;
  // The scale the candidate is given (scalars), 1/sqrt(D) by the task's scalar rule.
  const auto scale = std::find(task_.scalars.begin(), task_.scalars.end(), "scale");
  d.scale = scale != task_.scalars.end()
                ? static_cast<float>(scalars_[static_cast<size_t>(scale - task_.scalars.begin())])
                : static_cast<float>(1.0 / std::sqrt(static_cast<double>(d.head_dim)));
  return d;
}

void DeviceProblem::derive_attention_inputs(cudaStream_t stream) {
  // NOTE: the inputs' own buffers are written here, before the pristine copies are taken.
  const size_t o = input_index("O"), lse = input_index("LSE");
  auto inner_of = [&](size_t i) {
    return static_cast<char*>(guarded_inputs_[i].data()) + kGuardBytes;
  };
  const int64_t o_count = elements(in_desc_[o]);
  float* o_fp32 = scratch(0, o_count);
  reference_attention_forward(inner_of(input_index("Q")), inner_of(input_index("K")),
                              inner_of(input_index("V")), o_fp32,
                              reinterpret_cast<float*>(inner_of(lse)), attention_dims(), stream);
  f32_to_bf16(o_fp32, inner_of(o), o_count, stream);
}

void DeviceProblem::reference_attention_fwd(cudaStream_t stream) {
  reference_attention_forward(
      pristine_[input_index("Q")].data(), pristine_[input_index("K")].data(),
      pristine_[input_index("V")].data(), references_[output_index("O")].as<float>(),
      references_[output_index("LSE")].as<float>(), attention_dims(), stream);
}

void DeviceProblem::reference_attention_bwd(cudaStream_t stream) {
  // The reference reads the O the candidate was given (bf16), widened to fp32.
  const size_t o = input_index("O");
  const int64_t o_count = elements(in_desc_[o]);
  const AttentionDims dims = attention_dims();
  float* o_fp32 = scratch(0, o_count);
  float* delta = scratch(1, dims.batch * dims.heads * dims.seq);
  bf16_to_f32(pristine_[o].data(), o_fp32, o_count, stream);
  reference_attention_backward(
      pristine_[input_index("Q")].data(), pristine_[input_index("K")].data(),
      pristine_[input_index("V")].data(), pristine_[input_index("dO")].data(), o_fp32,
      pristine_[input_index("LSE")].as<float>(), delta, references_[output_index("dQ")].as<float>(),
      references_[output_index("dK")].as<float>(), references_[output_index("dV")].as<float>(),
      dims, stream);
}

}  // namespace ptxb
