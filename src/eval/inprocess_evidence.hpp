// The in-process evidence run (docs/evidence.md, "In-process evidence"): ptxbench-worker's
// evidence stage collecting CUPTI SASS metrics itself (WorkerJob::evidence_in_process) with a
// CUPTI of API 13.2 or later, its records summed by opcode through the SASS listings (the
// candidate's from the static stage, the controls' from the worker binary) and its hardware
// counters read per kernel; its judgement, and its comparison with Nsight Compute's run of the
// same stage (PTXBENCH_EVIDENCE=in_process or compare; ncu's run judges by default until the two
// agree on every expert and hostile submission).
#pragma once

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "eval/ncu_evidence.hpp"
#include "instrument/evidence_judge.hpp"
#include "protocol/protocol.hpp"

namespace ptxb {

struct InProcessEvidenceOptions {
  /// The folder holding libcupti.so.13 of API 13.2 or later (put first on the worker's
  /// LD_LIBRARY_PATH); empty: the in-process run is not made.
  std::filesystem::path cupti_dir;
  std::filesystem::path cuobjdump;  ///< for the controls' listing; empty: not made
  std::chrono::seconds deadline{300};
};

struct InProcessProfile {
  bool available = false;
  std::string unavailable_reason;  ///< set when !available
  std::string candidate_fault;     ///< as EvidenceStage's
  std::string cheat;               ///< as EvidenceStage's
  bool timed_out = false;
  double seconds = 0;
  SplitKernels split;  ///< controls and calls, one kernel per function
  /// The run's "evidence_control" and "evidence_call" messages, for judge_split.
  std::vector<nlohmann::json> messages;
  nlohmann::json record;  ///< how the run went (end, worker phases, CUPTI version)
};

/// `cuobjdump -sass` of the worker's control kernels (ptxb_evidence_control, ptxb_flop_control),
/// asked once per worker binary (path, size, modification time) in this process; nullopt with
/// *why_not when cuobjdump fails.
std::optional<std::string> control_listing(const std::filesystem::path& cuobjdump,
                                           const std::filesystem::path& worker,
                                           std::string* why_not);

/// The controls and calls of the worker's messages as kernels: each message's "records" summed by
/// opcode through `control_sass` (controls) or `candidate_sass` (calls), and its
/// "kernel_counters" (when present) added to the kernel of the same name, summed over launches.
/// Sets `problem` when a message lacks its records, a record names code neither listing has, or
/// the counted and the collected run executed different kernels.
SplitKernels split_from_records(const std::vector<nlohmann::json>& messages,
                                const std::string& control_sass, const std::string& candidate_sass);

/// Runs `job` (a correctness/timing job for the candidate whose static listing is
/// `candidate_sass`; its evidence fields are set here) as an in-process evidence run in
/// `work_dir` with environment `env` plus the CUPTI folder, reading `hardware_metrics` per kernel
/// launch (empty: none). Never throws for candidate behaviour; throws ApiError when the worker
/// reports a harness error.
InProcessProfile run_inprocess_profile(WorkerJob job, std::vector<std::string> hardware_metrics,
                                       const std::filesystem::path& worker,
                                       const InProcessEvidenceOptions& options,
                                       const std::filesystem::path& work_dir,
                                       const std::string& candidate_sass,
                                       std::vector<std::string> env);

/// The evidence stage from an in-process run: its judgement (judge_split) when it has a profile,
/// and how it went, in the form of Nsight Compute's stage (eval/ncu_evidence.hpp).
EvidenceStage judge_in_process(const TaskSpec& task, const Catalog& catalog,
                               const InProcessProfile& profile);

/// Nsight Compute's kernels against the in-process run's, call by call and control by control:
/// per kernel name (ncu's launches of one kernel summed), every opcode's warp executions and
/// every arithmetic class's thread count, and every hardware counter both read (within 0.1%: two
/// runs of the kernel). {"same": bool, "calls": [...], "controls": [...]}, each kernel listing
/// what differs (at most 8 opcodes).
nlohmann::json compare_profiles(const SplitKernels& ncu, const SplitKernels& in_process);

/// The parts of two judgements a verdict depends on: availability, each target's R1 and R2, and
/// whether a pass disagreement or a failed call was found. {"same": bool, "ncu": {...},
/// "in_process": {...}}.
nlohmann::json compare_judgements(const RuntimeJudgement& ncu, const RuntimeJudgement& in_process);

}  // namespace ptxb
