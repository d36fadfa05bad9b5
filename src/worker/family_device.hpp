// The GPU side of a task family (its host side is src/families/: dims, scalars, FLOPs, which
// references and baselines a task may name): the fp32 reference of the outputs, the inputs the
// family derives from others, and the library baseline that times it. Looked up by the family's
// name; a new family adds its module (worker/NAME_device.cpp, defining the accessor) and its
// accessor to the list in family_device.cpp.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tasks/spec.hpp"
#include "timing/implementation.hpp"
#include "worker/problem.hpp"

namespace ptxb {

/// Inputs whose values a family computes from other inputs (attention backward: O and LSE from
/// the reference forward of Q, K, V). Derived inputs and their sources stay fixed across timing
/// rounds; every other input is free and redrawn for each round.
struct DerivedInputs {
  std::vector<std::string> derived;
  std::vector<std::string> sources;
};

class FamilyDevice {
 public:
  virtual ~FamilyDevice() = default;
  /// The family's name, as families/family.hpp spells it.
  virtual std::string_view name() const = 0;
  virtual DerivedInputs derived_inputs(const TaskSpec& /*task*/) const { return {}; }
  /// Writes the derived inputs into the buffers the candidate reads, from the drawn free ones.
  virtual void derive_inputs(DeviceProblem& /*problem*/, cudaStream_t /*stream*/) const {}
  /// The fp32 reference of every output (task.correctness.reference) from the pristine inputs.
  virtual void compute_reference(DeviceProblem& problem, cudaStream_t stream) const = 0;
  /// The task's library baseline (task.baseline.library, one the family allows).
  virtual std::unique_ptr<Implementation> make_baseline(const TaskSpec& task) const = 0;
};

/// The GPU side of family `name`; InternalError when there is none (a loaded task has one).
const FamilyDevice& family_device(std::string_view name);

}  // namespace ptxb
