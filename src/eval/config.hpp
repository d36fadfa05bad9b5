// Settings of an evaluation, read once from PTXBENCH_* environment variables and flags, and
// recorded with every verdict (docs/cli.md lists them).
#pragma once

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "compile/static_stage.hpp"
#include "eval/inprocess_evidence.hpp"
#include "eval/ncu_evidence.hpp"

namespace ptxb {

/// How much of a task a judgement covers (docs/serve.md). kFull: every shape, seed and timed
/// shape. kQuick (eval/tier.hpp): correctness on the smallest visible and the smallest hidden
/// shape, evidence and a short timing on one timed visible and one timed hidden shape.
enum class Tier { kFull, kQuick };

/// How the runtime evidence is measured: kNcu, Nsight Compute's run of the worker; kInProcess, the
/// worker's own CUPTI collection (eval/inprocess_evidence.hpp); kCompare, ncu's run judges and the
/// in-process run beside it is compared with it in the verdict.
enum class EvidenceMechanism { kNcu, kInProcess, kCompare };

struct EvalConfig {
  std::filesystem::path tasks_root;  ///< PTXBENCH_TASKS_DIR, default <source>/tasks
  std::filesystem::path worker;      ///< PTXBENCH_WORKER, default: beside the ptxbench binary
  CompileOptions compile;            ///< nvcc, cuobjdump, cache (PTXBENCH_NVCC, ...)
  std::chrono::seconds worker_deadline{300};  ///< PTXBENCH_WORKER_DEADLINE_S
  int timing_warmup = 10;                     ///< PTXBENCH_TIMING_WARMUP
  int timing_samples = 50;                    ///< PTXBENCH_TIMING_SAMPLES (calls at least)
  int timing_min_ms = 100;        ///< PTXBENCH_TIMING_MIN_MS: device time per shape to reach
  int timing_max_samples = 1000;  ///< PTXBENCH_TIMING_MAX_SAMPLES: calls at most
  /// PTXBENCH_TIMING_CI_PERMILLE: more rounds while the paired speedup's 95% interval reaches
  /// further than this (tenths of a percent) from its median (0: off), while the timed calls of
  /// the shape stay under PTXBENCH_TIMING_NOISY_CAP_MS (docs/timing.md)
  int timing_ci_permille = 10;
  int timing_noisy_cap_ms = 1500;
  /// PTXBENCH_TIMING_BLOCK: candidate calls per cold round, in one counter range (docs/timing.md)
  int timing_block = 8;
  /// PTXBENCH_SUSTAINED_CALLS: calls per back-to-back batch of the sustained regime (0: off)
  int sustained_calls = 20;
  int sustained_rounds = 10;  ///< PTXBENCH_SUSTAINED_ROUNDS: timed batch rounds at most
  /// PTXBENCH_SUSTAINED_MIN_MS: fewer rounds (kSustainedMinRounds at least) once the timed batches
  /// of both sides add up to this (docs/timing.md)
  int sustained_min_ms = 500;
  /// PTXBENCH_SUSTAINED_CI_PERMILLE: the noisy-shape rule for the sustained regime's pairs of
  /// rounds (0: off), within PTXBENCH_TIMING_NOISY_CAP_MS (docs/timing.md)
  int sustained_ci_permille = 20;
  bool run_timing = true;      ///< --no-timing
  bool self_baseline = false;  ///< --self-baseline: time the candidate against itself
  bool keep_temp = false;      ///< PTXBENCH_KEEP_TEMP=1 keeps worker folders
  /// PTXBENCH_LIBRARY_CHOICES=0: every evaluation times the library's offered plans itself
  /// instead of taking the choices cached beside the compile cache (eval/library_choices.hpp)
  bool library_choices = true;
  int device = 0;                 ///< PTXBENCH_DEVICE
  bool run_evidence = true;       ///< --no-evidence switches the runtime evidence stage off
  bool sanitize = false;          ///< --sanitize: quick correctness under compute-sanitizer tools
  int sanitize_deadline_s = 900;  ///< PTXBENCH_SANITIZE_DEADLINE_S: per compute-sanitizer tool
  bool sandbox = true;            ///< PTXBENCH_SANDBOX=0 runs workers unsandboxed (debugging only)
  uint32_t sandbox_uid = 61000;   ///< PTXBENCH_SANDBOX_UID; default 61000 + device index
  int call_deadline_s = 20;       ///< PTXBENCH_CALL_DEADLINE_S: one candidate call's limit
  EvidenceOptions evidence;       ///< PTXBENCH_NCU, PTXBENCH_EVIDENCE_DEADLINE_S
  /// PTXBENCH_EVIDENCE: which run measures the runtime evidence (docs/evidence.md).
  EvidenceMechanism evidence_mechanism = EvidenceMechanism::kNcu;
  /// The in-process run's CUPTI (PTXBENCH_CUPTI_DIR, default <home>/.tools/cupti when it exists: a
  /// folder with libcupti.so.13 of API 13.2 or later), deadline and cuobjdump as above.
  InProcessEvidenceOptions in_process_evidence;
  Tier tier = Tier::kFull;  ///< set through quick_tier() (eval/tier.hpp)

  std::filesystem::path catalog_dir() const { return tasks_root / "catalog"; }
  /// Whether workers drop to sandbox_uid (the sandbox on, this process root): their folders and
  /// the shared object are then handed to that user, and nvcc runs as a user of its own.
  bool drops_user() const;
  /// Reads the environment once; throws InputError naming a malformed variable.
  static EvalConfig from_environment();
  nlohmann::json to_json() const;
};

}  // namespace ptxb
