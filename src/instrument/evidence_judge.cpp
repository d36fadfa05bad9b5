#include "instrument/evidence_judge.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "controls/evidence_names.hpp"
#include "controls/flop_classes.hpp"
#include "core/error.hpp"
#include "instrument/control_bytes.hpp"
#include "instrument/counter_match.hpp"
#include "instrument/nontarget_flops.hpp"
#include "instrument/nontarget_instructions.hpp"
#include "instrument/sass_opcode.hpp"
#include "tasks/task_json.hpp"
#include "verdict/verdict.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

json kernel_json(const ProfiledKernel& k) {
  return {{"id", k.id},
          {"name", k.name},
          {"stream", k.stream},
          {"grid", k.grid},
          {"block", k.block},
          {"executed_total", k.executed_total},
          {"duration_ns", k.duration_ns ? json(*k.duration_ns) : json(nullptr)},
          {"metrics", k.metrics}};
}

// The non-target arithmetic of one call's kernels; each kernel's figures go into `kernels_json`.
CallNonTarget call_nontarget(const std::vector<ProfiledKernel>& call, const FlopWeights& weights,
                             const std::vector<const InstructionEntry*>& mma_targets,
                             double problem_flops, json& kernels_json) {
  CallNonTarget out;
  double total = 0, top = -1;
  out.work = call_work(call, mma_targets, problem_flops);
  for (size_t i = 0; i < call.size(); ++i) {
    kernels_json[i]["integer_ops"] = out.work.kernels[i].integer_ops;
    kernels_json[i]["instructions"] = out.work.kernels[i].instructions;
    const NonTargetFlops n = nontarget_flops(call[i], weights, mma_targets);
    total += n.flops;
    if (!n.unreadable.empty()) {
      out.readable = false;
      out.detail = short_kernel_name(call[i].name) + ": " + n.unreadable;
    }
    kernels_json[i]["nontarget_flops"] = n.flops;
    kernels_json[i]["nontarget_share"] = problem_flops > 0 ? n.flops / problem_flops : 0.0;
    kernels_json[i]["nontarget_by_source"] = n.by_source;
    if (out.readable && n.flops > top && problem_flops > 0) {
      top = n.flops;
      std::string main_source;
      double main_flops = -1;
      for (const auto& [source, f] : n.by_source)
        if (f > main_flops) main_source = source, main_flops = f;
      char buf[160];
      std::snprintf(buf, sizeof buf, "kernel %s: %s %.3f", short_kernel_name(call[i].name).c_str(),
                    main_source.empty() ? "none" : main_source.c_str(),
                    main_flops > 0 ? main_flops / problem_flops : 0.0);
      out.detail = buf;
    }
  }
  out.share = problem_flops > 0 ? total / problem_flops : 0;
  return out;
}

// The tensor-path ops a kernel's per-opcode counts imply for one operand type (one op per FLOP,
// evidence_names.hpp): bf16 = HGMMA with BF16 sources and F32 accumulators, fp8 = QGMMA.
// nullopt when an opcode's shape cannot be read.
std::optional<double> tensor_ops_by_opcode(const ProfiledKernel& k, bool fp8) {
  double ops = 0;
  for (const auto& [opcode, count] : k.opcodes) {
    const bool counted = fp8 ? opcode.rfind("QGMMA", 0) == 0
                             : opcode.rfind("HGMMA", 0) == 0 && opcode_has_part(opcode, "BF16") &&
                                   opcode_has_part(opcode, "F32");
    if (!counted) continue;
    const auto per_execution = mma_flops_per_warp_execution(opcode);
    if (!per_execution) return std::nullopt;
    ops += *per_execution * static_cast<double>(count);
  }
  return ops;
}

// One call's MMA work by opcode (instrumented pass) against the hardware counters (another
// pass): GMMA executions against the GMMA pipe counter, and the FLOPs of bf16 and fp8 wgmma
// against the tensor-path op counters where the catalog has them. "" when they agree (judge_runtime
// makes a requested counter that ncu did not report unavailable before this runs).
std::string pass_disagreement(const std::vector<ProfiledKernel>& call, const std::string& where) {
  char buf[200];
  for (const ProfiledKernel& k : call) {
    const std::string at = "kernel " + short_kernel_name(k.name) + " at " + where + ": ";
    if (const auto counter = metric_of(k, kGmmaPipeMetric)) {
      double by_opcode = 0;
      for (const auto& [opcode, count] : k.opcodes)
        if (is_mma_opcode(opcode) && opcode.find("GMMA") != std::string::npos)
          by_opcode += static_cast<double>(count);
      if (by_opcode != *counter) {
        std::snprintf(buf, sizeof buf,
                      "%.0f GMMA executions counted by opcode, %.0f by the GMMA pipe counter",
                      by_opcode, *counter);
        return at + buf;
      }
    }
    for (const bool fp8 : {false, true}) {
      const char* metric = fp8 ? kFp8TensorOpsMetric : kBf16TensorOpsMetric;
      const auto counter = metric_of(k, metric);
      const auto by_opcode = tensor_ops_by_opcode(k, fp8);
      if (!counter || !by_opcode || *by_opcode == *counter) continue;
      std::snprintf(buf, sizeof buf, "%.0f %s wgmma FLOPs by opcode, %.0f by %s", *by_opcode,
                    fp8 ? "fp8" : "bf16", *counter, metric);
      return at + buf;
    }
  }
  return "";
}

}  // namespace

void fold_target(TargetRuntime& t, const TargetCallEvidence& e, const std::string& where) {
  t.floor = e.floor;
  t.floor_is_flop_share = e.floor_is_flop_share;
  if (!t.r1.has_value()) {  // the first call initialises
    t.r1 = true;
    t.r2 = true;
    t.min_executed = e.executed;
  }
  t.min_executed = std::min(t.min_executed, e.executed);
  if (e.flop_share)
    t.measured_min_flop_share =
        std::min(t.measured_min_flop_share.value_or(*e.flop_share), *e.flop_share);
  if (e.nontarget_flop_share)
    t.max_nontarget_flop_share =
        std::max(t.max_nontarget_flop_share.value_or(0.0), *e.nontarget_flop_share);
  if (e.integer_share)
    t.max_integer_share = std::max(t.max_integer_share.value_or(0.0), *e.integer_share);
  if (e.instructions_per_mac)
    t.max_instructions_per_mac =
        std::max(t.max_instructions_per_mac.value_or(0.0), *e.instructions_per_mac);
  if (!e.r1 && *t.r1) {
    t.r1 = false;
    if (t.failure.empty()) t.failure = e.instruction + ": never executed at " + where;
  }
  if (!e.r2.has_value()) {
    if (t.r2 == true) t.r2.reset();
  } else if (!*e.r2 && t.r2 != false) {
    t.r2 = false;
    if (t.failure.empty()) {
      char buf[320];
      const bool floor_met = e.flop_share && *e.flop_share >= e.floor;
      if (floor_met && e.nontarget_flop_share && *e.nontarget_flop_share > e.nontarget_ceiling)
        std::snprintf(buf, sizeof buf,
                      "%s: %.3f of the problem's FLOPs done by other arithmetic (%s), above the "
                      "task's %.2f, at ",
                      e.instruction.c_str(), *e.nontarget_flop_share, e.nontarget_detail.c_str(),
                      e.nontarget_ceiling);
      else if (floor_met && e.integer_share && *e.integer_share > e.integer_ceiling)
        std::snprintf(buf, sizeof buf,
                      "%s: integer multiply-adds worth %.3f of the problem's FLOPs (%s), above "
                      "the task's %.2f, at ",
                      e.instruction.c_str(), *e.integer_share, e.integer_detail.c_str(),
                      e.integer_ceiling);
      else if (floor_met && e.instructions_per_mac &&
               *e.instructions_per_mac > e.instructions_ceiling)
        std::snprintf(buf, sizeof buf,
                      "%s: %.3f other instructions per multiply-add of the problem (%s), above "
                      "the task's %.2f, at ",
                      e.instruction.c_str(), *e.instructions_per_mac, e.instructions_detail.c_str(),
                      e.instructions_ceiling);
      else if (e.flop_share)
        std::snprintf(buf, sizeof buf, "%s: FLOP share %.3f below the floor %.2f at ",
                      e.instruction.c_str(), *e.flop_share, e.floor);
      else if (e.other_read_input_share && e.other_read_ceiling &&
               *e.other_read_input_share > *e.other_read_ceiling &&
               static_cast<double>(e.executed) >= e.floor &&
               (!e.moved_input_share || *e.moved_input_share >= e.moved_share_floor))
        std::snprintf(buf, sizeof buf,
                      "%s: other loads (plain, cp.async, texture) read %.3f of the input bytes "
                      "from L2, above the task's %.2f, at ",
                      e.instruction.c_str(), *e.other_read_input_share, *e.other_read_ceiling);
      else if (e.moved_input_share && *e.moved_input_share < e.moved_share_floor)
        std::snprintf(buf, sizeof buf,
                      "%s: executed %lld times but moved %.4f of the input bytes, below the "
                      "floor %.2f, at ",
                      e.instruction.c_str(), static_cast<long long>(e.executed),
                      *e.moved_input_share, e.moved_share_floor);
      else
        std::snprintf(buf, sizeof buf, "%s: executed %lld times, below the floor %.0f at ",
                      e.instruction.c_str(), static_cast<long long>(e.executed), e.floor);
      t.failure = buf + where;
    }
  }
}

SplitKernels split_kernels(const std::vector<ProfiledKernel>& kernels,
                           const std::vector<unsigned>& nonces) {
  SplitKernels out;
  if (kernels.size() < 3 || !kernel_name_is(kernels[0].name, kControlKernelName) ||
      !kernel_name_is(kernels[1].name, kControlKernelName) ||
      !kernel_name_is(kernels[2].name, kFlopControlKernelName)) {
    out.problem = "the profile does not start with the three control kernels";
    return out;
  }
  out.positive = kernels[0];
  out.negative = kernels[1];
  out.flop = kernels[2];
  size_t next = 3;
  for (const unsigned nonce : nonces) {
    std::vector<ProfiledKernel> call;
    bool marked = false;
    for (; next < kernels.size() && !marked; ++next) {
      const ProfiledKernel& k = kernels[next];
      if (!kernel_name_is(k.name, kMarkerKernelName)) {
        call.push_back(k);
        continue;
      }
      const std::array<int64_t, 3> want = {nonce, 1, 1};
      if (k.grid != want) {
        out.problem = "marker kernel " + std::to_string(k.id) + " has grid x " +
                      std::to_string(k.grid[0]) + ", expected " + std::to_string(nonce);
        return out;
      }
      marked = true;
    }
    if (!marked) {
      out.problem = "the marker of call " + std::to_string(out.calls.size() + 1) +
                    " is missing (profile cut short, e.g. by the kernel limit)";
      return out;
    }
    out.calls.push_back(std::move(call));
  }
  if (next != kernels.size())
    out.problem = std::to_string(kernels.size() - next) + " kernels after the last call's marker";
  return out;
}

ControlCheck check_controls(const TaskSpec& task, const Catalog& catalog,
                            const ProfiledKernel& positive, const ProfiledKernel& negative,
                            const std::map<std::string, double>& control_mma_flops) {
  ControlCheck out;
  out.ok = true;
  out.detail = json::array();
  for (const TargetSpec& t : task.targets) {
    const InstructionEntry* entry = catalog.find(t.instruction, task.arch);
    PTXB_ASSERT(entry != nullptr, "target without catalog entry: " + t.instruction);
    bool unreadable = false;
    const KernelTargetCount pos = count_target(*entry, positive, &unreadable);
    const KernelTargetCount neg = count_target(*entry, negative, &unreadable);
    json row = {{"instruction", t.instruction},
                {"positive_executed", pos.executed},
                {"negative_executed", neg.executed}};
    std::string bad;
    if (pos.executed == 0) bad = "the positive control did not execute " + t.instruction;
    if (neg.executed != 0) bad = "the negative control executed " + t.instruction;
    if (entry->flop_rule != FlopRule::kNone) {
      // The control's MMA work in the opcode families this target counts.
      double expected_mma_flops = 0;
      for (const auto& [opcode, flops] : control_mma_flops)
        if (std::find(entry->primary_opcodes.begin(), entry->primary_opcodes.end(), opcode) !=
            entry->primary_opcodes.end())
          expected_mma_flops += flops;
      row["positive_mma_flops"] = pos.mma_flops;
      row["expected_mma_flops"] = expected_mma_flops;
      if (unreadable || !(expected_mma_flops > 0) ||
          std::fabs(pos.mma_flops - expected_mma_flops) > 1e-9 * expected_mma_flops)
        bad = "the positive control's MMA FLOPs differ from the expected count";
    }
    const ControlBytes bytes = check_control_bytes(*entry, t, positive, negative);
    if (!bytes.detail.empty()) row["positive_bytes"] = bytes.detail;
    if (bad.empty()) bad = bytes.problem;
    row["ok"] = bad.empty();
    if (!bad.empty() && out.ok) {
      out.ok = false;
      out.problem = bad;
    }
    out.detail.push_back(std::move(row));
  }
  return out;
}

RuntimeJudgement judge_runtime(const TaskSpec& task, const Catalog& catalog,
                               const std::vector<ProfiledKernel>& kernels,
                               const std::vector<json>& messages) {
  std::vector<unsigned> nonces;
  for (const json& m : messages)
    if (m.value("type", "") == "evidence_call" && m.value("plan_status", 0) == 0)
      nonces.push_back(m.value("nonce", 0u));
  return judge_split(task, catalog, split_kernels(kernels, nonces), messages);
}

RuntimeJudgement judge_split(const TaskSpec& task, const Catalog& catalog, SplitKernels split_in,
                             const std::vector<json>& messages) {
  RuntimeJudgement out;
  json& rec = out.record;
  std::vector<json> calls_msgs;
  std::map<std::string, double> control_flops;  // by opcode family; empty: not reported
  for (const json& m : messages) {
    const std::string type = m.value("type", "");
    if (type == "evidence_control" && m.value("live", false)) {
      // NOTE: a named copy: a range-for over items() of a temporary would dangle (C++20).
      const json by_opcode = m.value("mma_flops_by_opcode", json::object());
      for (const auto& [opcode, flops] : by_opcode.items())
        if (flops.is_number()) control_flops[opcode] = flops.get<double>();
      // Recorded before the e4m3 wgmma joined the control: one bf16 wgmma, its FLOPs alone.
      if (m.contains("mma_flops") && m["mma_flops"].is_number())
        control_flops["HGMMA"] = m["mma_flops"].get<double>();
    }
    if (type == "evidence_call" && m.value("plan_status", 0) == 0) calls_msgs.push_back(m);
    if (type == "evidence_call" && m.value("plan_status", 0) != 0 && out.call_failure.empty())
      out.call_failure = "ptxb_plan failed under the profiler at " + m["shape"].dump();
  }
  out.split = std::move(split_in);
  const SplitKernels& split = out.split;
  if (split.problem.empty() && split.calls.size() != calls_msgs.size())
    out.split.problem = std::to_string(split.calls.size()) + " profiled calls for " +
                        std::to_string(calls_msgs.size()) + " calls made";
  if (!split.problem.empty()) {
    out.unavailable_reason = split.problem;
    return out;
  }
  for (const std::vector<ProfiledKernel>& call : split.calls)
    for (const ProfiledKernel& k : call)
      for (const auto& [opcode, executed] : k.opcodes)
        if (executed > 0) out.call_opcodes.insert(opcode);
  const ControlCheck controls =
      check_controls(task, catalog, *split.positive, *split.negative, control_flops);
  rec["controls"] = {{"ok", controls.ok},
                     {"targets", controls.detail},
                     {"positive", kernel_json(*split.positive)},
                     {"negative", kernel_json(*split.negative)}};
  if (!controls.ok) {
    out.unavailable_reason = "controls failed: " + controls.problem;
    return out;
  }
  std::string flop_problem;
  const std::optional<FlopWeights> weights = calibrate_flop_weights(*split.flop, &flop_problem);
  rec["controls"]["flop"] = kernel_json(*split.flop);
  if (!weights) {
    rec["controls"]["ok"] = false;
    out.unavailable_reason = "controls failed: " + flop_problem;
    return out;
  }
  rec["controls"]["flop_weights"] = *weights;
  std::vector<const InstructionEntry*> mma_targets;
  for (const TargetSpec& t : task.targets) {
    const InstructionEntry* entry = catalog.find(t.instruction, task.arch);
    if (entry->flop_rule != FlopRule::kNone) mma_targets.push_back(entry);
  }
  const std::vector<CounterSpec> counters = catalog.counters_for(task.arch);

  rec["calls"] = json::array();
  rec["feedback"] = json::array();
  for (size_t i = 0; i < calls_msgs.size(); ++i) {
    const json& m = calls_msgs[i];
    const ShapeCase* sc = find_shape(task, m["shape"]);
    if (sc == nullptr) throw InternalError("evidence call for a shape the task lacks");
    const std::string label = shape_label(task, *sc);
    if ((m.value("run_status", 0) != 0 || !m.value("correct", false)) && out.call_failure.empty())
      out.call_failure = "under the profiler, the call at " + label +
                         (m.value("run_status", 0) != 0 ? " returned " + m["run_status"].dump()
                                                        : " produced a wrong output");
    json call = {
        {"shape", m["shape"]}, {"hidden", sc->hidden}, {"correct", m.value("correct", false)}};
    call["kernels"] = json::array();
    for (const ProfiledKernel& k : split.calls[i]) call["kernels"].push_back(kernel_json(k));
    call["targets"] = json::array();
    const double flops = sc->flops;
    const double bytes = input_bytes(task, sc->shape);
    const CallNonTarget nontarget =
        call_nontarget(split.calls[i], *weights, mma_targets, flops, call["kernels"]);
    call["nontarget_flop_share"] = nontarget.share;
    // NOTE: without every counter, neither the agreement of ncu's passes (GMMA) nor the tie to
    // the timed calls can be checked: absent is unavailable, never passed.
    if (const std::string missing = missing_counter(split.calls[i], counters); !missing.empty()) {
      out.unavailable_reason = "ncu reported no " + missing + " at " + label;
      return out;
    }
    out.profiled_counters[label] = profiled_counts(split.calls[i], counters);
    if (out.pass_disagreement.empty())
      out.pass_disagreement = pass_disagreement(split.calls[i], label);
    call["counters"] = out.profiled_counters[label];
    for (const TargetSpec& t : task.targets) {
      const InstructionEntry* entry = catalog.find(t.instruction, task.arch);
      const TargetCallEvidence e = judge_target(
          *entry, t, split.calls[i], flops, bytes,
          entry->flop_rule != FlopRule::kNone ? std::optional(nontarget) : std::nullopt);
      fold_target(out.targets[t.instruction], e, label);
      call["targets"].push_back(to_json(e));
      for (size_t ki = 0; ki < e.kernels.size(); ++ki) {
        const KernelTargetCount& k = e.kernels[ki];
        const json mma_share = e.flop_share ? json(k.mma_flops / flops) : json(nullptr);
        const json other_share =
            e.flop_share ? json(call["kernels"][ki].value("nontarget_share", 0.0)) : json(nullptr);
        rec["feedback"].push_back(
            {{"shape", label},
             {"kernel", k.kernel},
             {"target", t.instruction},
             {"executed", k.executed},
             {"floor", e.floor},
             {"call_flop_share", e.flop_share ? json(*e.flop_share) : json(nullptr)},
             {"kernel_flop_share", mma_share},
             {"kernel_nontarget_share", other_share}});
      }
    }
    rec["calls"].push_back(std::move(call));
  }
  if (calls_msgs.empty()) {
    out.unavailable_reason = "no call was profiled";
    return out;
  }
  out.available = true;
  return out;
}

}  // namespace ptxb
