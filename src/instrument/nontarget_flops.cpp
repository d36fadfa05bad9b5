#include "instrument/nontarget_flops.hpp"

#include <cmath>

#include "controls/flop_classes.hpp"
#include "instrument/sass_opcode.hpp"

namespace ptxb {
namespace {

constexpr double kWarpsPerWarpgroup = 4;

// m, n, k of the warp-level MMA shape codes ptxas prints ("16816" = m16n8k16).
std::optional<double> warp_shape_flops(std::string_view code) {
  struct Code {
    std::string_view text;
    double m, n, k;
  };
  static constexpr Code kCodes[] = {
      {"884", 8, 8, 4},       {"8816", 8, 8, 16},    {"8832", 8, 8, 32},   {"1684", 16, 8, 4},
      {"1688", 16, 8, 8},     {"16816", 16, 8, 16},  {"16832", 16, 8, 32}, {"16864", 16, 8, 64},
      {"168128", 16, 8, 128}, {"168256", 16, 8, 256}};
  for (const Code& c : kCodes)
    if (c.text == code) return 2 * c.m * c.n * c.k;
  return std::nullopt;
}

}  // namespace

bool is_mma_opcode(const std::string& op) {
  for (const std::string_view family :
       {"HMMA", "IMMA", "DMMA", "BMMA", "HGMMA", "QGMMA", "IGMMA", "BGMMA"})
    if (opcode_in_family(op, family)) return true;
  return false;
}

std::optional<double> mma_flops_per_warp_execution(const std::string& op) {
  if (!is_mma_opcode(op)) return std::nullopt;
  if (op.find("GMMA") != std::string::npos) {
    const auto flops = mma_flops_per_instruction(op);
    if (!flops) return std::nullopt;
    return *flops / kWarpsPerWarpgroup;
  }
  const size_t dot = op.find('.');
  if (dot == std::string::npos) return std::nullopt;
  const size_t end = op.find('.', dot + 1);
  return warp_shape_flops(std::string_view(op).substr(
      dot + 1, end == std::string::npos ? std::string::npos : end - dot - 1));
}

std::optional<FlopWeights> calibrate_flop_weights(const ProfiledKernel& control,
                                                  std::string* problem) {
  FlopWeights weights;
  for (const FlopClass& c : kFlopClasses) {
    const auto count = metric_of(control, flop_class_metric(c));
    const double known = flop_control_thread_count(c) * c.flops;
    if (!count || *count <= 0) {
      if (problem != nullptr)
        *problem = "the FLOP control's " + flop_class_metric(c) + " was not counted";
      return std::nullopt;
    }
    const double weight = known / *count;
    if (weight > 2 * c.flops || weight < 0.5 * c.flops) {
      if (problem != nullptr)
        *problem = "the FLOP control's " + flop_class_metric(c) + " is " +
                   std::to_string(static_cast<int64_t>(*count)) + ", expected " +
                   std::to_string(static_cast<int64_t>(flop_control_thread_count(c)));
      return std::nullopt;
    }
    weights[std::string(c.name)] = weight;
  }
  return weights;
}

NonTargetFlops nontarget_flops(const ProfiledKernel& kernel, const FlopWeights& weights,
                               const std::vector<const InstructionEntry*>& mma_targets) {
  NonTargetFlops out;
  for (const FlopClass& c : kFlopClasses) {
    const auto count = metric_of(kernel, flop_class_metric(c));
    const auto weight = weights.find(std::string(c.name));
    if (!count || weight == weights.end()) {
      if (out.unreadable.empty()) out.unreadable = flop_class_metric(c) + " missing";
      continue;
    }
    if (*count <= 0) continue;
    const double flops = *count * weight->second;
    out.by_source[std::string(c.name)] += flops;
    out.flops += flops;
  }
  for (const auto& [opcode, count] : kernel.opcodes) {
    if (count <= 0 || !is_mma_opcode(opcode)) continue;
    bool target = false;
    for (const InstructionEntry* e : mma_targets) target = target || e->is_primary(opcode);
    if (target) continue;
    const auto per_warp = mma_flops_per_warp_execution(opcode);
    if (!per_warp) {
      if (out.unreadable.empty())
        out.unreadable = "MMA opcode " + opcode + " has no readable shape";
      continue;
    }
    const double flops = static_cast<double>(count) * *per_warp;
    out.by_source[opcode] += flops;
    out.flops += flops;
  }
  return out;
}

}  // namespace ptxb
