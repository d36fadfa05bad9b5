#include "instrument/evidence_judge.hpp"

#include <cmath>

#include "controls/evidence_names.hpp"
#include "core/error.hpp"
#include "tasks/task_json.hpp"

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
          {"duration_ns", k.duration_ns ? json(*k.duration_ns) : json(nullptr)}};
}

void fold_target(TargetRuntime& t, const TargetCallEvidence& e, const std::string& where) {
  t.floor = e.floor;
  if (!t.r1.has_value()) {  // the first call initialises
    t.r1 = true;
    t.r2 = true;
    t.min_executed = e.executed;
  }
  t.min_executed = std::min(t.min_executed, e.executed);
  if (e.flop_share)
    t.min_flop_share = std::min(t.min_flop_share.value_or(*e.flop_share), *e.flop_share);
  if (!e.r1 && *t.r1) {
    t.r1 = false;
    if (t.failure.empty()) t.failure = e.instruction + ": never executed at " + where;
  }
  if (!e.r2.has_value()) {
    if (t.r2 == true) t.r2.reset();
  } else if (!*e.r2 && t.r2 != false) {
    t.r2 = false;
    if (t.failure.empty()) {
      char buf[200];
      if (e.flop_share)
        std::snprintf(buf, sizeof buf, "%s: FLOP share %.3f below the floor %.2f at ",
                      e.instruction.c_str(), *e.flop_share, e.floor);
      else
        std::snprintf(buf, sizeof buf, "%s: executed %lld times, below the floor %.0f at ",
                      e.instruction.c_str(), static_cast<long long>(e.executed), e.floor);
      t.failure = buf + where;
    }
  }
}

}  // namespace

SplitKernels split_kernels(const std::vector<ProfiledKernel>& kernels,
                           const std::vector<unsigned>& nonces) {
  SplitKernels out;
  if (kernels.size() < 2 || !kernel_name_is(kernels[0].name, kControlKernelName) ||
      !kernel_name_is(kernels[1].name, kControlKernelName)) {
    out.problem = "the profile does not start with the two control kernels";
    return out;
  }
  out.positive = kernels[0];
  out.negative = kernels[1];
  size_t next = 2;
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
                            double expected_mma_flops) {
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
      row["positive_mma_flops"] = pos.mma_flops;
      row["expected_mma_flops"] = expected_mma_flops;
      if (unreadable || std::fabs(pos.mma_flops - expected_mma_flops) > 1e-9 * expected_mma_flops)
        bad = "the positive control's MMA FLOPs differ from the expected count";
    }
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
  RuntimeJudgement out;
  json& rec = out.record;
  std::vector<json> calls_msgs;
  std::vector<unsigned> nonces;
  double control_flops = -1;
  for (const json& m : messages) {
    const std::string type = m.value("type", "");
    if (type == "evidence_control" && m.value("live", false))
      control_flops = m.value("mma_flops", -1.0);
    if (type == "evidence_call" && m.value("plan_status", 0) == 0) {
      calls_msgs.push_back(m);
      nonces.push_back(m.value("nonce", 0u));
    }
    if (type == "evidence_call" && m.value("plan_status", 0) != 0 && out.call_failure.empty())
      out.call_failure = "ptxb_plan failed under the profiler at " + m["shape"].dump();
  }
  const SplitKernels split = split_kernels(kernels, nonces);
  if (!split.problem.empty()) {
    out.unavailable_reason = split.problem;
    return out;
  }
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
    const double flops = problem_flops(task, sc->shape);
    const double bytes = input_bytes(task, sc->shape);
    for (const TargetSpec& t : task.targets) {
      const InstructionEntry* entry = catalog.find(t.instruction, task.arch);
      const TargetCallEvidence e = judge_target(*entry, t, split.calls[i], flops, bytes);
      fold_target(out.targets[t.instruction], e, label);
      call["targets"].push_back(to_json(e));
      for (const KernelTargetCount& k : e.kernels)
        rec["feedback"].push_back(
            {{"shape", label},
             {"kernel", k.kernel},
             {"target", t.instruction},
             {"executed", k.executed},
             {"floor", e.floor},
             {"call_flop_share", e.flop_share ? json(*e.flop_share) : json(nullptr)},
             {"kernel_flop_share", e.flop_share ? json(k.mma_flops / flops) : json(nullptr)}});
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
