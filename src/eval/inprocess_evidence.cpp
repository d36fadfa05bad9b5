#include "eval/inprocess_evidence.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>

#include "compile/sass.hpp"
#include "controls/evidence_names.hpp"
#include "controls/flop_classes.hpp"
#include "core/error.hpp"
#include "instrument/sass_profile.hpp"
#include "sys/files.hpp"
#include "sys/process.hpp"

namespace ptxb {
namespace fs = std::filesystem;
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr double kCounterTolerance = 1e-3;

// A message's "records" ({"functions": [...], "pcs": [[index, pc, warps, threads], ...]}) as
// PcRecords; nullopt when the field is missing or malformed.
std::optional<std::vector<PcRecord>> message_records(const json& m) {
  const auto at = m.find("records");
  if (at == m.end() || !at->is_object()) return std::nullopt;
  try {
    const auto functions = at->at("functions").get<std::vector<std::string>>();
    std::vector<PcRecord> out;
    for (const json& row : at->at("pcs")) {
      const size_t index = row.at(0).get<size_t>();
      if (index >= functions.size()) return std::nullopt;
      out.push_back({functions[index], row.at(1).get<uint32_t>(), row.at(2).get<int64_t>(),
                     row.at(3).get<int64_t>()});
    }
    return out;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

// The kernel per function of one message's records; `problem` set on failure.
std::vector<ProfiledKernel> message_kernels(const json& m, const PcOpcodes& listing,
                                            std::string* problem) {
  const auto records = message_records(m);
  if (!records) {
    *problem = "a \"" + m.value("type", std::string()) + "\" message has no readable records";
    return {};
  }
  try {
    return sass_profiled_kernels(opcode_executions(listing, *records));
  } catch (const InputError& e) {
    *problem = e.what();
    return {};
  }
}

// The kernel's own name: ncu's and the demangler's spellings differ in parameter lists; CUPTI's
// range names may be mangled.
std::string kernel_key(const std::string& name) {
  const std::string readable = demangled_kernel_name(name);
  return readable.substr(0, readable.find('('));
}

// One kernel standing for all of a call's functions: opcodes and metrics summed, named by its
// functions ("gemm + reduce").
ProfiledKernel call_total(const std::vector<ProfiledKernel>& kernels) {
  ProfiledKernel out;
  for (const ProfiledKernel& k : kernels) {
    out.name += (out.name.empty() ? "" : " + ") + kernel_key(k.name);
    out.executed_total += k.executed_total;
    for (const auto& [op, n] : k.opcodes) out.opcodes[op] += n;
    for (const auto& [m, v] : k.metrics) out.metrics[m] += v;
  }
  return out;
}

// Adds an "evidence_counters" message's summed counts to `kernel`'s metrics; false when they are
// unreadable.
bool add_counted(const json& counters_msg, ProfiledKernel& kernel) {
  try {
    for (const auto& [metric, value] : counters_msg.at("counted").at("values").items())
      kernel.metrics[metric] += value.get<double>();
    return true;
  } catch (const json::exception&) {
    return false;
  }
}

// A call's (or control's) kernels summed: opcodes, class metrics and every other metric.
struct Totals {
  std::map<std::string, int64_t> opcodes;
  std::map<std::string, double> classes;
  std::map<std::string, double> counters;  ///< every other metric
};

// Under the names of the kernels, each once, sorted and joined ("gemm + reduce").
std::pair<std::string, Totals> totals(const std::vector<ProfiledKernel>& kernels) {
  std::set<std::string> names;
  Totals t;
  for (const ProfiledKernel& k : kernels) {
    for (size_t at = 0; at < k.name.size();) {  // a call total's name lists its functions
      const size_t plus = std::min(k.name.find(" + ", at), k.name.size());
      names.insert(kernel_key(k.name.substr(at, plus - at)));
      at = plus + 3;
    }
    for (const auto& [op, n] : k.opcodes) t.opcodes[op] += n;
    for (const auto& [metric, value] : k.metrics) {
      const auto cls =
          std::find_if(kFlopClasses.begin(), kFlopClasses.end(),
                       [&](const FlopClass& c) { return flop_class_metric(c) == metric; });
      if (cls != kFlopClasses.end())
        t.classes[std::string(cls->name)] += value;
      else
        t.counters[metric] += value;
    }
  }
  std::string name;
  for (const std::string& n : names) name += (name.empty() ? "" : " + ") + n;
  return {name, t};
}

// One comparison of two kernel lists as wholes (the in-process run has one kernel per call);
// *same cleared when anything differs.
json compare_kernels(const std::vector<ProfiledKernel>& ncu,
                     const std::vector<ProfiledKernel>& in_process, bool* same) {
  const auto [ncu_name, x] = totals(ncu);
  const auto [own_name, y] = totals(in_process);
  std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> opcode_diffs;
  std::map<std::string, int64_t> all = x.opcodes;
  for (const auto& [op, n] : y.opcodes) all.emplace(op, 0);
  for (const auto& [op, unused] : all) {
    const int64_t u = x.opcodes.count(op) ? x.opcodes.at(op) : 0;
    const int64_t v = y.opcodes.count(op) ? y.opcodes.at(op) : 0;
    if (u != v) opcode_diffs.push_back({op, {u, v}});
  }
  std::sort(opcode_diffs.begin(), opcode_diffs.end(), [](const auto& l, const auto& r) {
    return std::llabs(l.second.first - l.second.second) >
           std::llabs(r.second.first - r.second.second);
  });
  json opcodes = json::object();
  for (size_t i = 0; i < opcode_diffs.size() && i < 8; ++i)
    opcodes[opcode_diffs[i].first] = {{"ncu", opcode_diffs[i].second.first},
                                      {"in_process", opcode_diffs[i].second.second}};
  json classes = json::object();
  for (const FlopClass& c : kFlopClasses) {
    const std::string n(c.name);
    // NOTE: ncu reports every class for every kernel; a class it lacks is not compared.
    if (!x.classes.count(n)) continue;
    const double v = y.classes.count(n) ? y.classes.at(n) : 0;
    if (x.classes.at(n) != v) classes[n] = {{"ncu", x.classes.at(n)}, {"in_process", v}};
  }
  // Hardware counters both runs read (ncu's duration, for one, the in-process run does not),
  // from different runs of the kernels: equal within kCounterTolerance.
  json counters = json::object();
  for (const auto& [metric, u] : x.counters) {
    const auto v = y.counters.find(metric);
    if (v == y.counters.end()) continue;
    if (std::fabs(u - v->second) > kCounterTolerance * std::max(std::fabs(u), std::fabs(v->second)))
      counters[metric] = {{"ncu", u}, {"in_process", v->second}};
  }
  int64_t ncu_total = 0, own_total = 0;
  for (const auto& [op, n] : x.opcodes) ncu_total += n;
  for (const auto& [op, n] : y.opcodes) own_total += n;
  const bool all_same = opcode_diffs.empty() && classes.empty() && counters.empty();
  *same = *same && all_same;
  return {{"kernels", ncu_name},
          {"in_process_kernels", own_name},
          {"same", all_same},
          {"ncu_executed", ncu_total},
          {"in_process_executed", own_total},
          {"opcodes_differing", opcode_diffs.size()},
          {"opcodes", opcodes},
          {"classes", classes},
          {"counters", counters}};
}

}  // namespace

std::optional<std::string> control_listing(const fs::path& cuobjdump, const fs::path& worker,
                                           std::string* why_not) {
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  std::error_code ec;
  const std::string key =
      worker.string() + "|" + std::to_string(fs::file_size(worker, ec)) + "|" +
      std::to_string(fs::last_write_time(worker, ec).time_since_epoch().count());
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = known.find(key); it != known.end()) return it->second;
  }
  TempDir dir("ptxbench-controls-sass");
  ProcessSpec spec;
  spec.argv = {cuobjdump.string(), "-sass", "-fun",
               std::string(kControlKernelName) + "," + kFlopControlKernelName, worker.string()};
  spec.stdout_path = dir.path() / "controls.sass";
  spec.stderr_path = dir.path() / "cuobjdump-stderr.txt";
  spec.deadline = 120s;
  const ProcessResult r = run_process(spec);
  const std::string text = read_text_file(spec.stdout_path, 64 << 20);
  const PcOpcodes listed = sass_pc_opcodes(text);
  if (!r.ok() || !listed.count(kControlKernelName) || !listed.count(kFlopControlKernelName)) {
    if (why_not != nullptr)
      *why_not = "cuobjdump -sass of the worker's controls failed (" + r.describe() +
                 "): " + read_text_file(spec.stderr_path, 1024);
    return std::nullopt;
  }
  const std::lock_guard<std::mutex> lock(mutex);
  known[key] = text;
  return text;
}

SplitKernels split_from_records(const std::vector<json>& messages, const std::string& control_sass,
                                const std::string& candidate_sass) {
  SplitKernels out;
  const PcOpcodes controls = sass_pc_opcodes(control_sass);
  const PcOpcodes candidate = sass_pc_opcodes(candidate_sass);
  std::vector<ProfiledKernel> control_kernels;
  std::vector<json> control_counts, call_counts;
  for (const json& m : messages) {
    const std::string type = m.value("type", "");
    if (type == "evidence_counters" && m.contains("control")) control_counts.push_back(m);
    if (type == "evidence_counters" && m.contains("shape") && m.value("plan_status", 0) == 0)
      call_counts.push_back(m);
    if (type == "evidence_control") {
      std::vector<ProfiledKernel> k = message_kernels(m, controls, &out.problem);
      if (!out.problem.empty()) return out;
      if (k.size() != 1) {
        out.problem = "a control's collection holds " + std::to_string(k.size()) + " functions";
        return out;
      }
      control_kernels.push_back(std::move(k.front()));
    }
    if (type == "evidence_call" && m.value("plan_status", 0) == 0) {
      const std::vector<ProfiledKernel> k = message_kernels(m, candidate, &out.problem);
      if (!out.problem.empty()) return out;
      out.calls.push_back({call_total(k)});
    }
  }
  if (control_kernels.size() != 3) {
    out.problem = "the run sent " + std::to_string(control_kernels.size()) + " controls, not 3";
    return out;
  }
  // The counted runs' sums, when the run made them: one per control and per collected call.
  if (!control_counts.empty() || !call_counts.empty()) {
    if (control_counts.size() != 3 || call_counts.size() != out.calls.size()) {
      out.problem = "counted runs (" + std::to_string(control_counts.size()) + " controls, " +
                    std::to_string(call_counts.size()) + " calls) do not match the collections";
      return out;
    }
    for (size_t i = 0; i < 3; ++i)
      if (!add_counted(control_counts[i], control_kernels[i])) out.problem = "unreadable counts";
    for (size_t i = 0; i < out.calls.size(); ++i)
      if (!add_counted(call_counts[i], out.calls[i].front())) out.problem = "unreadable counts";
    if (!out.problem.empty()) return out;
  }
  out.positive = control_kernels[0];
  out.negative = control_kernels[1];
  out.flop = control_kernels[2];
  return out;
}

InProcessProfile run_inprocess_profile(WorkerJob job, std::vector<std::string> hardware_metrics,
                                       const fs::path& worker,
                                       const InProcessEvidenceOptions& options,
                                       const fs::path& work_dir, const std::string& candidate_sass,
                                       std::vector<std::string> env) {
  InProcessProfile out;
  json& rec = out.record;
  std::string why;
  const std::optional<std::string> controls = control_listing(options.cuobjdump, worker, &why);
  if (!controls) {
    out.unavailable_reason = why;
    return out;
  }
  // NOTE: as the ncu run's: what the parent reads back lives in a private folder of its own.
  TempDir private_dir("ptxbench-inprocess");
  job.run_correctness = false;
  job.run_timing = false;
  job.run_evidence = true;
  job.evidence_in_process = true;
  job.evidence_metrics = std::move(hardware_metrics);
  job.result_file = private_dir.path() / "evidence-messages.jsonl";
  const fs::path job_file = work_dir / "job.json";
  write_file_atomic(job_file, to_json(job).dump(2));
  std::string library_path = "LD_LIBRARY_PATH=" + options.cupti_dir.string();
  for (std::string& e : env)
    if (e.rfind("LD_LIBRARY_PATH=", 0) == 0) library_path += ":" + e.substr(16), e.clear();
  std::erase(env, std::string());
  env.push_back(library_path);

  ProcessSpec spec;
  spec.argv = {worker.string(), job_file.string()};
  spec.cwd = work_dir;
  spec.env = std::move(env);
  spec.stdout_path = private_dir.path() / "stdout.txt";
  spec.stderr_path = private_dir.path() / "stderr.txt";
  spec.deadline = options.deadline;
  const ProcessResult proc = run_process(spec);
  out.seconds = proc.wall_seconds;
  rec["seconds"] = proc.wall_seconds;
  rec["end"] = proc.describe();
  if (proc.timed_out) {
    out.timed_out = true;
    out.unavailable_reason = "the in-process evidence run passed its deadline";
    return out;
  }
  EvidenceRunMessages run = fold_evidence_run(read_text_file(job.result_file, 256 << 20),
                                              job.message_key, "in-process evidence run");
  out.cheat = run.cheat;
  out.candidate_fault = run.candidate_fault;
  out.timed_out = run.timed_out;
  if (!run.sandbox.is_null()) rec["sandbox"] = run.sandbox;
  if (!run.worker_phases.is_null()) rec["worker_phases"] = run.worker_phases;
  for (const json& m : run.all) {
    const std::string type = m.value("type", "");
    if (type == "kernel_counters") {
      rec["kernel_counters_seconds"] = m.value("seconds", 0.0);
      // NOTE: while the in-process run is compared, not judged, its per-instruction counts are
      // still worth comparing without the counters.
      if (!m.value("available", false)) rec["kernel_counters_unavailable"] = m.value("reason", "");
    }
    if (type == "sass_metrics") {
      rec["cupti_version"] = m.value("cupti_version", 0);
      rec["configure_seconds"] = m.value("seconds", 0.0);
      if (!m.value("available", false)) out.unavailable_reason = m.value("reason", "");
    }
  }
  if (!out.unavailable_reason.empty() || !out.cheat.empty() || !out.candidate_fault.empty() ||
      out.timed_out)
    return out;
  if (!run.done && !run.open_shape.is_null()) {
    out.candidate_fault = "the in-process evidence run ended (" + proc.describe() +
                          ") during candidate code at shape " + run.open_shape.dump();
    return out;
  }
  if (!run.done) {
    out.unavailable_reason = "the in-process evidence run ended early (" + proc.describe() +
                             "): " + read_text_file(spec.stderr_path, 2048);
    return out;
  }
  out.split = split_from_records(run.evidence, *controls, candidate_sass);
  out.messages = std::move(run.evidence);
  out.available = out.split.problem.empty();
  if (!out.available) out.unavailable_reason = out.split.problem;
  return out;
}

EvidenceStage judge_in_process(const TaskSpec& task, const Catalog& catalog,
                               const InProcessProfile& profile) {
  EvidenceStage out;
  out.candidate_fault = profile.candidate_fault;
  out.cheat = profile.cheat;
  out.timed_out = profile.timed_out;
  out.seconds = profile.seconds;
  if (profile.available) {
    out.judgement = judge_split(task, catalog, profile.split, profile.messages);
  } else {
    out.judgement.unavailable_reason = profile.unavailable_reason;
  }
  json& rec = out.record;
  rec = out.judgement.record;
  rec["mechanism"] =
      "in-process: CUPTI SASS metrics per instruction and the range profiler per "
      "kernel, in the worker";
  for (const auto& [key, value] : profile.record.items()) rec[key] = value;
  if (!out.judgement.available && !out.judgement.unavailable_reason.empty())
    rec["unavailable"] = out.judgement.unavailable_reason;
  return out;
}

json compare_judgements(const RuntimeJudgement& ncu, const RuntimeJudgement& in_process) {
  auto summary = [](const RuntimeJudgement& j) {
    json targets = json::object();
    auto level = [](const std::optional<bool>& l) { return l ? json(*l) : json("unavailable"); };
    for (const auto& [name, t] : j.targets)
      targets[name] = {{"R1", level(t.r1)}, {"R2", level(t.r2)}};
    return json{{"available", j.available},
                {"unavailable", j.unavailable_reason},
                {"targets", targets},
                {"pass_disagreement", j.pass_disagreement},
                {"call_failure", j.call_failure}};
  };
  json a = summary(ncu), b = summary(in_process);
  // The texts name numbers and kernels; whether each is set is what a verdict depends on.
  const bool same = a["available"] == b["available"] && a["targets"] == b["targets"] &&
                    ncu.pass_disagreement.empty() == in_process.pass_disagreement.empty() &&
                    ncu.call_failure.empty() == in_process.call_failure.empty();
  return {{"same", same}, {"ncu", std::move(a)}, {"in_process", std::move(b)}};
}

json compare_profiles(const SplitKernels& ncu, const SplitKernels& in_process) {
  bool same = true;
  json controls = json::array();
  const std::pair<const std::optional<ProfiledKernel>*, const std::optional<ProfiledKernel>*>
      pairs[] = {{&ncu.positive, &in_process.positive},
                 {&ncu.negative, &in_process.negative},
                 {&ncu.flop, &in_process.flop}};
  for (const auto& [a, b] : pairs) {
    std::vector<ProfiledKernel> x, y;
    if (*a) x.push_back(**a);
    if (*b) y.push_back(**b);
    controls.push_back(compare_kernels(x, y, &same));
  }
  json calls = json::array();
  if (ncu.calls.size() != in_process.calls.size()) same = false;
  for (size_t i = 0; i < std::min(ncu.calls.size(), in_process.calls.size()); ++i)
    calls.push_back(compare_kernels(ncu.calls[i], in_process.calls[i], &same));
  return {{"same", same},
          {"ncu_calls", ncu.calls.size()},
          {"in_process_calls", in_process.calls.size()},
          {"controls", controls},
          {"calls", calls}};
}

}  // namespace ptxb
