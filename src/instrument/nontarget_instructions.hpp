// Work done outside a task's target MMA instructions that the FLOP count cannot see
// (docs/evidence.md, "Integer and instruction work"): integer multiplies and dot products, which
// can emulate a GEMM exactly in fixed point, and the instructions of any kind a kernel executes
// per multiply-add of the problem, which a table-lookup or shift-and-add emulation needs many of.
// Both come from ncu's per-opcode warp-level counts; pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "instrument/ncu_csv.hpp"
#include "tasks/catalog.hpp"

namespace ptxb {

/// Threads a warp-level count stands for: 32 for a vector instruction (an upper bound: lanes
/// predicated off count too), 1 for the uniform datapath's (opcodes starting with U: UMOV,
/// UIADD3, UTMALDG), which run once per warp.
double threads_per_warp_execution(const std::string& sass_opcode);

/// Integer arithmetic operations of one thread's execution of `sass_opcode` when it multiplies:
/// a multiply-add (IMAD, IMAD.WIDE, IMAD.HI, UIMAD) is 2, a 4-way dot product (IDP.4A) 8, a 2-way
/// one (IDP.2A) 4. nullopt for every other opcode, among them the IMAD forms ptxas uses as a
/// move, a shift, an add or the carry half of a 64-bit add (IMAD.MOV, IMAD.SHL, IMAD.IADD,
/// IMAD.X).
std::optional<double> integer_multiply_ops(const std::string& sass_opcode);

/// The integer and instruction work of one kernel outside the task's MMA targets.
struct NonTargetInstructions {
  double integer_ops = 0;   ///< thread-level integer multiply(-add) operations
  double instructions = 0;  ///< thread-level instructions other than the MMA targets' primaries
  std::string top_integer_opcode;  ///< the opcode with the most integer operations ("" if none)
  double top_integer_ops = 0;
  std::string top_opcode;  ///< the opcode with the most thread-level instructions
  double top_instructions = 0;
};

/// `mma_targets`: the task's targets with a FLOP rule, whose primary opcodes are the work being
/// measured and are left out.
NonTargetInstructions nontarget_instructions(
    const ProfiledKernel& kernel, const std::vector<const InstructionEntry*>& mma_targets);

/// The integer and instruction work of one call's kernels against the problem.
struct CallWork {
  std::vector<NonTargetInstructions> kernels;  ///< per kernel, in launch order
  double integer_share = 0;         ///< integer multiply(-add) operations / the problem's FLOPs
  double instructions_per_mac = 0;  ///< thread-level instructions / the problem's multiply-adds
  /// The kernel and opcode contributing most: "kernel int_gemm: IMAD.WIDE 0.998" and
  /// "kernel int_gemm: 3.125, most of it IADD3 1.500" (empty when nothing counted).
  std::string integer_detail, instructions_detail;
};

CallWork call_work(const std::vector<ProfiledKernel>& call,
                   const std::vector<const InstructionEntry*>& mma_targets, double problem_flops);

}  // namespace ptxb
