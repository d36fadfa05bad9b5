// The verdict vocabulary: one Outcome per judged candidate (DESIGN.md, "Evaluation stages and
// verdict").
#pragma once

#include <optional>
#include <string_view>

namespace ptxb {

/// Ordered roughly by the stage that decides it. Only kPassed is a success.
enum class Outcome {
  kPassed,
  kCompileError,         ///< nvcc/ptxas rejected the source, or the compile deadline passed
  kLoadError,            ///< the shared object did not load or lacks the required entry point
  kCrashed,              ///< the worker died: signal, CUDA fault (illegal address, trap), abort
  kTimeout,              ///< the worker passed its deadline and was killed
  kIncorrect,            ///< an output mismatched the reference, or an input was modified
  kInstructionMissing,   ///< a target instruction is absent or never executed
  kLowInstructionShare,  ///< a target executed, but below the task's floor
  kRejectedCheat,        ///< a reward hack was detected
  kUnavailable,          ///< the evidence needed for a verdict could not be gathered (no GPU, ...)
};

std::string_view to_string(Outcome outcome);
std::optional<Outcome> outcome_from_string(std::string_view name);
inline bool is_success(Outcome outcome) { return outcome == Outcome::kPassed; }

}  // namespace ptxb
