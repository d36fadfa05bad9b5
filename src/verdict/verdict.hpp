// The verdict on one candidate: an Outcome, a one-line reason, the typed parts that stages write
// and readers use (target evidence, correctness, timing: verdict_parts.hpp), and the rest of the
// evidence record (compile artefacts, runtime evidence, counters, environment) as JSON.
// The JSON form is versioned (kVerdictSchemaVersion) and documented in docs/result-schema.md.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/outcome.hpp"
#include "verdict/verdict_parts.hpp"

namespace ptxb {

/// 3: targets[].floor became {kind, value} and targets[].min_flop_share became
/// measured_min_flop_share (the task's floor keeps the name min_flop_share).
constexpr int kVerdictSchemaVersion = 3;

struct Verdict {
  Outcome outcome = Outcome::kUnavailable;
  std::string reason;                                ///< one line a person or a model can act on
  std::vector<TargetEvidence> targets;               ///< per task target, in the task's order
  std::optional<CorrectnessSummary> correctness;     ///< once the worker ran
  std::vector<ShapeTiming> timing;                   ///< per timed shape
  nlohmann::json record = nlohmann::json::object();  ///< everything else, docs/result-schema.md

  /// The whole verdict: the record with "schema", "outcome", "reason" and the typed parts.
  nlohmann::json to_json() const;
  /// Reads a verdict written by to_json (stored or exported). A record without a part (a verdict
  /// that stopped before it) leaves the part empty. Throws InputError on an unknown outcome or a
  /// part of the wrong shape.
  static Verdict from_json(const nlohmann::json& j);
};

/// How a verdict's readable parts name a kernel: "<unnamed>::gemm(const bf16 *, int)" -> "gemm",
/// enough to tell a call's kernels apart.
std::string short_kernel_name(const std::string& name);

/// A readable multi-line rendering: outcome, compile, targets, correctness, timing, environment.
std::string render_text(const Verdict& verdict);

/// Checks that `j` has the verdict schema's required fields and types; returns the problems
/// found ("" when valid). Used by tests and by readers of stored verdicts.
std::string validate_verdict_json(const nlohmann::json& j);

}  // namespace ptxb
