// Parsing of nvcc/ptxas diagnostics (`-Xptxas -v`, ptxas 13.x format): per-function resources and
// coded diagnostics kept as quality flags. Works on the merged nvcc log as stored.
#pragma once

#include <string_view>
#include <vector>

#include "compile/static_stage.hpp"

namespace ptxb {

/// One PtxasResources per function ptxas reports, in first-mention order. Recognised lines:
///   "ptxas info    : Compiling entry function '<name>' for 'sm_90a'"
///   "ptxas info    : Function properties for <name>"
///   "    N bytes stack frame, N bytes spill stores, N bytes spill loads"
///   "ptxas info    : Used N registers, used N barriers, N bytes smem[, ...]"
/// Functions without a "Used" line (non-entry device functions) keep registers = 0.
std::vector<PtxasResources> parse_ptxas_resources(std::string_view log);

/// Every diagnostic line carrying a code "(Cdddd)", e.g. C7508 (setmaxnreg ignored), C7511/C7514/
/// C7515 (wgmma serialized), C7517 (warpgroup.wait injected), in log order.
std::vector<QualityFlag> parse_quality_flags(std::string_view log);

/// True for a compile-log line that reports an error: "error" from nvcc and the host compiler,
/// "Error" from the assembler ("Error: file not found: ...").
bool is_error_line(std::string_view line);

}  // namespace ptxb
