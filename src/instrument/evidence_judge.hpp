// Turns one evidence run (ncu's kernel list + the worker's messages) into runtime evidence per
// target: splits the kernels into controls and candidate calls, checks the controls, and judges
// R1/R2 for every call. Pure: no process, no GPU (docs/evidence.md).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "instrument/ncu_csv.hpp"
#include "instrument/runtime_evidence.hpp"
#include "tasks/spec.hpp"

namespace ptxb {

/// ncu's kernel list cut at the worker's profiler ranges.
struct SplitKernels {
  std::optional<ProfiledKernel> positive, negative;  ///< the two evidence-control launches
  std::optional<ProfiledKernel> flop;                ///< the FLOP control's live launch
  std::vector<std::vector<ProfiledKernel>> calls;    ///< per nonce: the call's kernels in order
  std::string problem;  ///< non-empty when the list does not have that structure
};

/// Expects: control, control, FLOP control, then per nonce the call's kernels followed by a marker
/// kernel whose grid is (nonce, 1, 1); nothing after the last marker.
SplitKernels split_kernels(const std::vector<ProfiledKernel>& kernels,
                           const std::vector<unsigned>& nonces);

struct ControlCheck {
  bool ok = false;
  std::string problem;  ///< why not ok
  nlohmann::json detail;
};

/// The positive control must execute every target of the task, the negative control none; else
/// the run measures nothing trustworthy. An MMA target's FLOPs in the positive control must equal
/// the control's known MMA work in the target's primary opcode families (`control_mma_flops`:
/// opcode family, "HGMMA", -> FLOPs; a target none of whose families is listed fails). A target
/// with byte counters must see them count the control's loads (check_control_bytes).
ControlCheck check_controls(const TaskSpec& task, const Catalog& catalog,
                            const ProfiledKernel& positive, const ProfiledKernel& negative,
                            const std::map<std::string, double>& control_mma_flops);

/// Runtime levels of one target over every profiled call.
struct TargetRuntime {
  std::optional<bool> r1, r2;  ///< nullopt: unavailable
  /// MMA targets: the lowest FLOP share through the target over the calls (the task's floor is
  /// TargetSpec::min_flop_share) and the highest share of other arithmetic.
  std::optional<double> measured_min_flop_share;
  std::optional<double> max_nontarget_flop_share;
  /// MMA targets: the highest integer share and instructions per multiply-add over the calls.
  std::optional<double> max_integer_share;
  std::optional<double> max_instructions_per_mac;
  int64_t min_executed = 0;
  double floor = 0;  ///< the last call's floor: a FLOP share or an executed count
  bool floor_is_flop_share = false;
  std::string failure;  ///< why R1 or R2 failed, naming the call's shape
};

/// Folds one call's evidence of a target into its runtime levels: R1 and R2 hold only while every
/// call meets them; the first failure is kept in words, naming the call's shape `where`.
void fold_target(TargetRuntime& t, const TargetCallEvidence& e, const std::string& where);

struct RuntimeJudgement {
  bool available = false;
  std::string unavailable_reason;  ///< set when !available
  /// A profiled call's output was wrong or its plan/run failed: the evidence describes a call
  /// that did not do the task. Set with the shape.
  std::string call_failure;
  /// A profiled call whose kernels behaved differently between ncu's passes: the GMMA executions
  /// counted per opcode (the instrumented pass) differ from the GMMA pipe's hardware counter (an
  /// uninstrumented pass). Deterministic for honest code: set with both numbers, a cheat.
  std::string pass_disagreement;
  std::map<std::string, TargetRuntime> targets;  ///< by instruction name
  /// The catalog's hardware counters summed over each profiled call's kernels, by shape label:
  /// what the timed calls' counters are compared with (instrument/counter_match.hpp).
  std::map<std::string, std::map<std::string, double>> profiled_counters;
  /// Every opcode (with modifiers) a kernel of a profiled candidate call executed at least once;
  /// the controls' and markers' kernels are not among them.
  std::set<std::string> call_opcodes;
  /// The profile split into controls and calls (its problem set when it could not be).
  SplitKernels split;
  nlohmann::json record;  ///< the verdict's "evidence" object
};

/// `messages` are the worker's "evidence_control" and "evidence_call" messages in order; `kernels`
/// ncu's list, split at the markers of the calls' nonces (split_kernels).
RuntimeJudgement judge_runtime(const TaskSpec& task, const Catalog& catalog,
                               const std::vector<ProfiledKernel>& kernels,
                               const std::vector<nlohmann::json>& messages);

/// judge_runtime on a profile already split into controls and calls (the in-process evidence's,
/// eval/inprocess_evidence.hpp: one kernel per function of a call): one call per evidence_call
/// message whose plan succeeded, in order, else unavailable.
RuntimeJudgement judge_split(const TaskSpec& task, const Catalog& catalog, SplitKernels split,
                             const std::vector<nlohmann::json>& messages);

}  // namespace ptxb
