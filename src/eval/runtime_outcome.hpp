// The outcome the runtime evidence implies, folded into the verdict's target rows.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/outcome.hpp"
#include "eval/ncu_evidence.hpp"
#include "tasks/spec.hpp"

namespace ptxb {

struct RuntimeOutcome {
  Outcome outcome = Outcome::kPassed;
  std::string reason;
};

/// Fills R1, R2, min_executed, floor and min_flop_share into `rows` (the verdict's "targets",
/// one per task target in order, with S0/S1 already set) and sets each row's "met". Precedence:
/// a fault under the profiler -> crashed; its deadline -> timeout; a wrong or failed profiled call
/// -> incorrect; a required target never executed -> instruction_missing; below its floor ->
/// low_instruction_share; a required level not measured -> unavailable; else passed.
RuntimeOutcome apply_runtime(const TaskSpec& task, const EvidenceStage& stage,
                             nlohmann::json& rows);

}  // namespace ptxb
