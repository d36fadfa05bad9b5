#include "eval/ncu_evidence.hpp"

#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "compile/tools.hpp"
#include "controls/flop_classes.hpp"
#include "core/error.hpp"
#include "sys/files.hpp"
#include "sys/process.hpp"
#include "tasks/task_json.hpp"

namespace ptxb {
namespace fs = std::filesystem;
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// `ncu --version`'s version line, asked once per ncu binary (its path, size and modification
// time) in this process: a service judging many candidates does not start ncu twice per job.
std::string ncu_version(const fs::path& ncu, const fs::path& work_dir) {
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  std::error_code ec;
  const std::string key = ncu.string() + "|" + std::to_string(fs::file_size(ncu, ec)) + "|" +
                          std::to_string(fs::last_write_time(ncu, ec).time_since_epoch().count());
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = known.find(key); it != known.end()) return it->second;
  }
  ProcessSpec spec;
  spec.argv = {ncu.string(), "--version"};
  spec.stdout_path = work_dir / "ncu-version.txt";
  spec.deadline = 30s;
  const ProcessResult r = run_process(spec);
  const std::string text = read_text_file(spec.stdout_path, 4096);
  const size_t at = text.find("Version");
  if (!r.ok() || at == std::string::npos) return "unknown";  // asked again next time
  const std::string version = text.substr(at, text.find('\n', at) - at);
  const std::lock_guard<std::mutex> lock(mutex);
  known[key] = version;
  return version;
}

// ncu's "==ERROR==" lines, joined, or "no error lines".
std::string ncu_errors(const std::string& log) {
  std::string out;
  size_t begin = 0;
  while (begin < log.size()) {
    size_t end = log.find('\n', begin);
    if (end == std::string::npos) end = log.size();
    const std::string line = log.substr(begin, end - begin);
    if (line.rfind("==ERROR==", 0) == 0) out += (out.empty() ? "" : " ") + line.substr(10);
    begin = end + 1;
  }
  return out.empty() ? "no error lines" : out;
}

size_t timed_shapes(const TaskSpec& task) {
  size_t n = 0;
  for (const ShapeCase& sc : task.shapes) n += sc.timed ? 1 : 0;
  return n;
}

}  // namespace

EvidenceRunMessages fold_evidence_run(const std::string& text, const std::string& key,
                                      const std::string& run) {
  EvidenceRunMessages out;
  bool truncated = false;
  out.all = parse_worker_messages(text, &truncated);
  if (const auto forged = first_forged_message(out.all, key)) {
    out.cheat = "line " + std::to_string(*forged + 1) + " of the " + run +
                "'s messages was not written by the worker (forged)";
    return out;
  }
  for (const json& m : out.all) {
    const std::string type = m.value("type", "");
    if (type == "harness_error")
      throw ApiError("ptxbench-worker failed in the " + run + ": " + m.value("message", ""));
    if (type == "candidate_fault") out.candidate_fault = m.value("message", "");
    if (type == "candidate_violation" && out.cheat.empty())
      out.cheat = m.value("finding", "") + " (during " + m.value("during", "") + ")";
    if (type == "candidate_timeout") out.timed_out = true;
    if (type == "sandbox") out.sandbox = m["report"];
    if (type == "evidence_control" || type == "evidence_call" || type == "evidence_counters")
      out.evidence.push_back(m);
    if (type == "evidence_shape_start") out.open_shape = m["shape"];
    if (type == "evidence_call" || type == "evidence_counters") out.open_shape = nullptr;
    if (type == "phases") out.worker_phases = m["seconds"];
    if (type == "done") out.done = true;
  }
  return out;
}

fs::path default_ncu() { return find_cuda_tool("PTXBENCH_NCU", "ncu"); }

std::vector<std::string> evidence_hardware_metrics(const TaskSpec& task, const Catalog& catalog) {
  std::vector<std::string> out;
  for (const CounterSpec& c : catalog.counters_for(task.arch)) out.push_back(c.metric);
  // The other-read metrics of the targets whose task caps those reads, each once. NOTE: they take
  // the run's hardware counters from one replay pass of every profiled kernel to five; where no
  // cap depends on them (the attention backward, the block-scaled fp8 GEMM) they would only be
  // reported, so they are left out there (docs/evidence.md, "Cost").
  std::set<std::string> other;
  for (const TargetSpec& t : task.targets)
    if (const InstructionEntry* e = catalog.find(t.instruction, task.arch);
        e != nullptr && t.max_other_read_input_share)
      other.insert(e->other_read_metrics.begin(), e->other_read_metrics.end());
  out.insert(out.end(), other.begin(), other.end());
  return out;
}

std::string evidence_ncu_metrics(const TaskSpec& task, const Catalog& catalog) {
  std::string metrics = std::string(kOpcodeMetric) + "," + std::string(kDurationMetric);
  for (const std::string& m : evidence_hardware_metrics(task, catalog))
    metrics.append(",").append(m);
  for (const FlopClass& c : kFlopClasses) metrics.append(",").append(flop_class_metric(c));
  return metrics;
}

EvidenceStage run_evidence_stage(const TaskSpec& task, const Catalog& catalog, WorkerJob job,
                                 const fs::path& worker, const EvidenceOptions& options,
                                 const fs::path& work_dir,
                                 std::optional<std::vector<std::string>> env) {
  EvidenceStage out;
  json& rec = out.record;
  rec["mechanism"] = "Nsight Compute: " + std::string(kOpcodeMetric) + " per kernel";
  if (options.ncu.empty()) {
    out.judgement.unavailable_reason = "Nsight Compute (ncu) not found; set PTXBENCH_NCU";
    rec["unavailable"] = out.judgement.unavailable_reason;
    return out;
  }
  rec["ncu"] = options.ncu.string();
  const auto version_start = std::chrono::steady_clock::now();
  rec["ncu_version"] = ncu_version(options.ncu, work_dir);
  rec["ncu_version_seconds"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - version_start).count();

  // NOTE: what the parent reads back lives outside the worker folder, where candidate code may
  // unlink and replace files: a private folder of this process (0700): ncu's log, the worker's
  // messages (opened by the worker before it drops its privileges) and ncu's stdout and stderr.
  // The log is copied into the worker folder only after reading.
  TempDir profile_dir("ptxbench-ncu");
  job.run_correctness = false;
  job.run_timing = false;
  job.run_evidence = true;
  job.result_file = profile_dir.path() / "evidence-messages.jsonl";
  // NOTE: the same path as the timing worker's job (which it deleted on reading), so that argv is
  // the same in both processes.
  const fs::path job_file = work_dir / "job.json";
  write_file_atomic(job_file, to_json(job).dump(2));
  const fs::path log = profile_dir.path() / "ncu.csv";
  const size_t launch_cap = 3 + timed_shapes(task) * (options.max_kernels_per_call + 1);

  ProcessSpec spec;
  spec.argv = {options.ncu.string(),
               "--clock-control",
               "none",
               "--profile-from-start",
               "off",
               "--target-processes",
               "application-only",
               "--metrics",
               evidence_ncu_metrics(task, catalog),
               "--print-metric-instances",
               "details",
               "--csv",
               "--log-file",
               log.string(),
               "--launch-count",
               std::to_string(launch_cap),
               worker.string(),
               job_file.string()};
  spec.cwd = work_dir;
  spec.env = std::move(env);
  spec.stdout_path = profile_dir.path() / "evidence-stdout.txt";
  spec.stderr_path = profile_dir.path() / "evidence-stderr.txt";
  spec.deadline = options.deadline;
  rec["command"] = spec.argv;
  const ProcessResult proc = run_process(spec);
  out.seconds = proc.wall_seconds;
  rec["seconds"] = proc.wall_seconds;
  rec["end"] = proc.describe();
  if (proc.timed_out) {
    out.timed_out = true;
    out.judgement.unavailable_reason = "the evidence run passed its deadline";
    return out;
  }

  const std::string message_text = read_text_file(job.result_file, 64 << 20);
  EvidenceRunMessages run = fold_evidence_run(message_text, job.message_key, "evidence run");
  out.cheat = run.cheat;
  out.candidate_fault = run.candidate_fault;
  out.timed_out = run.timed_out;
  if (!run.sandbox.is_null()) rec["sandbox"] = run.sandbox;
  if (!run.worker_phases.is_null()) rec["worker_phases"] = run.worker_phases;
  if (!out.cheat.empty() || !out.candidate_fault.empty() || out.timed_out) return out;
  if (!run.done && !run.open_shape.is_null()) {
    const ShapeCase* sc = find_shape(task, run.open_shape);
    out.candidate_fault = "the run ended (" + proc.describe() + ") during candidate code at " +
                          (sc != nullptr ? shape_label(task, *sc) : std::string("a timed shape")) +
                          "; ncu: " + ncu_errors(read_text_file(log, 16384));
    return out;
  }
  if (!run.done) {
    out.judgement.unavailable_reason = "the evidence run ended early (" + proc.describe() +
                                       "); ncu log: " + read_text_file(log, 2048) +
                                       read_text_file(spec.stderr_path, 2048);
    rec["unavailable"] = out.judgement.unavailable_reason;
    return out;
  }
  std::vector<ProfiledKernel> kernels;
  const std::string csv = read_text_file(log, 256 << 20);
  try {
    kernels = parse_ncu_csv(csv);
  } catch (const InputError& e) {
    out.judgement.unavailable_reason = std::string("ncu output unreadable: ") + e.what();
    rec["unavailable"] = out.judgement.unavailable_reason;
    return out;
  }
  // Copies for people reading the worker folder (PTXBENCH_KEEP_TEMP; bench/evidence_session.sh
  // records them as test fixtures). NOTE: written as new files renamed into place, which replace
  // whatever candidate code left under those names (a link included) instead of writing through.
  try {
    write_file_atomic(work_dir / "ncu.csv", csv);
    write_file_atomic(work_dir / "evidence-messages.jsonl", message_text);
  } catch (const std::exception&) {  // best effort: nothing depends on the copies
  }
  out.judgement = judge_runtime(task, catalog, kernels, run.evidence);
  for (auto& [key, value] : out.judgement.record.items()) rec[key] = value;
  if (!out.judgement.available) rec["unavailable"] = out.judgement.unavailable_reason;
  return out;
}

}  // namespace ptxb
