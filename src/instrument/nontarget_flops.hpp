// Arithmetic done outside a task's target MMA instructions (docs/evidence.md, "All the arithmetic
// counts"): thread-level counts of scalar and packed floating-point instructions, weighted by
// FLOPs calibrated on the FLOP control kernel, plus every MMA opcode that is not a primary opcode
// of the task's MMA targets (mma.sync HMMA, IMMA, DMMA, or another wgmma type), by its shape.
// Pure functions over what ncu measured.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "instrument/ncu_csv.hpp"
#include "tasks/catalog.hpp"

namespace ptxb {

/// FLOPs per thread-level instruction of each arithmetic class (controls/flop_classes.hpp), by
/// class name, as measured on the FLOP control kernel.
using FlopWeights = std::map<std::string, double>;

/// Weight of class c = the control's known FLOPs of c / ncu's count of c in the control launch.
/// nullopt with *problem when a class was not counted, or its weight is off its ISA value by more
/// than a factor of two (the metric does not mean what the rule assumes).
std::optional<FlopWeights> calibrate_flop_weights(const ProfiledKernel& control,
                                                  std::string* problem);

/// The non-target arithmetic of one kernel.
struct NonTargetFlops {
  double flops = 0;
  /// FLOPs by source: a class ("ffma") or an MMA opcode ("HMMA.16816.F32.BF16").
  std::map<std::string, double> by_source;
  /// An MMA opcode without a readable shape, or a class metric missing: flops undercounts.
  std::string unreadable;
};

/// The kernel's non-target FLOPs. `mma_targets`: the task's targets with a FLOP rule, whose
/// primary opcodes are the work being measured.
NonTargetFlops nontarget_flops(const ProfiledKernel& kernel, const FlopWeights& weights,
                               const std::vector<const InstructionEntry*>& mma_targets);

/// True for SASS MMA opcodes of any kind: HMMA, IMMA, DMMA, BMMA and the warpgroup forms HGMMA,
/// QGMMA, IGMMA, BGMMA.
bool is_mma_opcode(const std::string& sass_opcode);

/// FLOPs of ONE warp-level execution of an MMA opcode: warp MMAs by their shape code
/// (HMMA.16816 = m16n8k16: 2*16*8*16), warpgroup MMAs by their MxNxK shape divided by the four
/// warps that each count one execution. nullopt when the shape cannot be read.
std::optional<double> mma_flops_per_warp_execution(const std::string& sass_opcode);

}  // namespace ptxb
