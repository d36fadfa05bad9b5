#include "eval/worker_launch.hpp"

#include <cstdlib>

#include "core/error.hpp"
#include "sys/files.hpp"
#include "sys/hmac.hpp"
#include "tasks/task_json.hpp"
#include "tasks/task_wire.hpp"

namespace ptxb {
namespace fs = std::filesystem;
namespace {

// Gives `folder` (fresh, empty) to the sandbox user (root parents with the sandbox on).
void claim_worker_folder(const EvalConfig& config, const fs::path& folder) {
  if (config.drops_user()) give_to_user(folder, config.sandbox_uid);
}

}  // namespace

WorkerJob prepare_worker_job(const TaskSpec& task, const Catalog& catalog, const EvalConfig& config,
                             const CompileResult& compiled, const fs::path& work_dir,
                             const fs::path& binary_dir) {
  // The worker reads the shared object after it dropped its privileges: a copy it can read and
  // not change, never the compile cache. NOTE: not in the worker folder:
  // the sandbox user owns that folder, so it could unlink a file of root's there and put its own in
  // its place (the timing worker's candidate code swapping the binary the sanitizers and the
  // evidence run load).
  const fs::path inside = binary_dir.lexically_relative(work_dir);
  PTXB_ASSERT(inside.empty() || *inside.begin() == "..",
              "the shared object's folder must lie outside the worker folder");
  const fs::path so = binary_dir / "cand.so";
  fs::copy_file(compiled.shared_object, so, fs::copy_options::overwrite_existing);
  // Readable by the sandbox user's group alone where the workers drop to it (neither other users
  // nor the workers of other GPUs, other sandbox users, read another evaluation's binary);
  // otherwise the worker is this process's user.
  share_read_only(binary_dir, so,
                  config.drops_user() ? std::optional<uint32_t>(config.sandbox_uid) : std::nullopt);
  claim_worker_folder(config, work_dir);

  WorkerJob job;
  job.task = task_detail_json(task, HiddenShapes::kInclude);
  job.counters = counters_json(catalog.counters_for(task.arch));
  job.shared_object = so;
  job.run_timing = config.run_timing;
  job.quick_correctness = config.tier == Tier::kQuick;  // smallest visible and hidden shapes
  job.baseline = config.self_baseline ? "self" : "library";
  job.timing_warmup = config.timing_warmup;
  job.timing_samples = config.timing_samples;
  job.timing_min_ms = config.timing_min_ms;
  job.timing_max_samples = config.timing_max_samples;
  job.timing_ci_permille = config.timing_ci_permille;
  job.timing_noisy_cap_ms = config.timing_noisy_cap_ms;
  job.timing_block = config.timing_block;
  job.sustained_calls = config.sustained_calls;
  job.sustained_rounds = config.sustained_rounds;
  job.sustained_min_ms = config.sustained_min_ms;
  job.sustained_ci_permille = config.sustained_ci_permille;
  job.device = config.device;
  job.message_key = random_hex(32);
  job.sandbox = worker_sandbox(config, work_dir, /*under_profiler=*/false);
  job.call_deadline_s = config.call_deadline_s;
  job.environment = scrubbed_environment(work_dir);
  if (compiled.sass_available) {
    job.candidate_functions.emplace();
    for (const SassFunction& f : compiled.sass_functions)
      job.candidate_functions->push_back(f.name);
  }
  return job;
}

WorkerJob job_in_folder(WorkerJob job, const EvalConfig& config, const fs::path& folder,
                        bool under_profiler) {
  claim_worker_folder(config, folder);
  job.sandbox = worker_sandbox(config, folder, under_profiler);
  job.environment = scrubbed_environment(folder);
  job.message_key = random_hex(32);
  return job;
}

std::optional<SandboxPolicy> worker_sandbox(const EvalConfig& config, const fs::path& work_dir,
                                            bool under_profiler) {
  if (!config.sandbox) return std::nullopt;
  SandboxPolicy p;
  p.run_as_uid = config.sandbox_uid;
  p.cpu_seconds = static_cast<uint64_t>(config.worker_deadline.count()) + 60;
  p.file_size_bytes = 64ull << 20;
  p.open_files = 1024;
  p.processes = 256;  // threads count too: CUDA, CUPTI and the watchdog start a few
  // NOTE: CUDA maps every device allocation into the process's address space, so this limit
  // also caps device memory: 64 GiB ended a production-shape GEMM's timing (cudaMalloc: out of
  // memory on a 141 GB H200). 256 GiB covers the whole device; host memory stays bounded by the
  // machine (the worker is the out-of-memory killer's first choice) and a candidate that touches
  // more than 4 GiB is a violation (docs/threat-model.md).
  p.address_space_bytes = 256ull << 30;
  p.oom_score_adj = 1000;
  p.writable = {work_dir};
  p.isolate_network = !under_profiler;
  return p;
}

std::vector<std::string> scrubbed_environment(const fs::path& work_dir) {
  std::vector<std::string> env = {"HOME=" + work_dir.string(), "TMPDIR=" + work_dir.string(),
                                  "LANG=C"};
  for (const char* name : {"PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES"})
    if (const char* value = std::getenv(name)) env.push_back(std::string(name) + "=" + value);
  return env;
}

void clean_up_after_worker(const EvalConfig& config) {
  if (config.sandbox) kill_all_processes_of(config.sandbox_uid);
}

}  // namespace ptxb
