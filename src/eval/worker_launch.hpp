// How the parent starts a worker: its job (with a fresh message key and the sandbox policy), its
// folder (owned by the sandbox user, holding a private copy of the shared object), and a
// scrubbed environment (docs/threat-model.md).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "compile/static_stage.hpp"
#include "eval/config.hpp"
#include "protocol/protocol.hpp"
#include "tasks/spec.hpp"

namespace ptxb {

/// The job for `compiled` in `work_dir`; prepares the folder (ownership) and copies the shared
/// object into `binary_dir`, a folder of the parent's outside `work_dir` (readable by the
/// sandbox user's group alone, writable by none of the workers): every process of the evaluation
/// (timing worker, sanitizers, evidence run) loads that copy, and candidate code, which may write,
/// rename and remove anything in its worker folder, cannot change what a later process loads
/// (docs/threat-model.md).
WorkerJob prepare_worker_job(const TaskSpec& task, const Catalog& catalog, const EvalConfig& config,
                             const CompileResult& compiled, const std::filesystem::path& work_dir,
                             const std::filesystem::path& binary_dir);

/// `job` for a process of its own in `folder`, a fresh folder nothing has run in (made the
/// sandbox user's): its sandbox policy, the environment candidate code sees and its message key
/// are the new folder's and a new one. The sanitizers and the evidence run, which come after the
/// timing worker, each get one, so that nothing an earlier process's candidate code left in its
/// folder (a link where the parent writes or reads a log, files under the HOME that Nsight
/// Compute and compute-sanitizer, running as the parent's user, start with) reaches them.
WorkerJob job_in_folder(WorkerJob job, const EvalConfig& config,
                        const std::filesystem::path& folder, bool under_profiler);

/// The sandbox policy of a worker in `work_dir`; `under_profiler` keeps the network (ncu talks to
/// its injection library through sockets). std::nullopt when the sandbox is switched off.
std::optional<SandboxPolicy> worker_sandbox(const EvalConfig& config,
                                            const std::filesystem::path& work_dir,
                                            bool under_profiler);

/// PATH, LD_LIBRARY_PATH and CUDA_VISIBLE_DEVICES from the parent; HOME and TMPDIR set to
/// `work_dir`; nothing else (no PTXBENCH_* settings, no credentials).
std::vector<std::string> scrubbed_environment(const std::filesystem::path& work_dir);

/// Kills what a sandboxed worker may have left running (processes of the sandbox user).
void clean_up_after_worker(const EvalConfig& config);

}  // namespace ptxb
