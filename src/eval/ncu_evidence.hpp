// The evidence stage's process: ptxbench-worker in evidence mode under Nsight Compute, then the
// judgement of what ncu counted (docs/evidence.md). Runs in its own process, never the timing one:
// instrumentation distorts time.
#pragma once

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "instrument/evidence_judge.hpp"
#include "protocol/protocol.hpp"

namespace ptxb {

struct EvidenceOptions {
  std::filesystem::path ncu;           ///< empty: not found, the stage is unavailable
  std::chrono::seconds deadline{300};  ///< for ncu and the worker together
  int max_kernels_per_call = 64;       ///< more and the profile is cut: unavailable
};

/// The hardware metrics of the evidence run: the catalog's counters and, for targets whose task
/// caps them, the other-read byte metrics (each once).
std::vector<std::string> evidence_hardware_metrics(const TaskSpec& task, const Catalog& catalog);

/// The --metrics list of the evidence run: executed opcodes, duration, the catalog's hardware
/// counters (compared with the timed calls'), the thread-level arithmetic counts of the
/// non-target rule and, for targets whose task caps them, the other-read byte metrics
/// (docs/evidence.md).
std::string evidence_ncu_metrics(const TaskSpec& task, const Catalog& catalog);

/// PTXBENCH_NCU, else `ncu` on PATH, else /usr/local/cuda/bin/ncu; empty when none is executable.
std::filesystem::path default_ncu();

struct EvidenceStage {
  RuntimeJudgement judgement;  ///< judgement.available false: see its unavailable_reason
  /// Set when the candidate faulted under the profiler (CUDA error after its code): "crashed".
  std::string candidate_fault;
  /// Set when the run showed cheating: a forged message, an ABI violation: "rejected_cheat".
  std::string cheat;
  bool timed_out = false;  ///< the stage passed its deadline: "timeout"
  double seconds = 0;
  nlohmann::json record;  ///< judgement.record plus how the stage ran (command, ncu version, end)
};

/// What an evidence run's worker said, folded the same way for ncu's run and the in-process one.
struct EvidenceRunMessages {
  std::vector<nlohmann::json> all;       ///< every message, in order
  std::vector<nlohmann::json> evidence;  ///< "evidence_control", "_call" and "_counters"
  std::string cheat;            ///< a forged line or a "candidate_violation": "rejected_cheat"
  std::string candidate_fault;  ///< a "candidate_fault" message
  bool timed_out = false;       ///< a "candidate_timeout" message
  /// The timed shape whose candidate call had started and not ended when the messages stopped
  /// (null: none): a run that ends there ended during candidate code.
  nlohmann::json open_shape;
  bool done = false;                      ///< the "done" message came
  nlohmann::json sandbox, worker_phases;  ///< the "sandbox" report and the "phases" seconds
};

/// Parses and folds the worker's messages of an evidence run (`run` names it in texts). A line
/// the worker did not write (signed with `key`) is a cheat and ends the folding. Throws ApiError
/// when the worker reports a harness error.
EvidenceRunMessages fold_evidence_run(const std::string& text, const std::string& key,
                                      const std::string& run);

/// Runs `job` (a correctness/timing job for the same candidate; its evidence fields are set here)
/// under ncu in `work_dir`, with environment `env` (nullopt: inherited), and judges the result.
/// Never throws for candidate behaviour; throws ApiError when the worker reports a harness error.
EvidenceStage run_evidence_stage(const TaskSpec& task, const Catalog& catalog, WorkerJob job,
                                 const std::filesystem::path& worker,
                                 const EvidenceOptions& options,
                                 const std::filesystem::path& work_dir,
                                 std::optional<std::vector<std::string>> env = std::nullopt);

}  // namespace ptxb
