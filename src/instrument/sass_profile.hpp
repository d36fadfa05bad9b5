// The in-process evidence's kernels: one call's CUPTI SASS-metrics records, summed by opcode
// through the SASS listing (instrument/pc_executions.hpp), as the ProfiledKernel records the
// evidence judge reads from Nsight Compute (docs/evidence.md, "In-process evidence"). The
// thread-level arithmetic classes of the non-target FLOP rule come from the per-opcode thread
// counts under ncu's metric names. Pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "instrument/ncu_csv.hpp"
#include "instrument/pc_executions.hpp"

namespace ptxb {

/// The arithmetic class (controls/flop_classes.hpp) whose ncu count
/// smsp__sass_thread_inst_executed_op_<class>_pred_on includes a thread-level execution of
/// `opcode` (a full token, "FFMA.FTZ", "HFMA2.MMA.BF16_V2"): by the opcode's first part, FFMA and
/// FFMA32I -> "ffma", FMUL(32I) -> "fmul", FADD(32I) -> "fadd", HFMA2(_32I) -> "hfma",
/// HMUL2(_32I) -> "hmul", HADD2(_32I) -> "hadd", DFMA -> "dfma", DMUL -> "dmul", DADD -> "dadd".
/// nullopt for every other opcode. NOTE: an assignment by name, to be held against ncu's counts
/// of the same calls on the device before it replaces them (docs/evidence.md).
std::optional<std::string_view> flop_class_of(std::string_view opcode);

/// `mangled` demangled with its parameter list and anonymous namespaces as "<unnamed>", as ncu
/// names kernels; itself when it is not a mangled C++ name.
std::string demangled_kernel_name(const std::string& mangled);

/// One ProfiledKernel per function of `executions` (by mangled name), ordered by name: `name`
/// demangled, `opcodes` the warp-level executions per opcode, `executed_total` their sum, and in
/// `metrics` every arithmetic class's thread-level count under ncu's metric name (0 when none
/// executed). No launch geometry, stream or duration (they stay unset): the records are per
/// function, summed over its launches in the collection.
std::vector<ProfiledKernel> sass_profiled_kernels(
    const std::map<std::string, OpcodeExecutions>& executions);

}  // namespace ptxb
