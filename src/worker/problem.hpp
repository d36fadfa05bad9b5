// One problem instance on the device: the task's tensors at one shape, their ABI descriptors and
// scalars, input generation, the reference and the output comparison. Generic over task families:
// the reference and the inputs derived from others come from the family's GPU module
// (worker/family_device.hpp), which reads and writes the buffers through the accessors below.
#pragma once

#include <ptxbench/abi.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuda/device.hpp"
#include "tasks/spec.hpp"
#include "verify/compare_stats.hpp"
#include "verify/gpu_verify.hpp"

namespace ptxb {

/// Number of elements of a tensor descriptor (the product of its shape).
int64_t elements(const ptxb_tensor_desc& d);

/// A problem's ABI description at one shape, without buffers: the task's tensors' descriptors
/// (row-major, contiguous) and its scalars, and the ptxb_problem that points at them. What a
/// library needs to plan ahead (Implementation::prebuild) before any buffer exists.
struct ProblemDescription {
  ProblemDescription(const TaskSpec& task, const Shape& shape);
  ProblemDescription(const ProblemDescription&) = delete;  // `problem` points into the vectors
  ProblemDescription& operator=(const ProblemDescription&) = delete;

  std::vector<ptxb_tensor_desc> in, out;
  std::vector<double> scalars;
  ptxb_problem problem{};
};

class DeviceProblem {
 public:
  /// Allocates inputs, outputs and pristine input copies for `shape` (row-major, contiguous).
  DeviceProblem(const TaskSpec& task, const Shape& shape);
  ~DeviceProblem();
  DeviceProblem(const DeviceProblem&) = delete;
  DeviceProblem& operator=(const DeviceProblem&) = delete;

  const ptxb_problem& problem() const { return desc_.problem; }
  /// Arguments for one call with this problem's buffers.
  ptxb_args args(void* workspace, uint64_t workspace_bytes, cudaStream_t stream) const;

  /// Draws every input from `dist` with `seed` (tensor i uses generator stream i), computes the
  /// derived inputs from the drawn ones, and keeps a pristine copy of each for the unchanged check.
  /// Structure inputs (structured integers: group offsets, page tables) are drawn with
  /// `structure_seed` when given: timing, its library side and the evidence run give every problem
  /// of a shape the same structure, so that the work per call is the same (the hardware counters
  /// compare calls) and the library gets the candidate's group sizes.
  void generate_inputs(const DistributionSpec& dist, uint64_t seed, cudaStream_t stream,
                       std::optional<uint64_t> structure_seed = std::nullopt);
  /// generate_inputs, except that the derived inputs and their sources (attention backward: O and
  /// LSE, and Q, K, V) are copied from `source` (the same task and shape, its inputs generated)
  /// instead of drawn and derived again; the free inputs are drawn with `seed`. Many input sets
  /// of one shape then cost one derivation (a reference forward pass each) instead of many.
  void generate_inputs_sharing_derived(const DeviceProblem& source, const DistributionSpec& dist,
                                       uint64_t seed, cudaStream_t stream,
                                       std::optional<uint64_t> structure_seed = std::nullopt);
  /// Whether some input is derived from others (generate_inputs computes it).
  bool has_derived_inputs() const { return !derived_.empty(); }
  /// Redraws only the free inputs (those no derived input depends on: every input of a task
  /// without derived ones, dO for the attention backward), never the structure inputs, and updates
  /// their pristine copies; derived inputs stay consistent with their sources. Fresh values for
  /// timing rounds.
  void redraw_free_inputs(const DistributionSpec& dist, uint64_t seed, cudaStream_t stream);
  void poison_outputs(cudaStream_t stream);
  struct ModifiedBytes {
    /// Bytes by which the inputs differ from their pristine copies (0: unchanged).
    int64_t inputs = 0;
    /// Bytes changed in the guard regions before and after every input and output buffer (0: no
    /// write outside the buffers the candidate was given, within kGuardBytes of them).
    int64_t guards = 0;
  };
  /// Both counts in one pass (one synchronization of `stream`).
  ModifiedBytes modified_bytes(cudaStream_t stream) const;
  int64_t modified_input_bytes(cudaStream_t stream) const { return modified_bytes(stream).inputs; }
  int64_t modified_guard_bytes(cudaStream_t stream) const { return modified_bytes(stream).guards; }
  static constexpr size_t kGuardBytes = 4096;  ///< per side; keeps 256-byte alignment
  /// Computes the fp32 reference of every output into internal buffers.
  void compute_reference(cudaStream_t stream);
  /// Arguments for a call that reads this problem's inputs and writes `other`'s outputs.
  ptxb_args args_into(const DeviceProblem& other, void* workspace, uint64_t workspace_bytes,
                      cudaStream_t stream) const;
  /// Compares output `index` with its reference (synchronizes `stream` once, allocates nothing).
  CompareStats compare_output(size_t index, const CompareTolerance& tol, cudaStream_t stream) const;
  /// Compares output `index` with the same output of `other` (the same task and shape; e.g. the
  /// library run on this problem's inputs) as compare_output does with the reference, reading
  /// `other`'s output as it is (compare_outputs).
  CompareStats compare_output_with(const DeviceProblem& other, size_t index,
                                   const CompareTolerance& tol, cudaStream_t stream) const;
  size_t num_outputs() const { return out_ptrs_.size(); }
  const std::string& output_name(size_t index) const { return output_names_[index]; }

  // For the family modules (worker/family_device.hpp); tensors by name, InternalError for a name
  // the task lacks (the loader checks that a task has the tensors its family reads).
  const TaskSpec& task() const { return task_; }
  const Shape& shape() const { return shape_; }
  /// The buffer of input `name` that the candidate reads (written only while deriving inputs).
  void* input(std::string_view name);
  /// The pristine copy of input `name`, as it was drawn (and derived).
  const void* pristine(std::string_view name) const;
  int64_t input_elements(std::string_view name) const;
  /// The fp32 reference buffer of output `name`.
  float* reference(std::string_view name);
  /// The value of scalar `name` the candidate is given, nullopt when the task has no such scalar.
  std::optional<double> scalar(std::string_view name) const;
  /// fp32 scratch of at least `floats` elements in slot 0 or 1, reused between calls.
  float* scratch(size_t slot, int64_t floats);
  /// Whether some input is structured (group offsets): then the work done depends on its seed.
  bool has_structure_inputs() const;

 private:
  bool is_free_input(size_t index) const;
  /// A structured integer input (families/structured_values.hpp): part of the problem's structure.
  bool is_structure_input(size_t index) const;
  void draw_input(size_t index, const DistributionSpec& dist, uint64_t seed, cudaStream_t stream);
  /// Copies host integers into input `index` (int32 or int64, as the tensor's dtype).
  void upload_integers(size_t index, const std::vector<int64_t>& values, cudaStream_t stream);
  void keep_pristine(size_t index, cudaStream_t stream);
  size_t input_index(std::string_view name) const;
  size_t output_index(std::string_view name) const;

  const TaskSpec& task_;
  Shape shape_;
  /// Inputs the family derives from others, and those others (worker/family_device.hpp).
  std::vector<std::string> derived_, fixed_;
  const ProblemDescription desc_;
  /// Each input and output lives at kGuardBytes into its allocation, between two guard regions
  /// filled with kGuardByte.
  std::vector<DeviceBuffer> guarded_inputs_, guarded_outputs_;
  std::vector<DeviceBuffer> pristine_, references_;
  DeviceBuffer guard_pattern_;    ///< kGuardBytes of kGuardByte
  DeviceBuffer modified_counts_;  ///< two device counters for modified_bytes()
  DeviceBuffer compare_scratch_;  ///< compare_output's statistics (kCompareScratchBytes)
  std::vector<size_t> in_bytes_, out_bytes_;
  std::vector<std::string> input_names_, output_names_;
  DeviceBuffer scratch_[2];
  std::vector<const void*> in_ptrs_;
  std::vector<void*> out_ptrs_;
};

}  // namespace ptxb
