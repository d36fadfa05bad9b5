#include "worker/gpu_problem.hpp"

#include "core/error.hpp"
#include "cuda/cuda_check.hpp"
#include "verify/gpu_verify.hpp"

namespace ptxb {
namespace {

ptxb_tensor_desc describe(const TensorSpec& t, const Shape& shape) {
  ptxb_tensor_desc d{};
  d.dtype = static_cast<int32_t>(t.dtype);
  d.rank = static_cast<int32_t>(t.dims.size());
  PTXB_ASSERT(d.rank <= PTXB_MAX_RANK, "tensor rank above PTXB_MAX_RANK");
  int64_t stride = 1;
  for (int i = d.rank - 1; i >= 0; --i) {
    d.shape[i] = shape.at(t.dims[static_cast<size_t>(i)]);
    d.strides[i] = stride;
    stride *= d.shape[i];
  }
  return d;
}

int64_t elements(const ptxb_tensor_desc& d) {
  int64_t n = 1;
  for (int i = 0; i < d.rank; ++i) n *= d.shape[i];
  return n;
}

size_t bytes_of(const ptxb_tensor_desc& d) {
  return static_cast<size_t>(elements(d) * size_bytes(static_cast<DType>(d.dtype)));
}

}  // namespace

DeviceProblem::DeviceProblem(const TaskSpec& task, const Shape& shape)
    : task_(task), shape_(shape) {
  for (const TensorSpec* t : task.inputs()) {
    in_desc_.push_back(describe(*t, shape));
    inputs_.emplace_back(bytes_of(in_desc_.back()));
    pristine_.emplace_back(bytes_of(in_desc_.back()));
    in_ptrs_.push_back(inputs_.back().data());
  }
  for (const TensorSpec* t : task.outputs()) {
    out_desc_.push_back(describe(*t, shape));
    outputs_.emplace_back(bytes_of(out_desc_.back()));
    references_.emplace_back(static_cast<size_t>(elements(out_desc_.back())) * sizeof(float));
    out_ptrs_.push_back(outputs_.back().data());
    output_names_.push_back(t->name);
  }
  problem_.abi_version = PTXB_ABI_VERSION;
  problem_.num_inputs = static_cast<int32_t>(in_desc_.size());
  problem_.num_outputs = static_cast<int32_t>(out_desc_.size());
  problem_.num_scalars = 0;
  problem_.inputs = in_desc_.data();
  problem_.outputs = out_desc_.data();
  problem_.scalars = nullptr;
}

ptxb_args DeviceProblem::args(void* workspace, uint64_t workspace_bytes,
                              cudaStream_t stream) const {
  ptxb_args a{};
  a.problem = &problem_;
  a.inputs = in_ptrs_.data();
  a.outputs = out_ptrs_.data();
  a.workspace = workspace;
  a.workspace_bytes = workspace_bytes;
  a.stream = stream;
  return a;
}

void DeviceProblem::generate_inputs(const DistributionSpec& dist, uint64_t seed,
                                    cudaStream_t stream) {
  const ValueKind kind =
      dist.kind == DistributionSpec::Kind::kNormal ? ValueKind::kNormal : ValueKind::kUniformInt;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    fill_random(inputs_[i].data(), static_cast<DType>(in_desc_[i].dtype), elements(in_desc_[i]),
                kind, dist.scale, seed, i, stream);
    PTXB_CHECK_CUDA(cudaMemcpyAsync(pristine_[i].data(), inputs_[i].data(), inputs_[i].bytes(),
                                    cudaMemcpyDeviceToDevice, stream));
  }
}

void DeviceProblem::poison_outputs(cudaStream_t stream) {
  for (size_t i = 0; i < outputs_.size(); ++i)
    poison(outputs_[i].data(), static_cast<DType>(out_desc_[i].dtype), elements(out_desc_[i]),
           stream);
}

int64_t DeviceProblem::modified_input_bytes(cudaStream_t stream) const {
  int64_t total = 0;
  for (size_t i = 0; i < inputs_.size(); ++i)
    total += count_differing_bytes(inputs_[i].data(), pristine_[i].data(),
                                   static_cast<int64_t>(inputs_[i].bytes()), stream);
  return total;
}

void DeviceProblem::compute_reference(cudaStream_t stream) {
  if (task_.correctness.reference == "gemm_fp32") {
    PTXB_ASSERT(inputs_.size() == 2 && outputs_.size() == 1, "gemm_fp32 needs A, B -> C");
    reference_gemm_bf16(pristine_[0].data(), pristine_[1].data(), references_[0].as<float>(),
                        shape_.at("M"), shape_.at("N"), shape_.at("K"), stream);
    return;
  }
  PTXB_ASSERT(false, "unknown reference '" + task_.correctness.reference + "'");
}

CompareStats DeviceProblem::compare_output(size_t index, const CompareTolerance& tol,
                                           cudaStream_t stream) const {
  const ptxb_tensor_desc& d = out_desc_[index];
  const int64_t cols = d.rank > 0 ? d.shape[d.rank - 1] : 1;
  return compare_with_reference(outputs_[index].data(), static_cast<DType>(d.dtype),
                                references_[index].as<float>(), elements(d), cols, tol, stream);
}

}  // namespace ptxb
