#include "instrument/runtime_evidence.hpp"

#include <cmath>
#include <cstdio>

#include "core/error.hpp"

namespace ptxb {

namespace {
constexpr double kWarpsPerWarpgroup = 4;  // HGMMA executions are counted per warp

// A measured share, or null where it was not measured (or has no ceiling).
nlohmann::json or_null(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
}  // namespace

KernelTargetCount count_target(const InstructionEntry& entry, const ProfiledKernel& kernel,
                               bool* shape_unreadable) {
  KernelTargetCount out;
  out.kernel = kernel.name;
  for (const auto& [opcode, count] : kernel.opcodes) {
    if (!entry.is_primary(opcode)) continue;
    out.executed += count;
    out.opcodes[opcode] += count;
    if (entry.flop_rule == FlopRule::kSassShapeMnk && count > 0) {
      const auto flops = mma_flops_per_instruction(opcode);
      if (!flops) {
        *shape_unreadable = true;
        continue;
      }
      out.mma_flops += static_cast<double>(count) / kWarpsPerWarpgroup * *flops;
    }
  }
  return out;
}

int64_t count_floor(const InstructionEntry& entry, double input_bytes) {
  if (entry.bytes_per_instruction <= 0) return 1;
  const double minimum = std::ceil(input_bytes / static_cast<double>(entry.bytes_per_instruction));
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(minimum / 2)));
}

TargetCallEvidence judge_target(const InstructionEntry& entry, const TargetSpec& target,
                                const std::vector<ProfiledKernel>& call_kernels,
                                double problem_flops, double input_bytes,
                                const std::optional<CallNonTarget>& nontarget) {
  PTXB_ASSERT(entry.name == target.instruction, "catalog entry does not match the target");
  TargetCallEvidence e;
  e.instruction = target.instruction;
  bool shape_unreadable = false;
  double flops = 0;
  for (const ProfiledKernel& k : call_kernels) {
    e.kernels.push_back(count_target(entry, k, &shape_unreadable));
    e.executed += e.kernels.back().executed;
    flops += e.kernels.back().mma_flops;
  }
  e.r1 = e.executed > 0;
  if (entry.flop_rule == FlopRule::kSassShapeMnk) {
    e.floor = target.min_flop_share;
    e.floor_is_flop_share = true;
    e.floor_rule = "executed MMA FLOPs / the problem's FLOPs >= the task's min_flop_share";
    if (!shape_unreadable && problem_flops > 0) {
      e.flop_share = flops / problem_flops;
      e.r2 = *e.flop_share >= e.floor;
    }
    e.nontarget_ceiling = target.max_nontarget_flop_share;
    e.integer_ceiling = target.max_nontarget_integer_share;
    e.instructions_ceiling = target.max_nontarget_instructions_per_mac;
    if (nontarget) {
      e.floor_rule +=
          "; FLOPs of other arithmetic / the problem's FLOPs <= max_nontarget_flop_share; "
          "integer multiply-add operations / the problem's FLOPs <= max_nontarget_integer_share; "
          "other instructions per multiply-add of the problem <= "
          "max_nontarget_instructions_per_mac";
      e.nontarget_detail = nontarget->detail;
      e.integer_detail = nontarget->work.integer_detail;
      e.instructions_detail = nontarget->work.instructions_detail;
      if (!nontarget->readable) {
        e.r2.reset();
      } else {
        e.nontarget_flop_share = nontarget->share;
        e.integer_share = nontarget->work.integer_share;
        e.instructions_per_mac = nontarget->work.instructions_per_mac;
        if (e.r2)
          e.r2 = *e.r2 && nontarget->share <= e.nontarget_ceiling &&
                 nontarget->work.integer_share <= e.integer_ceiling &&
                 nontarget->work.instructions_per_mac <= e.instructions_ceiling;
      }
    }
  } else {
    e.floor = static_cast<double>(count_floor(entry, input_bytes));
    e.floor_rule = entry.bytes_per_instruction > 0
                       ? "half of ceil(input bytes " +
                             std::to_string(static_cast<int64_t>(input_bytes)) + " / " +
                             std::to_string(entry.bytes_per_instruction) + " bytes per instruction)"
                       : "executed at least once (no count floor in the catalog)";
    e.r2 = static_cast<double>(e.executed) >= e.floor;
    if (!entry.moved_bytes_metric.empty()) {
      // The count floor is loose (one instruction may move up to bytes_per_instruction); the
      // bytes a hardware counter saw the instruction move are not: a few tiny TMA loads next to
      // the real loads done another way meet the first, not the second.
      char buf[160];
      std::snprintf(buf, sizeof buf, "; bytes moved (%s) / input bytes >= %.2f",
                    entry.moved_bytes_metric.c_str(), entry.min_moved_input_share);
      e.floor_rule += buf;
      e.moved_share_floor = entry.min_moved_input_share;
      const auto moved = summed_metrics(call_kernels, {entry.moved_bytes_metric});
      if (!moved || input_bytes <= 0) {
        if (*e.r2) e.r2.reset();  // below the count floor is a failure, measured or not
      } else {
        e.moved_input_share = *moved / input_bytes;
        e.r2 = *e.r2 && *e.moved_input_share >= e.moved_share_floor;
      }
    }
    if (!entry.other_read_metrics.empty()) {
      // The byte floor counts bytes moved, not distinct bytes: one box loaded over and over meets
      // it while the inputs arrive by cp.async. Those other loads show here.
      e.other_read_ceiling = target.max_other_read_input_share;
      const auto other = summed_metrics(call_kernels, entry.other_read_metrics);
      if (other && input_bytes > 0) e.other_read_input_share = *other / input_bytes;
      if (e.other_read_ceiling) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "; bytes read by other loads / input bytes <= %.2f",
                      *e.other_read_ceiling);
        e.floor_rule += buf;
        if (!e.other_read_input_share) {
          if (e.r2 == true) e.r2.reset();
        } else if (e.r2) {
          e.r2 = *e.r2 && *e.other_read_input_share <= *e.other_read_ceiling;
        }
      }
    }
  }
  return e;
}

std::optional<double> summed_metrics(const std::vector<ProfiledKernel>& call_kernels,
                                     const std::vector<std::string>& metrics) {
  double sum = 0;
  for (const ProfiledKernel& k : call_kernels)
    for (const std::string& m : metrics) {
      const auto value = metric_of(k, m);
      if (!value) return std::nullopt;
      sum += *value;
    }
  return sum;
}

double input_bytes(const TaskSpec& task, const Shape& shape) {
  double bytes = 0;
  for (const TensorSpec* t : task.inputs()) bytes += tensor_bytes(*t, shape);
  return bytes;
}

nlohmann::json to_json(const TargetCallEvidence& e) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelTargetCount& k : e.kernels)
    kernels.push_back({{"kernel", k.kernel},
                       {"executed", k.executed},
                       {"opcodes", k.opcodes},
                       {"mma_flops", k.mma_flops}});
  return {{"instruction", e.instruction},
          {"executed", e.executed},
          {"flop_share", or_null(e.flop_share)},
          {"floor", e.floor},
          {"floor_rule", e.floor_rule},
          {"R1", e.r1},
          {"R2", e.r2 ? nlohmann::json(*e.r2) : nlohmann::json("unavailable")},
          {"nontarget_flop_share", or_null(e.nontarget_flop_share)},
          {"max_nontarget_flop_share", e.nontarget_ceiling},
          {"integer_share", or_null(e.integer_share)},
          {"max_nontarget_integer_share", e.integer_ceiling},
          {"instructions_per_mac", or_null(e.instructions_per_mac)},
          {"max_nontarget_instructions_per_mac", e.instructions_ceiling},
          {"moved_input_share", or_null(e.moved_input_share)},
          {"min_moved_input_share",
           e.moved_input_share ? nlohmann::json(e.moved_share_floor) : nlohmann::json(nullptr)},
          {"other_read_input_share", or_null(e.other_read_input_share)},
          {"max_other_read_input_share", or_null(e.other_read_ceiling)},
          {"nontarget_detail", e.nontarget_detail},
          {"kernels", kernels}};
}

}  // namespace ptxb
