// The outcome the runtime evidence implies, folded into the verdict's target rows.
#pragma once

#include <string>
#include <vector>

#include "core/outcome.hpp"
#include "eval/ncu_evidence.hpp"
#include "tasks/spec.hpp"
#include "verdict/verdict_parts.hpp"

namespace ptxb {

struct RuntimeOutcome {
  Outcome outcome = Outcome::kPassed;
  std::string reason;
};

/// Fills the runtime levels, floor and measured minima into `rows` (one per task target in order,
/// with S0/S1 already set) and sets each row's `met`. Precedence:
/// a fault under the profiler -> crashed; its deadline -> timeout; a wrong or failed profiled call
/// -> incorrect; a required target never executed -> instruction_missing; below its floor ->
/// low_instruction_share; a required level not measured -> unavailable; else passed.
RuntimeOutcome apply_runtime(const TaskSpec& task, const EvidenceStage& stage,
                             std::vector<TargetEvidence>& rows);

}  // namespace ptxb
