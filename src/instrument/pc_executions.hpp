// Executed instructions per opcode from per-instruction counts: CUPTI's SASS metrics API reports,
// for each patched function, warp executions (smsp__sass_inst_executed) and thread executions
// with all predicates true (smsp__sass_thread_inst_executed_pred_on) per PC offset; the SASS
// listing of the same cubin names the opcode at each offset. What Nsight Compute's
// sass__inst_executed_per_opcode_with_modifier_all gives per kernel, without a second process
// (docs/timing.md, "Judging time"; bench/probes/sass_metrics_probe.cu).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ptxb {

/// One record of the SASS metrics API, both metrics summed in (CUPTI returns one per metric).
struct PcRecord {
  std::string function;  ///< mangled name
  uint32_t pc = 0;       ///< offset in the function, as the listing's "/*0090*/"
  int64_t warps = 0;     ///< warp-level executions
  int64_t threads = 0;   ///< thread-level executions with all predicates true
};

/// Executions of one function, by full opcode token ("FFMA", "HGMMA.64x256x16.F32.BF16").
struct OpcodeExecutions {
  std::map<std::string, int64_t> warps;
  std::map<std::string, int64_t> threads;
};

/// The opcode at every PC offset of every function: mangled name -> offset -> full opcode token,
/// as compile/sass.hpp's sass_pc_opcodes reads it from the cubin's SASS listing.
using PcOpcodes = std::map<std::string, std::map<uint32_t, std::string>>;

/// Per function (mangled name): the records' counts summed by the opcode the listing has at their
/// PC. Throws InputError naming the first record whose function or PC the listing lacks (the
/// records then belong to other code than the listing's).
std::map<std::string, OpcodeExecutions> opcode_executions(const PcOpcodes& opcodes,
                                                          const std::vector<PcRecord>& records);

}  // namespace ptxb
