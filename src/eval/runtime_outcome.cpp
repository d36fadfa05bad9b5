#include "eval/runtime_outcome.hpp"

namespace ptxb {

RuntimeOutcome apply_runtime(const TaskSpec& task, const EvidenceStage& stage,
                             std::vector<TargetEvidence>& rows) {
  const RuntimeJudgement& j = stage.judgement;
  if (!stage.cheat.empty()) return {Outcome::kRejectedCheat, "under the profiler: " + stage.cheat};
  if (!j.pass_disagreement.empty())
    return {Outcome::kRejectedCheat,
            "the profiled call behaved differently between Nsight Compute's passes: " +
                j.pass_disagreement};
  if (!stage.candidate_fault.empty())
    return {Outcome::kCrashed,
            "CUDA fault in the evidence run (under Nsight Compute): " + stage.candidate_fault};
  if (stage.timed_out) return {Outcome::kTimeout, "the evidence run passed its deadline"};
  if (!j.call_failure.empty()) return {Outcome::kIncorrect, j.call_failure};
  RuntimeOutcome missing, low, unmeasured;
  for (size_t i = 0; i < task.targets.size(); ++i) {
    const TargetSpec& t = task.targets[i];
    TargetEvidence& row = rows[i];
    const auto it = j.targets.find(t.instruction);
    const TargetRuntime* r = j.available && it != j.targets.end() ? &it->second : nullptr;
    if (r != nullptr) {
      row.r1 = level_result(r->r1);
      row.r2 = level_result(r->r2);
      row.min_executed = r->min_executed;
      row.floor = EvidenceFloor{r->floor_is_flop_share ? EvidenceFloor::Kind::kFlopShare
                                                       : EvidenceFloor::Kind::kExecutions,
                                r->floor};
      row.measured_min_flop_share = r->measured_min_flop_share;
      row.max_nontarget_flop_share = r->max_nontarget_flop_share;
      row.max_integer_share = r->max_integer_share;
      row.max_instructions_per_mac = r->max_instructions_per_mac;
    }
    bool met = row.s0 == LevelResult::kYes &&
               (t.required < EvidenceLevel::kS1 || row.s1 == LevelResult::kYes);
    const std::string why = r != nullptr && !r->failure.empty() ? r->failure : t.instruction;
    if (t.required >= EvidenceLevel::kR1) {
      if (r == nullptr || !r->r1) {
        if (unmeasured.reason.empty()) unmeasured = {Outcome::kUnavailable, t.instruction};
        met = false;
      } else if (!*r->r1) {
        if (missing.reason.empty()) missing = {Outcome::kInstructionMissing, why};
        met = false;
      }
    }
    if (met && t.required >= EvidenceLevel::kR2) {
      if (!r->r2) {
        if (unmeasured.reason.empty()) unmeasured = {Outcome::kUnavailable, t.instruction};
        met = false;
      } else if (!*r->r2) {
        if (low.reason.empty()) low = {Outcome::kLowInstructionShare, why};
        met = false;
      }
    }
    row.met = met;
  }
  if (!missing.reason.empty()) return missing;
  if (!low.reason.empty()) return low;
  if (!unmeasured.reason.empty()) {
    unmeasured.reason = "runtime evidence unavailable for " + unmeasured.reason + ": " +
                        (j.available ? std::string("could not be measured") : j.unavailable_reason);
    return unmeasured;
  }
  return {};
}

}  // namespace ptxb
