#include "instrument/nontarget_instructions.hpp"

#include <cstdio>
#include <string_view>

#include "instrument/sass_opcode.hpp"
#include "verdict/verdict.hpp"

namespace ptxb {
namespace {

constexpr double kThreadsPerWarp = 32;

}  // namespace

double threads_per_warp_execution(const std::string& op) {
  return !op.empty() && op[0] == 'U' ? 1 : kThreadsPerWarp;
}

std::optional<double> integer_multiply_ops(const std::string& op) {
  if (opcode_in_family(op, "IMAD") || opcode_in_family(op, "UIMAD")) {
    // ptxas writes moves, shifts, adds and the carry half of 64-bit adds (IMAD.X with a
    // multiplier of 0 or 1) as IMAD forms: no multiply.
    for (const std::string_view not_a_multiply : {"MOV", "SHL", "IADD", "X"})
      if (opcode_has_part(op, not_a_multiply)) return std::nullopt;
    return 2.0;
  }
  if (opcode_in_family(op, "IMUL")) return 1.0;
  if (opcode_in_family(op, "IDP")) {
    if (opcode_has_part(op, "4A")) return 8.0;
    if (opcode_has_part(op, "2A")) return 4.0;
  }
  return std::nullopt;
}

NonTargetInstructions nontarget_instructions(
    const ProfiledKernel& kernel, const std::vector<const InstructionEntry*>& mma_targets) {
  NonTargetInstructions out;
  for (const auto& [opcode, count] : kernel.opcodes) {
    if (count <= 0) continue;
    bool target = false;
    for (const InstructionEntry* e : mma_targets) target = target || e->is_primary(opcode);
    if (target) continue;
    const double threads = static_cast<double>(count) * threads_per_warp_execution(opcode);
    out.instructions += threads;
    if (threads > out.top_instructions) out.top_opcode = opcode, out.top_instructions = threads;
    if (const auto ops = integer_multiply_ops(opcode)) {
      out.integer_ops += threads * *ops;
      if (threads * *ops > out.top_integer_ops)
        out.top_integer_opcode = opcode, out.top_integer_ops = threads * *ops;
    }
  }
  return out;
}

CallWork call_work(const std::vector<ProfiledKernel>& call,
                   const std::vector<const InstructionEntry*>& mma_targets, double problem_flops) {
  CallWork out;
  const double macs = problem_flops / 2;
  double integer_ops = 0, instructions = 0, top_integer = 0, top_count = 0;
  char buf[200];
  for (const ProfiledKernel& k : call) {
    const NonTargetInstructions w = nontarget_instructions(k, mma_targets);
    out.kernels.push_back(w);
    integer_ops += w.integer_ops;
    instructions += w.instructions;
    if (problem_flops <= 0) continue;
    const std::string kernel = short_kernel_name(k.name);
    if (w.top_integer_ops > top_integer) {
      top_integer = w.top_integer_ops;
      std::snprintf(buf, sizeof buf, "kernel %s: %s %.3f", kernel.c_str(),
                    w.top_integer_opcode.c_str(), w.top_integer_ops / problem_flops);
      out.integer_detail = buf;
    }
    if (w.instructions > top_count) {
      top_count = w.instructions;
      std::snprintf(buf, sizeof buf, "kernel %s: %.3f, most of it %s %.3f", kernel.c_str(),
                    w.instructions / macs, w.top_opcode.c_str(), w.top_instructions / macs);
      out.instructions_detail = buf;
    }
  }
  if (problem_flops > 0) {
    out.integer_share = integer_ops / problem_flops;
    out.instructions_per_mac = instructions / macs;
  }
  return out;
}

}  // namespace ptxb
