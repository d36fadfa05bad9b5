#include "eval/pipeline.hpp"

#include <chrono>

#include "compile/compile_cache.hpp"
#include "core/error.hpp"
#include "eval/runtime_outcome.hpp"
#include "instrument/ncu_evidence.hpp"
#include "sys/files.hpp"
#include "sys/process.hpp"
#include "worker/protocol.hpp"

namespace ptxb {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

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
    if (line.find("error") != std::string::npos) return line;
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

json timing_summary(const json& m) {
  if (m.contains("error")) return m;
  const double flops = m["flops"].get<double>();
  const double cand_us = m["candidate"]["median"].get<double>();
  const double base_us = m["baseline"]["median"].get<double>();
  json s = m;
  s["candidate_tflops"] = flops / (cand_us * 1e-6) / 1e12;
  s["baseline_tflops"] = flops / (base_us * 1e-6) / 1e12;
  s["fraction_of_library"] = base_us / cand_us;
  return s;
}

struct WorkerOutcome {
  Outcome outcome = Outcome::kPassed;
  std::string reason;
};

// Folds the worker's messages and its end into an outcome; fills the record.
WorkerOutcome fold_worker(const ProcessResult& proc, json& record) {
  bool truncated = false;
  const auto messages = parse_worker_messages(proc.result_bytes, &truncated);
  json cases = json::array(), timing = json::array();
  bool done = false, hello = false;
  WorkerOutcome out;
  json first_failure;  // the first failing case message, null while none
  for (const json& m : messages) {
    const std::string type = m["type"];
    if (type == "hello") {
      hello = m.value("protocol", 0) == kWorkerProtocolVersion;
    } else if (type == "environment") {
      record["environment"] = m["device"];
    } else if (type == "case") {
      if (!m["passed"].get<bool>() && first_failure.is_null()) first_failure = m;
      cases.push_back(m);
    } else if (type == "timing") {
      timing.push_back(timing_summary(m));
    } else if (type == "done") {
      done = true;
    } else if (type == "no_gpu") {
      out = {Outcome::kUnavailable,
             "no suitable GPU: static stage only (" + m.value("message", "") + ")"};
    } else if (type == "load_error") {
      out = {Outcome::kLoadError, m.value("message", "")};
    } else if (type == "candidate_fault") {
      out = {Outcome::kCrashed, "CUDA fault after candidate code: " + m.value("message", "")};
    } else if (type == "harness_error") {
      throw ApiError("ptxbench-worker failed: " + m.value("message", ""));
    }
  }
  record["correctness"] = {{"cases", cases}};
  record["timing"] = timing;
  record["worker"]["end"] = proc.describe();
  record["worker"]["messages"] = messages.size();
  record["worker"]["truncated_output"] = truncated;

  if (out.outcome != Outcome::kPassed) return out;
  if (proc.timed_out) return {Outcome::kTimeout, "worker " + proc.describe()};
  if (!hello) throw ApiError("ptxbench-worker did not start: " + proc.describe());
  if (!done)
    return {Outcome::kCrashed, "worker ended before finishing (" + proc.describe() + ") after " +
                                   std::to_string(cases.size()) + " correctness cases"};
  int passed = 0;
  for (const json& c : cases) passed += c["passed"].get<bool>() ? 1 : 0;
  record["correctness"]["passed"] = passed;
  record["correctness"]["total"] = cases.size();
  if (!first_failure.is_null()) {
    const json& f = first_failure;
    std::string why = "at " + f["shape"].dump() + (f.value("hidden", false) ? " (hidden)" : "");
    if (f.contains("seed")) why += " seed " + f["seed"].dump() + " " + f.value("distribution", "");
    if (f.value("run_status", 0) != 0) why += ": ptxb_run returned " + f["run_status"].dump();
    if (f.value("modified_input_bytes", 0) != 0)
      why += ": inputs modified (" + f["modified_input_bytes"].dump() + " bytes)";
    for (const json& o : f.value("outputs", json::array()))
      if (!o["passed"].get<bool>()) {
        why += ": " + o["name"].get<std::string>() + " " +
               std::to_string(o["mismatches"].get<int64_t>()) + " mismatches";
        if (o.contains("first_mismatch"))
          why += ", first at row " + o["first_mismatch"]["row"].dump() + " col " +
                 o["first_mismatch"]["col"].dump() + " got " + o["first_mismatch"]["got"].dump() +
                 " want " + o["first_mismatch"]["want"].dump();
        break;
      }
    if (f.contains("reason")) why += ": " + f["reason"].get<std::string>();
    return {Outcome::kIncorrect, why};
  }
  return out;
}

// Static evidence per target (S0, S1) and whether each meets its required static level; the
// runtime levels are filled in by apply_runtime.
struct TargetCheck {
  json evidence = json::array();
  std::string missing;       ///< first target below its static level, with why
  bool unavailable = false;  ///< a required static level could not be measured
};

TargetCheck check_targets(const TaskSpec& task, const Catalog& catalog, const CompileResult& c) {
  TargetCheck out;
  const auto evidence = static_evidence(task, catalog, c);
  for (size_t i = 0; i < task.targets.size(); ++i) {
    const TargetSpec& t = task.targets[i];
    const StaticEvidence& e = evidence[i];
    json row = {{"instruction", t.instruction},
                {"required", to_string(t.required)},
                {"S0", e.s0},
                {"S1", e.s1 ? json(*e.s1) : json("unavailable")},
                {"R1", "unavailable"},
                {"R2", "unavailable"},
                {"functions", e.s1_functions},
                {"opcodes", e.s1_opcodes}};
    bool met = e.s0;
    if (t.required >= EvidenceLevel::kS1) {
      if (!e.s1) out.unavailable = true;
      met = met && e.s1.value_or(false);
    }
    // Runtime levels are met only once apply_runtime has seen them.
    row["met"] = met && t.required < EvidenceLevel::kR1;
    if (!met && out.missing.empty())
      out.missing =
          t.instruction + (e.s0 ? ": no primary SASS opcode in any kernel" : ": not in the PTX");
    out.evidence.push_back(std::move(row));
  }
  return out;
}

}  // namespace

Verdict evaluate(const EvalRequest& request, const EvalConfig& config) {
  const Catalog catalog = load_catalog(config.catalog_dir());
  const TaskSpec task = find_task(config.tasks_root, catalog, request.task_id);
  Verdict v;
  json& r = v.record;
  r["task"] = task.id;
  r["source"] = {{"path", request.source_path.string()}, {"sha256", sha256_hex(request.source)}};
  r["ptxbench_version"] = PTXB_VERSION;
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
  r["targets"] = targets.evidence;

  TempDir work("ptxbench-worker");
  if (config.keep_temp) work.keep();
  WorkerJob job;
  job.task_toml = task.dir / "task.toml";
  job.catalog_dir = config.catalog_dir();
  job.shared_object = compiled.shared_object;
  job.run_timing = config.run_timing;
  job.baseline = config.self_baseline ? "self" : "library";
  job.timing_warmup = config.timing_warmup;
  job.timing_samples = config.timing_samples;
  job.device = config.device;
  write_file_atomic(work.path() / "job.json", to_json(job).dump(2));

  ProcessSpec spec;
  spec.argv = {config.worker.string(), (work.path() / "job.json").string()};
  spec.cwd = work.path();
  spec.stdout_path = work.path() / "stdout.txt";
  spec.stderr_path = work.path() / "stderr.txt";
  spec.deadline = config.worker_deadline;
  spec.pass_result_pipe = true;
  const auto t0 = Clock::now();
  const ProcessResult proc = run_process(spec);
  r["stage_seconds"]["worker"] = seconds_since(t0);
  r["worker"]["stdout_tail"] = tail(read_text_file(spec.stdout_path, 1 << 20), 4096);
  r["worker"]["stderr_tail"] = tail(read_text_file(spec.stderr_path, 1 << 20), 4096);

  const WorkerOutcome w = fold_worker(proc, r);
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
  if (targets.unavailable) {
    v.outcome = Outcome::kUnavailable;
    v.reason =
        "S1 could not be measured: no SASS listing (cuobjdump missing or failed; see "
        "the compile log)";
    return v;
  }
  EvidenceStage stage;
  if (config.run_evidence) {
    stage = run_evidence_stage(task, catalog, job, config.worker, config.evidence, work.path());
    r["stage_seconds"]["evidence"] = stage.seconds;
  } else {
    stage.judgement.unavailable_reason = "the evidence stage was switched off (--no-evidence)";
    stage.record["unavailable"] = stage.judgement.unavailable_reason;
  }
  r["evidence"] = stage.record;
  const RuntimeOutcome e = apply_runtime(task, stage, r["targets"]);
  v.outcome = e.outcome;
  v.reason = e.outcome == Outcome::kPassed
                 ? "correct on " + r["correctness"]["total"].dump() + " cases; every target at " +
                       "its required evidence level"
                 : e.reason;
  return v;
}

}  // namespace ptxb
