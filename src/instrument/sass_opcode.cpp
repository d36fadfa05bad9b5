#include "instrument/sass_opcode.hpp"

#include <algorithm>

namespace ptxb {

bool opcode_in_family(std::string_view opcode, std::string_view family) {
  return opcode.substr(0, family.size()) == family &&
         (opcode.size() == family.size() || opcode[family.size()] == '.');
}

bool opcode_has_part(std::string_view opcode, std::string_view part) {
  size_t start = 0;
  while (start <= opcode.size()) {
    const size_t end = std::min(opcode.find('.', start), opcode.size());
    if (opcode.substr(start, end - start) == part) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace ptxb
