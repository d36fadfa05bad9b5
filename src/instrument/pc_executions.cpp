#include "instrument/pc_executions.hpp"

#include <sstream>

#include "core/error.hpp"

namespace ptxb {

std::map<std::string, OpcodeExecutions> opcode_executions(const PcOpcodes& opcodes,
                                                          const std::vector<PcRecord>& records) {
  std::map<std::string, OpcodeExecutions> out;
  for (const PcRecord& r : records) {
    const auto fn = opcodes.find(r.function);
    if (fn == opcodes.end())
      throw InputError("SASS metrics record for function " + r.function +
                       ", which the SASS listing does not have");
    const auto at = fn->second.find(r.pc);
    if (at == fn->second.end()) {
      std::ostringstream pc;
      pc << std::hex << r.pc;
      throw InputError("SASS metrics record at PC offset 0x" + pc.str() + " of " + r.function +
                       ", where the SASS listing has no instruction");
    }
    OpcodeExecutions& e = out[r.function];
    e.warps[at->second] += r.warps;
    e.threads[at->second] += r.threads;
  }
  return out;
}

}  // namespace ptxb
