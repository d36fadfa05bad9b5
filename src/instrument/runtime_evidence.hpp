// Runtime evidence levels R1 and R2 from executed opcode counts (docs/evidence.md). Pure
// functions over what ncu measured: no process, no GPU, so every rule is unit-tested.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "instrument/ncu_csv.hpp"
#include "instrument/nontarget_instructions.hpp"
#include "tasks/spec.hpp"

namespace ptxb {

/// One target's primary opcodes in one kernel.
struct KernelTargetCount {
  std::string kernel;
  int64_t executed = 0;                    ///< warp-level executions of primary opcodes
  std::map<std::string, int64_t> opcodes;  ///< the primary opcodes that executed
  double mma_flops = 0;                    ///< FLOPs those executions performed (MMA targets)
};

/// The arithmetic of one call done outside the task's target MMA instructions.
struct CallNonTarget {
  double share = 0;  ///< non-target FLOPs / the problem's FLOPs
  bool readable = true;
  std::string detail;  ///< the kernel and source contributing most ("simt_gemm: ffma 0.998")
  /// Integer multiply operations and other instructions against the problem
  /// (instrument/nontarget_instructions.hpp).
  CallWork work;
};

/// One target over all kernels of one candidate call.
struct TargetCallEvidence {
  std::string instruction;
  int64_t executed = 0;
  /// MMA targets: executed MMA FLOPs / the problem's FLOPs. nullopt for other targets, or when a
  /// primary opcode carries no readable MxNxK shape (then R2 is unavailable).
  std::optional<double> flop_share;
  /// The R2 floor: a FLOP share for MMA targets (floor_is_flop_share), else a minimum executed
  /// count.
  double floor = 1;
  bool floor_is_flop_share = false;
  std::string floor_rule;  ///< how the floor was derived, in words
  /// MMA targets: the call's non-target FLOP share and the task's ceiling for it (R2 needs both
  /// the floor and the ceiling). nullopt when not measured.
  std::optional<double> nontarget_flop_share;
  double nontarget_ceiling = 0;
  std::string nontarget_detail;
  /// MMA targets: the call's integer share and instructions per multiply-add (CallNonTarget) and
  /// the task's ceilings for them; R2 needs both within. nullopt when not measured.
  std::optional<double> integer_share;
  double integer_ceiling = 0;
  std::string integer_detail;
  std::optional<double> instructions_per_mac;
  double instructions_ceiling = 0;
  std::string instructions_detail;
  /// Targets with a byte floor (the catalog's moved_bytes_metric): the bytes the counter shows
  /// over the call's kernels / the problem's input bytes, and the floor for it.
  std::optional<double> moved_input_share;
  double moved_share_floor = 0;
  /// Targets with other-read metrics: the bytes the SMs read from L2 by other loads over the
  /// problem's input bytes (nullopt: a metric was not reported), and the task's ceiling for it
  /// (nullopt: not enforced).
  std::optional<double> other_read_input_share;
  std::optional<double> other_read_ceiling;
  bool r1 = false;                         ///< executed > 0
  std::optional<bool> r2;                  ///< meets the floor; nullopt: could not be measured
  std::vector<KernelTargetCount> kernels;  ///< every kernel of the call, in launch order
};

/// Counts `entry`'s primary opcodes in `kernel`; MMA FLOPs from each opcode's SASS shape
/// (HGMMA.64x256x16 -> 2*64*256*16 per warpgroup instruction = per 4 warp executions).
/// `shape_unreadable` is set when an executed MMA opcode has no MxNxK shape.
KernelTargetCount count_target(const InstructionEntry& entry, const ProfiledKernel& kernel,
                               bool* shape_unreadable);

/// The R2 count floor of a non-MMA target for a problem whose inputs hold `input_bytes`:
/// max(1, ceil(ceil(input_bytes / bytes_per_instruction) / 2)); 1 without bytes_per_instruction.
int64_t count_floor(const InstructionEntry& entry, double input_bytes);

/// R1/R2 of one target over the kernels one candidate call launched. For MMA targets R2 also asks
/// that `nontarget` (when given) stays within the target's max_nontarget_flop_share,
/// max_nontarget_integer_share and max_nontarget_instructions_per_mac; an unreadable non-target
/// measure leaves R2 unavailable.
TargetCallEvidence judge_target(const InstructionEntry& entry, const TargetSpec& target,
                                const std::vector<ProfiledKernel>& call_kernels,
                                double problem_flops, double input_bytes,
                                const std::optional<CallNonTarget>& nontarget = std::nullopt);

/// The sum of `metrics` over `call_kernels`; nullopt when a kernel lacks one of them.
std::optional<double> summed_metrics(const std::vector<ProfiledKernel>& call_kernels,
                                     const std::vector<std::string>& metrics);

/// Bytes of every input tensor of `task` at `shape`.
double input_bytes(const TaskSpec& task, const Shape& shape);

nlohmann::json to_json(const TargetCallEvidence& e);

}  // namespace ptxb
