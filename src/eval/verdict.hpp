// The verdict on one candidate: an Outcome, a one-line reason, and the full evidence record
// (compile artefacts, target evidence, every correctness case, timing samples, environment).
// The JSON form is versioned (kVerdictSchemaVersion) and documented in docs/result-schema.md.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/outcome.hpp"

namespace ptxb {

constexpr int kVerdictSchemaVersion = 2;

struct Verdict {
  Outcome outcome = Outcome::kUnavailable;
  std::string reason;     ///< one line a person or a model can act on
  nlohmann::json record;  ///< evidence, see docs/result-schema.md

  /// The record with "schema", "outcome" and "reason" filled in.
  nlohmann::json to_json() const;
};

/// A readable multi-line rendering: outcome, compile, targets, correctness, timing, environment.
std::string render_text(const Verdict& verdict);

/// Checks that `j` has the verdict schema's required fields and types; returns the problems
/// found ("" when valid). Used by tests and by readers of stored verdicts.
std::string validate_verdict_json(const nlohmann::json& j);

}  // namespace ptxb
