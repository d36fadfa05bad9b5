// SASS opcode tokens as ncu and cuobjdump print them: dotted parts, the first the instruction
// ("IMAD.WIDE.U32", "HGMMA.64x256x16.F32.BF16"), the rest its modifiers.
#pragma once

#include <string_view>

namespace ptxb {

/// True when `opcode` is `family` itself or `family` followed by '.' and modifiers
/// ("IMAD.WIDE" is of family "IMAD", "IMADX" is not).
bool opcode_in_family(std::string_view opcode, std::string_view family);

/// True when one of the '.'-separated parts of `opcode` equals `part` ("HGMMA.64x256x16.F32.BF16"
/// has "F32" and "BF16").
bool opcode_has_part(std::string_view opcode, std::string_view part);

}  // namespace ptxb
