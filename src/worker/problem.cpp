#include "worker/problem.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/host_mirror.hpp"
#include "verify/gpu_verify.hpp"
#include "worker/family_device.hpp"

namespace ptxb {
namespace {

ptxb_tensor_desc describe(const TensorSpec& t, const Shape& shape) {
  ptxb_tensor_desc d{};
  d.dtype = static_cast<int32_t>(t.dtype);
  d.rank = static_cast<int32_t>(t.dims.size());
  PTXB_ASSERT(d.rank <= PTXB_MAX_RANK, "tensor rank above PTXB_MAX_RANK");
  int64_t stride = 1;
  for (int i = d.rank - 1; i >= 0; --i) {
    d.shape[i] = extent(t.dims[static_cast<size_t>(i)], shape);
    d.strides[i] = stride;
    stride *= d.shape[i];
  }
  return d;
}

size_t bytes_of(const ptxb_tensor_desc& d) {
  return static_cast<size_t>(elements(d) * size_bytes(static_cast<DType>(d.dtype)));
}

constexpr int kGuardByte = 0xA5;

char* inner(const DeviceBuffer& guarded) {
  return static_cast<char*>(guarded.data()) + DeviceProblem::kGuardBytes;
}

DeviceBuffer guarded_buffer(size_t bytes) {
  DeviceBuffer b(bytes + 2 * DeviceProblem::kGuardBytes);
  PTXB_CHECK_CUDA(cudaMemset(b.data(), kGuardByte, b.bytes()));
  return b;
}

}  // namespace

int64_t elements(const ptxb_tensor_desc& d) {
  int64_t n = 1;
  for (int i = 0; i < d.rank; ++i) n *= d.shape[i];
  return n;
}

ProblemDescription::ProblemDescription(const TaskSpec& task, const Shape& shape)
    : scalars(scalar_values(task, shape)) {
  for (const TensorSpec* t : task.inputs()) in.push_back(describe(*t, shape));
  for (const TensorSpec* t : task.outputs()) out.push_back(describe(*t, shape));
  problem.abi_version = PTXB_ABI_VERSION;
  problem.num_inputs = static_cast<int32_t>(in.size());
  problem.num_outputs = static_cast<int32_t>(out.size());
  problem.num_scalars = static_cast<int32_t>(scalars.size());
  problem.inputs = in.data();
  problem.outputs = out.data();
  problem.scalars = scalars.empty() ? nullptr : scalars.data();
}

DeviceProblem::DeviceProblem(const TaskSpec& task, const Shape& shape)
    : task_(task), shape_(shape), desc_(task, shape) {
  const DerivedInputs derived = family_device(task.family).derived_inputs(task);
  derived_ = derived.derived;
  fixed_ = derived.derived;
  fixed_.insert(fixed_.end(), derived.sources.begin(), derived.sources.end());
  modified_counts_ = DeviceBuffer(2 * sizeof(unsigned long long));
  compare_scratch_ = DeviceBuffer(kCompareScratchBytes);
  guard_pattern_ = DeviceBuffer(kGuardBytes);
  PTXB_CHECK_CUDA(cudaMemset(guard_pattern_.data(), kGuardByte, kGuardBytes));
  const std::vector<const TensorSpec*> inputs = task.inputs(), outputs = task.outputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    in_bytes_.push_back(bytes_of(desc_.in[i]));
    guarded_inputs_.push_back(guarded_buffer(in_bytes_.back()));
    pristine_.emplace_back(in_bytes_.back());
    in_ptrs_.push_back(inner(guarded_inputs_.back()));
    input_names_.push_back(inputs[i]->name);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    out_bytes_.push_back(bytes_of(desc_.out[i]));
    guarded_outputs_.push_back(guarded_buffer(out_bytes_.back()));
    references_.emplace_back(static_cast<size_t>(elements(desc_.out[i])) * sizeof(float));
    out_ptrs_.push_back(inner(guarded_outputs_.back()));
    output_names_.push_back(outputs[i]->name);
  }
  // NOTE: the guard memsets ran on the legacy stream, which the worker's non-blocking streams
  // do not wait for.
  PTXB_CHECK_CUDA(cudaDeviceSynchronize());
}

ptxb_args DeviceProblem::args(void* workspace, uint64_t workspace_bytes,
                              cudaStream_t stream) const {
  ptxb_args a{};
  a.problem = &desc_.problem;
  a.inputs = in_ptrs_.data();
  a.outputs = out_ptrs_.data();
  a.workspace = workspace;
  a.workspace_bytes = workspace_bytes;
  a.stream = stream;
  return a;
}

void DeviceProblem::generate_inputs(const DistributionSpec& dist, uint64_t seed,
                                    cudaStream_t stream, std::optional<uint64_t> structure_seed) {
  for (size_t i = 0; i < in_ptrs_.size(); ++i)
    draw_input(i, dist, is_structure_input(i) ? structure_seed.value_or(seed) : seed, stream);
  // NOTE: derived inputs are written into the inputs' own buffers, before the pristine copies.
  if (!derived_.empty()) family_device(task_.family).derive_inputs(*this, stream);
  for (size_t i = 0; i < in_ptrs_.size(); ++i) keep_pristine(i, stream);
}

void DeviceProblem::generate_inputs_sharing_derived(const DeviceProblem& source,
                                                    const DistributionSpec& dist, uint64_t seed,
                                                    cudaStream_t stream,
                                                    std::optional<uint64_t> structure_seed) {
  PTXB_ASSERT(&source.task_ == &task_ && source.shape_ == shape_,
              "input sets share derived inputs only within one task and shape");
  for (size_t i = 0; i < in_ptrs_.size(); ++i) {
    if (is_free_input(i)) {
      draw_input(i, dist, is_structure_input(i) ? structure_seed.value_or(seed) : seed, stream);
      continue;
    }
    PTXB_CHECK_CUDA(cudaMemcpyAsync(inner(guarded_inputs_[i]), source.pristine_[i].data(),
                                    in_bytes_[i], cudaMemcpyDeviceToDevice, stream));
  }
  for (size_t i = 0; i < in_ptrs_.size(); ++i) keep_pristine(i, stream);
}

void DeviceProblem::redraw_free_inputs(const DistributionSpec& dist, uint64_t seed,
                                       cudaStream_t stream) {
  for (size_t i = 0; i < in_ptrs_.size(); ++i) {
    if (!is_free_input(i) || is_structure_input(i)) continue;
    draw_input(i, dist, seed, stream);
    keep_pristine(i, stream);
  }
}

namespace {

// The lengths of a "sequence_lengths" input at `shape` (the shape's, whatever the seed).
std::vector<int64_t> lengths_of(const TensorSpec& spec, const Shape& shape) {
  const StructuredValues& v = *spec.values;
  return shape_sequence_lengths(extent(spec.dims[0], shape), shape.at(v.total), shape.at(v.max),
                                min_length(v, shape));
}

// The values of a structured integer input (families/structured_values.hpp) at `shape`.
std::vector<int64_t> structured_values(const TaskSpec& task, const TensorSpec& spec,
                                       const Shape& shape, int64_t count, uint64_t seed) {
  if (spec.values->kind == "offsets")
    return draw_offsets(count - 1, shape.at(spec.values->total), seed);
  if (spec.values->kind == "sequence_offsets")  // the shape's lengths, whatever the seed
    return shape_sequence_offsets(count - 1, shape.at(spec.values->total),
                                  shape.at(spec.values->max));
  if (spec.values->kind == "sequence_lengths") return lengths_of(spec, shape);
  if (spec.values->kind == "page_table") {
    const auto lengths =
        std::find_if(task.tensors.begin(), task.tensors.end(),
                     [&](const TensorSpec& t) { return t.name == spec.values->lengths; });
    PTXB_ASSERT(lengths != task.tensors.end(), "page_table: no tensor " + spec.values->lengths);
    return draw_page_table(lengths_of(*lengths, shape), shape.at(spec.values->page),
                           extent(spec.dims[1], shape), shape.at(spec.values->pages), seed);
  }
  PTXB_ASSERT(spec.values->kind == "permutation", "unknown integer kind " + spec.values->kind);
  return draw_permutation(count, seed);
}

}  // namespace

void DeviceProblem::upload_integers(size_t i, const std::vector<int64_t>& values,
                                    cudaStream_t stream) {
  const auto dtype = static_cast<DType>(desc_.in[i].dtype);
  PTXB_ASSERT(static_cast<int64_t>(values.size()) == elements(desc_.in[i]), "integer count");
  std::vector<int32_t> narrow;
  const void* host = values.data();
  if (dtype == DType::kI32) {
    narrow.assign(values.begin(), values.end());
    host = narrow.data();
  }
  PTXB_CHECK_CUDA(cudaMemcpyAsync(inner(guarded_inputs_[i]), host, in_bytes_[i],
                                  cudaMemcpyHostToDevice, stream));
  PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));  // the host vectors end here
  // A library baseline is given group sizes on the host (cuda/host_mirror.hpp).
  mirror_host_integers(inner(guarded_inputs_[i]), values);
}

DeviceProblem::~DeviceProblem() {
  for (const DeviceBuffer& input : guarded_inputs_) forget_mirror(inner(input));
}

void DeviceProblem::draw_input(size_t i, const DistributionSpec& dist, uint64_t seed,
                               cudaStream_t stream) {
  if (const TensorSpec& spec = *task_.inputs()[i]; spec.values) {
    // NOTE: scales are drawn on the device: a host draw of the block scales cost the fp8
    // block-scaled task 8 s per timing regime on the H200 (redrawn every round).
    if (spec.values->kind == "scales")
      fill_scales(reinterpret_cast<float*>(inner(guarded_inputs_[i])), elements(desc_.in[i]), seed,
                  i, stream);
    else
      upload_integers(
          i, structured_values(task_, spec, shape_, elements(desc_.in[i]), seed * 31 + i), stream);
    return;
  }
  const ValueKind kind =
      dist.kind == DistributionSpec::Kind::kNormal ? ValueKind::kNormal : ValueKind::kUniformInt;
  fill_random(inner(guarded_inputs_[i]), static_cast<DType>(desc_.in[i].dtype),
              elements(desc_.in[i]), kind, dist.scale, seed, i, stream);
}

void DeviceProblem::keep_pristine(size_t i, cudaStream_t stream) {
  PTXB_CHECK_CUDA(cudaMemcpyAsync(pristine_[i].data(), inner(guarded_inputs_[i]), in_bytes_[i],
                                  cudaMemcpyDeviceToDevice, stream));
}

void DeviceProblem::poison_outputs(cudaStream_t stream) {
  for (size_t i = 0; i < out_ptrs_.size(); ++i)
    poison(out_ptrs_[i], static_cast<DType>(desc_.out[i].dtype), elements(desc_.out[i]), stream);
}

DeviceProblem::ModifiedBytes DeviceProblem::modified_bytes(cudaStream_t stream) const {
  std::vector<ByteComparison> comparisons;
  for (size_t i = 0; i < in_ptrs_.size(); ++i)
    comparisons.push_back(
        {inner(guarded_inputs_[i]), pristine_[i].data(), static_cast<int64_t>(in_bytes_[i]), 0});
  auto guards = [&](const DeviceBuffer& guarded, size_t bytes) {
    const char* base = static_cast<const char*>(guarded.data());
    for (const char* guard : {base, base + kGuardBytes + bytes})
      comparisons.push_back({guard, guard_pattern_.data(), static_cast<int64_t>(kGuardBytes), 1});
  };
  for (size_t i = 0; i < guarded_inputs_.size(); ++i) guards(guarded_inputs_[i], in_bytes_[i]);
  for (size_t i = 0; i < guarded_outputs_.size(); ++i) guards(guarded_outputs_[i], out_bytes_[i]);
  auto* counts = modified_counts_.as<unsigned long long>();
  PTXB_CHECK_CUDA(cudaMemsetAsync(counts, 0, modified_counts_.bytes(), stream));
  add_differing_bytes(comparisons, counts, stream);
  unsigned long long host[2] = {0, 0};
  PTXB_CHECK_CUDA(cudaMemcpyAsync(host, counts, sizeof host, cudaMemcpyDeviceToHost, stream));
  PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
  return {static_cast<int64_t>(host[0]), static_cast<int64_t>(host[1])};
}

void DeviceProblem::compute_reference(cudaStream_t stream) {
  family_device(task_.family).compute_reference(*this, stream);
}

bool DeviceProblem::is_structure_input(size_t index) const {
  const TensorSpec& spec = *task_.inputs()[index];
  return spec.values && is_integer(spec.dtype);
}

bool DeviceProblem::has_structure_inputs() const {
  for (size_t i = 0; i < input_names_.size(); ++i)
    if (is_structure_input(i)) return true;
  return false;
}

bool DeviceProblem::is_free_input(size_t index) const {
  return std::find(fixed_.begin(), fixed_.end(), input_names_[index]) == fixed_.end();
}

size_t DeviceProblem::input_index(std::string_view name) const {
  for (size_t i = 0; i < input_names_.size(); ++i)
    if (input_names_[i] == name) return i;
  PTXB_ASSERT(false, "family " + task_.family + " reads an input named " + std::string(name) +
                         " that task " + task_.id + " lacks");
  return 0;
}

size_t DeviceProblem::output_index(std::string_view name) const {
  for (size_t i = 0; i < output_names_.size(); ++i)
    if (output_names_[i] == name) return i;
  PTXB_ASSERT(false, "family " + task_.family + " writes an output named " + std::string(name) +
                         " that task " + task_.id + " lacks");
  return 0;
}

void* DeviceProblem::input(std::string_view name) {
  return inner(guarded_inputs_[input_index(name)]);
}

const void* DeviceProblem::pristine(std::string_view name) const {
  return pristine_[input_index(name)].data();
}

int64_t DeviceProblem::input_elements(std::string_view name) const {
  return elements(desc_.in[input_index(name)]);
}

float* DeviceProblem::reference(std::string_view name) {
  return references_[output_index(name)].as<float>();
}

std::optional<double> DeviceProblem::scalar(std::string_view name) const {
  const auto it = std::find(task_.scalars.begin(), task_.scalars.end(), name);
  if (it == task_.scalars.end()) return std::nullopt;
  return desc_.scalars[static_cast<size_t>(it - task_.scalars.begin())];
}

float* DeviceProblem::scratch(size_t slot, int64_t floats) {
  PTXB_ASSERT(slot < 2, "scratch slot");
  const size_t bytes = static_cast<size_t>(floats) * sizeof(float);
  if (scratch_[slot].bytes() < bytes) scratch_[slot] = DeviceBuffer(bytes);
  return scratch_[slot].as<float>();
}

ptxb_args DeviceProblem::args_into(const DeviceProblem& other, void* workspace,
                                   uint64_t workspace_bytes, cudaStream_t stream) const {
  ptxb_args a = args(workspace, workspace_bytes, stream);
  a.outputs = other.out_ptrs_.data();
  return a;
}

CompareStats DeviceProblem::compare_output(size_t index, const CompareTolerance& tol,
                                           cudaStream_t stream) const {
  const ptxb_tensor_desc& d = desc_.out[index];
  const int64_t cols = d.rank > 0 ? d.shape[d.rank - 1] : 1;
  return compare_with_reference(out_ptrs_[index], static_cast<DType>(d.dtype),
                                references_[index].as<float>(), elements(d), cols, tol, stream,
                                compare_scratch_.data());
}

CompareStats DeviceProblem::compare_output_with(const DeviceProblem& other, size_t index,
                                                const CompareTolerance& tol,
                                                cudaStream_t stream) const {
  const ptxb_tensor_desc& d = desc_.out[index];
  const ptxb_tensor_desc& theirs = other.desc_.out.at(index);
  PTXB_ASSERT(elements(theirs) == elements(d) && theirs.dtype == d.dtype,
              "an output of another task or shape");
  const int64_t cols = d.rank > 0 ? d.shape[d.rank - 1] : 1;
  return compare_outputs(out_ptrs_[index], static_cast<DType>(d.dtype), other.out_ptrs_[index],
                         static_cast<DType>(theirs.dtype), elements(d), cols, tol, stream,
                         compare_scratch_.data());
}

}  // namespace ptxb
