#include "eval/pipeline.hpp"

#include <algorithm>
#include <chrono>

#include "compile/compile_cache.hpp"
#include "compile/ptxas_log.hpp"
#include "core/arch.hpp"
#include "core/build_info.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "eval/counter_check.hpp"
#include "eval/library_choices.hpp"
#include "eval/ncu_evidence.hpp"
#include "eval/other_read_selection.hpp"
#include "eval/runtime_outcome.hpp"
#include "eval/sanitize.hpp"
#include "eval/tier.hpp"
#include "eval/worker_fold.hpp"
#include "eval/worker_launch.hpp"
#include "protocol/protocol.hpp"
#include "sys/files.hpp"
#include "sys/process.hpp"
#include "tasks/task_identity.hpp"
#include "tasks/task_json.hpp"

namespace ptxb {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string tail(const std::string& text, size_t max_bytes) {
  return text.size() <= max_bytes ? text : "[...]" + text.substr(text.size() - max_bytes);
}

// The first line of the compiler log that reads like an error, for the one-line reason.
std::string first_error_line(const std::string& log) {
  size_t begin = 0;
  while (begin < log.size()) {
    size_t end = log.find('\n', begin);
    if (end == std::string::npos) end = log.size();
    const std::string line = log.substr(begin, end - begin);
    if (is_error_line(line)) return line;
    begin = end + 1;
  }
  return tail(log, 200);
}

json compile_json(const CompileResult& c) {
  return {{"ok", c.ok},
          {"timed_out", c.timed_out},
          {"cached", c.cached},
          {"seconds", c.seconds},
          {"cache_key", c.cache_key},
          {"artefacts", c.shared_object.parent_path().string()},
          {"log", tail(c.log, 64 * 1024)},
          {"sass_available", c.sass_available},
          {"resources", resources_json(c.resources)},
          {"quality_flags", flags_json(c.quality_flags)},
          {"needed_libraries", c.needed_libraries},
          {"forbidden_imports", c.forbidden_imports}};
}

// Static evidence per target (S0, S1) and whether each meets its required static level; the
// runtime levels are filled in by apply_runtime.
struct TargetCheck {
  std::vector<TargetEvidence> evidence;
  std::string missing;       ///< first target below its static level, with why
  bool unavailable = false;  ///< a required static level could not be measured
};

TargetCheck check_targets(const TaskSpec& task, const Catalog& catalog, const CompileResult& c) {
  TargetCheck out;
  const auto evidence = static_evidence(task, catalog, c);
  for (size_t i = 0; i < task.targets.size(); ++i) {
    const TargetSpec& t = task.targets[i];
    const StaticEvidence& e = evidence[i];
    TargetEvidence row;
    row.instruction = t.instruction;
    row.required = std::string(to_string(t.required));
    row.s0 = level_result(e.s0);
    row.s1 = level_result(e.s1);
    row.functions = e.s1_functions;
    row.opcodes = e.s1_opcodes;
    bool met = e.s0;
    if (t.required >= EvidenceLevel::kS1) {
      if (!e.s1) out.unavailable = true;
      met = met && e.s1.value_or(false);
    }
    // Runtime levels are met only once apply_runtime has seen them.
    row.met = met && t.required < EvidenceLevel::kR1;
    if (!met && out.missing.empty())
      out.missing =
          t.instruction + (e.s0 ? ": no primary SASS opcode in any kernel" : ": not in the PTX");
    out.evidence.push_back(std::move(row));
  }
  return out;
}

// The device's nominal dense peak for the task's MMA type (the worker's "peak" record), if any:
// 8-bit float inputs count against the fp8 rate, everything else against the bf16 rate.
std::optional<double> peak_tflops(const TaskSpec& task, const json& environment) {
  const json dense =
      environment.value("peak", json::object()).value("dense_tflops", json::object());
  const DType first = task.inputs().front()->dtype;
  const char* type = first == DType::kF8E4M3 || first == DType::kF8E5M2 ? "fp8" : "bf16";
  if (!dense.contains(type) || !dense[type].is_number()) return std::nullopt;
  return dense[type].get<double>();
}

// The in-process evidence run in a worker folder of its own, reading the hardware metrics of
// `catalog` (its other-read metrics as selected).
InProcessProfile in_process_profile(const TaskSpec& task, const Catalog& catalog,
                                    const CompileResult& compiled, const WorkerJob& job,
                                    const EvalConfig& config) {
  TempDir work("ptxbench-inprocess-evidence");
  if (config.keep_temp) work.keep();
  const WorkerJob in_process_job =
      job_in_folder(job, config, work.path(), /*under_profiler=*/false);
  InProcessProfile p = run_inprocess_profile(
      in_process_job, evidence_hardware_metrics(task, catalog), config.worker,
      config.in_process_evidence, work.path(), compiled.sass, scrubbed_environment(work.path()));
  clean_up_after_worker(config);
  return p;
}

// The evidence run (PTXBENCH_EVIDENCE: ncu's or the in-process one) in a worker folder of its own
// (job_in_folder), collecting the other-read metrics that `catalog` lists.
EvidenceStage profile(const TaskSpec& task, const Catalog& catalog, const CompileResult& compiled,
                      const WorkerJob& job, const EvalConfig& config) {
  if (config.evidence_mechanism == EvidenceMechanism::kInProcess)
    return judge_in_process(task, catalog,
                            in_process_profile(task, catalog, compiled, job, config));
  TempDir evidence_work("ptxbench-evidence");
  if (config.keep_temp) evidence_work.keep();
  const WorkerJob evidence_job =
      job_in_folder(job, config, evidence_work.path(), /*under_profiler=*/true);
  EvidenceStage stage =
      run_evidence_stage(task, catalog, evidence_job, config.worker, config.evidence,
                         evidence_work.path(), scrubbed_environment(evidence_work.path()));
  clean_up_after_worker(config);
  return stage;
}

// The in-process evidence run beside ncu's (PTXBENCH_EVIDENCE=compare): how it went, its seconds,
// its counts against ncu's ("comparison") and its judgement against ncu's ("judgement").
json compare_in_process(const TaskSpec& task, const Catalog& catalog, const EvidenceStage& ncu,
                        const CompileResult& compiled, const WorkerJob& job,
                        const EvalConfig& config) {
  InProcessProfile p;
  try {
    p = in_process_profile(task, catalog, compiled, job, config);
  } catch (const ApiError& e) {
    // NOTE: a comparison that failed must not fail the judgement it only accompanies.
    p.unavailable_reason = std::string("harness error: ") + e.what();
  }
  json out = p.record;
  out["available"] = p.available;
  if (!p.unavailable_reason.empty()) out["unavailable"] = p.unavailable_reason;
  if (!p.candidate_fault.empty()) out["candidate_fault"] = p.candidate_fault;
  if (!p.cheat.empty()) out["cheat"] = p.cheat;
  out["timed_out"] = p.timed_out;
  if (p.available && ncu.judgement.split.problem.empty() && ncu.judgement.split.positive)
    out["comparison"] = compare_profiles(ncu.judgement.split, p.split);
  if (p.available)
    out["judgement"] =
        compare_judgements(ncu.judgement, judge_split(task, catalog, p.split, p.messages));
  return out;
}

// The evidence run with the other-read metrics of the load kinds the candidate's SASS has
// (eval/other_read_selection.hpp), and again with all of them when a profiled call executed an
// instruction of a kind left out (code its static SASS does not list). Seconds: both runs.
EvidenceStage profile_with_selected_reads(const TaskSpec& task, const Catalog& catalog,
                                          const CompileResult& compiled, const WorkerJob& job,
                                          const EvalConfig& config) {
  const OtherReadSelection reads = select_other_reads(catalog, compiled.sass_functions);
  EvidenceStage stage = profile(task, reads.catalog, compiled, job, config);
  json left_out = json::array();
  for (const auto& [metric, families] : reads.left_out) left_out.push_back(metric);
  // NOTE: a run that found something against the candidate stands: a second one might not.
  const bool clean = stage.cheat.empty() && stage.candidate_fault.empty() && !stage.timed_out &&
                     stage.judgement.pass_disagreement.empty() &&
                     stage.judgement.call_failure.empty();
  if (const auto executed = left_out_kind_executed(reads, stage.judgement.call_opcodes);
      executed && clean) {
    const double first_seconds = stage.seconds;
    stage = profile(task, catalog, compiled, job, config);
    stage.seconds += first_seconds;
    stage.record["other_reads_taken_again"] = "a profiled call executed " + *executed;
    left_out = json::array();
  }
  stage.record["other_read_metrics_left_out"] = left_out;
  if (config.evidence_mechanism == EvidenceMechanism::kCompare)
    // NOTE: the metrics of the ncu run that stands: the selected reads, or all after a second run.
    stage.record["in_process"] = compare_in_process(
        task, left_out.empty() ? catalog : reads.catalog, stage, compiled, job, config);
  return stage;
}

}  // namespace

Verdict evaluate(const EvalRequest& request, const EvalConfig& config) {
  const Catalog catalog = load_catalog(config.catalog_dir());
  const TaskSpec full_task = find_task(config.tasks_root, catalog, request.task_id);
  const TaskSpec task = config.tier == Tier::kQuick ? quick_task(full_task) : full_task;
  Verdict v;
  json& r = v.record;
  r["task"] = task.id;
  r["family"] = task.family;
  r["arch"] = task.arch;
  r["task_hash"] = task_hash(full_task, catalog);  // the task's identity, whatever the tier
  r["tier"] = tier_name(config.tier);
  r["source"] = {{"path", request.source_path.string()}, {"sha256", sha256_hex(request.source)}};
  r["ptxbench_version"] = PTXB_VERSION;
  r["ptxbench_commit"] = ptxbench_commit();
  r["config"] = config.to_json();

  CompileOptions co = config.compile;
  co.arch = task.arch;
  const CompileResult compiled = compile_submission(request.source, co);
  r["compile"] = compile_json(compiled);
  r["stage_seconds"]["compile"] = compiled.seconds;
  if (!compiled.ok) {
    v.outcome = Outcome::kCompileError;
    v.reason = compiled.timed_out ? "compile deadline passed" : first_error_line(compiled.log);
    return v;
  }
  const TargetCheck targets = check_targets(task, catalog, compiled);
  v.targets = targets.evidence;

  TempDir work("ptxbench-worker");
  TempDir binary("ptxbench-binary");  // the loaded shared object, out of the workers' reach
  if (config.keep_temp) {
    work.keep();
    binary.keep();
  }
  WorkerJob job = prepare_worker_job(task, catalog, config, compiled, work.path(), binary.path());
  const std::filesystem::path choices_file = library_choices_path(
      config.compile.cache_dir, r["task_hash"].get<std::string>(), config.device);
  const bool cache_choices = config.library_choices && !config.compile.cache_dir.empty() &&
                             config.run_timing && !config.self_baseline;
  if (cache_choices) job.library_choices = load_library_choices(choices_file);
  write_file_atomic(work.path() / "job.json", to_json(job).dump(2));

  ProcessSpec spec;
  spec.argv = {config.worker.string(), (work.path() / "job.json").string()};
  spec.cwd = work.path();
  spec.env = scrubbed_environment(work.path());
  spec.stdout_path = work.path() / "stdout.txt";
  spec.stderr_path = work.path() / "stderr.txt";
  spec.deadline = config.worker_deadline;
  spec.pass_result_pipe = true;
  const auto t0 = Clock::now();
  const ProcessResult proc = run_process(spec);
  clean_up_after_worker(config);
  r["stage_seconds"]["worker"] = seconds_since(t0);
  r["worker"]["stdout_tail"] = tail(read_text_file(spec.stdout_path, 1 << 20), 4096);
  r["worker"]["stderr_tail"] = tail(read_text_file(spec.stderr_path, 1 << 20), 4096);

  const WorkerOutcome w = fold_worker(proc, job.message_key, v);
  // The choices the worker made before any candidate code ran (worker_fold.cpp), for the next
  // evaluation of the task on this device; none to store when all came from the cache.
  const json made = r.value("library_choices", json::array());
  const bool timed = std::any_of(made.begin(), made.end(), [](const json& c) {
    return c.is_object() && c.value("source", json()) == "timed";
  });
  if (cache_choices && timed) {
    try {
      store_library_choices(choices_file, made);
    } catch (const ApiError& e) {
      r["audit"].push_back(std::string("library choices not cached: ") + e.what());
    }
  }
  const json environment = r.value("environment", json::object());
  const std::optional<double> peak = peak_tflops(task, environment);
  const json memory_gbs = environment.value("peak", json::object()).value("memory_gbs", json());
  for (ShapeTiming& t : v.timing) {
    t.peak_tflops = peak;
    if (memory_gbs.is_number()) t.peak_gbs = memory_gbs.get<double>();
    if (const ShapeCase* sc = find_shape(task, t.shape)) t.regime = sc->regime;
  }
  v.outcome = w.outcome;
  v.reason = w.reason;
  if (v.outcome != Outcome::kPassed) return v;
  if (!compiled.forbidden_imports.empty()) {
    v.outcome = Outcome::kRejectedCheat;
    v.reason = "imports GPU libraries: " + compiled.forbidden_imports.front();
    return v;
  }
  if (!targets.missing.empty()) {
    v.outcome = Outcome::kInstructionMissing;
    v.reason = targets.missing;
    return v;
  }
  if (config.sanitize) {
    const SanitizeResult s = run_sanitizers(job, config);
    r["sanitizer"] = s.record;
    for (const std::string& a : s.audit) r["audit"].push_back(a);
    if (!s.failure.empty()) {
      v.outcome = Outcome::kIncorrect;
      v.reason = s.failure;
      return v;
    }
  }
  if (targets.unavailable) {
    v.outcome = Outcome::kUnavailable;
    v.reason =
        "S1 could not be measured: no SASS listing (cuobjdump missing or failed; see "
        "the compile log)";
    return v;
  }
  EvidenceStage stage;
  const Arch* arch = find_arch(task.arch);
  if (config.run_evidence && !arch->evidence_controls) {
    stage.judgement.unavailable_reason =
        "no evidence control kernels exist for " + task.arch + " (src/controls is built for " +
        "the architectures core/arch.hpp marks), so runtime evidence cannot be checked";
    stage.record["unavailable"] = stage.judgement.unavailable_reason;
  } else if (config.run_evidence) {
    stage = profile_with_selected_reads(task, catalog, compiled, job, config);
    r["stage_seconds"]["evidence"] = stage.seconds;
  } else {
    stage.judgement.unavailable_reason = "the evidence stage was switched off (--no-evidence)";
    stage.record["unavailable"] = stage.judgement.unavailable_reason;
  }
  r["evidence"] = stage.record;
  const CounterCheck counters =
      check_counters(task, catalog, r.value("counters", json::object()), stage.judgement);
  r["counter_check"] = counters.record;
  for (const std::string& a : counters.audit) r["audit"].push_back(a);
  const RuntimeOutcome e = apply_runtime(task, stage, v.targets);
  v.outcome = e.outcome;
  v.reason = e.outcome == Outcome::kPassed
                 ? "correct on " + std::to_string(v.correctness->total.value_or(0)) +
                       " cases; every target at its required evidence level, in the profiled " +
                       "and in every counted call"
                 : e.reason;
  // A cheat decides over everything but a cheat seen under the profiler; unmeasured counters
  // only keep a pass from being claimed.
  if ((counters.outcome == Outcome::kRejectedCheat && stage.cheat.empty()) ||
      (counters.outcome == Outcome::kUnavailable && v.outcome == Outcome::kPassed)) {
    v.outcome = *counters.outcome;
    v.reason = counters.reason;
  }
  return v;
}

}  // namespace ptxb
