// Parsing of `cuobjdump -sass` listings into per-function opcode counts.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compile/static_stage.hpp"

namespace ptxb {

/// The opcode token of one SASS listing line, or nullopt for a line that is not an instruction.
/// "        /*0090*/   @!UP0 HGMMA.64x256x16.F32.BF16 R24, gdesc[UR4] ... ;  /* 0x... */"
/// -> "HGMMA.64x256x16.F32.BF16" (the predicate is skipped; the token is kept whole).
std::optional<std::string> sass_opcode(std::string_view line);

/// Every function's instructions by PC offset (the "/*0090*/" comment of each instruction line):
/// mangled name -> offset -> full opcode token, from a cuobjdump -sass listing (a name listed
/// twice, e.g. in two cubins, keeps its last listing).
std::map<std::string, std::map<uint32_t, std::string>> sass_pc_opcodes(std::string_view listing);

/// Splits a cuobjdump -sass listing at its "Function : <mangled>" headers. Each function gets the
/// static count of every full opcode token and its listing text (header included).
std::vector<SassFunction> parse_sass(std::string_view listing);

}  // namespace ptxb
