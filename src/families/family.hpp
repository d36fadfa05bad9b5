// A task family as one unit (docs/adding-a-task-family.md): what a task file of the family must
// declare and may name, and the family's math: FLOPs and the values of its scalars. Looked up by
// name in one registry; the task loader validates every family-dependent field against it, so a
// wrong reference or baseline fails when `ptxbench tasks` loads the file, not in the worker.
// Host side only: the GPU parts (references, derived inputs, baselines) hang off the same names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "core/shape.hpp"

namespace ptxb {

/// A tensor a family's reference and baselines read (an input) or write (an output), by name,
/// and the element types they handle (empty: any).
struct FamilyTensor {
  std::string name;
  bool input = true;
  std::vector<DType> dtypes;
};

class Family {
 public:
  virtual ~Family() = default;
  /// "gemm", "attention_fwd", ...: task.toml `family`.
  virtual std::string_view name() const = 0;
  /// Dimensions every task of the family declares, and a hint for the error when one is missing.
  virtual std::vector<std::string> required_dims() const = 0;
  virtual std::string dims_hint() const { return ""; }
  /// Scalars a task may list (ABI order is the task's), each with a value rule below.
  virtual std::vector<std::string> scalars() const { return {}; }
  /// The tensors every task of the family declares (more are allowed); the loader checks their
  /// names, roles and element types, so the worker never meets a task it cannot serve.
  virtual std::vector<FamilyTensor> tensors() const = 0;
  /// Whether [[shapes]] carry a boolean `causal` parameter (stored as the dimension "causal").
  virtual bool has_causal_flag() const { return false; }
  /// `correctness.reference` names the worker implements for the family.
  virtual std::vector<std::string> references() const = 0;
  /// The version of reference `name` (one of references()): bumped whenever its implementation
  /// changes what it computes, so that results judged by another version are not pooled
  /// (tasks/task_identity.hpp).
  virtual std::string reference_version(const std::string& name) const = 0;
  /// `baseline.library` names that can time the family.
  virtual std::vector<std::string> baselines() const = 0;
  /// Useful FLOPs of one call at `shape` (what TFLOP/s and FLOP shares are counted against).
  virtual double flops(const Shape& shape) const = 0;
  /// The value of scalar `name` at `shape`; InternalError for a scalar the family lacks.
  virtual double scalar_value(const std::string& name, const Shape& shape) const;
  /// Where the family sorts in reports (smaller first).
  virtual int report_rank() const = 0;
};

/// The family called `name`, or nullptr.
const Family* find_family(std::string_view name);
/// The family called `name`; InternalError when there is none (a validated task has one).
const Family& family_of(std::string_view name);
/// Every family's name, in report order.
const std::vector<std::string>& known_families();

}  // namespace ptxb
