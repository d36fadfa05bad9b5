// cuobjdump -sass parsing (see sass.hpp). The format: a "Function : <name>" header per function,
// then one "/*offset*/  [@pred] OPCODE operands ;  /* encoding */" line per instruction, each
// followed by an encoding-only continuation line; "....." closes a function's listing.
#include "compile/sass.hpp"

#include <cctype>
#include <charconv>

namespace ptxb {
namespace {

std::string_view skip_space(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

/// The next token: up to whitespace or ';'.
std::string_view take_token(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i])) && s[i] != ';') ++i;
  return s.substr(0, i);
}

/// "Function : _Z3fooPf" -> "_Z3fooPf"; nullopt for other lines.
std::optional<std::string> function_header(std::string_view line) {
  std::string_view s = skip_space(line);
  constexpr std::string_view kTag = "Function :";
  if (s.substr(0, kTag.size()) != kTag) return std::nullopt;
  std::string_view name = take_token(skip_space(s.substr(kTag.size())));
  if (name.empty()) return std::nullopt;
  return std::string(name);
}

bool closes_function(std::string_view line) {
  std::string_view s = skip_space(line);
  return s.substr(0, 5) == "....." || s.substr(0, 6) == "Fatbin";
}

// An instruction line: its offset and its opcode token (a view into the line).
struct Instruction {
  uint32_t offset = 0;
  std::string_view opcode;
};

// "/*0090*/   @!UP0 HGMMA.64x256x16.F32.BF16 R24, ..." -> {0x90, "HGMMA.64x256x16.F32.BF16"}; the
// predicate is skipped. nullopt for a line that is not an instruction.
std::optional<Instruction> instruction(std::string_view line) {
  std::string_view s = skip_space(line);
  // An instruction line starts with its offset comment: /*0090*/
  if (s.size() < 5 || s.substr(0, 2) != "/*") return std::nullopt;
  size_t close = s.find("*/");
  if (close == std::string_view::npos || close == 2) return std::nullopt;
  const std::string_view digits = s.substr(2, close - 2);
  for (char c : digits) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  Instruction out;
  // NOTE: the digits are hex (checked above); an offset past 32 bits, which no real listing has,
  // leaves 0 rather than making the line no instruction.
  std::from_chars(digits.data(), digits.data() + digits.size(), out.offset, 16);
  s = skip_space(s.substr(close + 2));
  std::string_view token = take_token(s);
  if (!token.empty() && token[0] == '@') {  // predicate: @P0, @!UP0, @!PT
    s = skip_space(s.substr(token.size()));
    token = take_token(s);
  }
  if (token.empty() || token.substr(0, 2) == "/*") return std::nullopt;
  out.opcode = token;
  return out;
}

// Calls on_function(name) at each "Function : <name>" header and then on_line(line) for every line
// of that function's listing (the header included), up to the line that closes it.
template <typename OnFunction, typename OnLine>
void walk_functions(std::string_view listing, OnFunction on_function, OnLine on_line) {
  bool inside = false;
  size_t start = 0;
  while (start < listing.size()) {
    size_t end = listing.find('\n', start);
    if (end == std::string_view::npos) end = listing.size();
    std::string_view line = listing.substr(start, end - start);
    start = end + 1;

    if (auto name = function_header(line)) {
      on_function(*name);
      inside = true;
    } else if (inside && closes_function(line)) {
      inside = false;
      continue;
    }
    if (inside) on_line(line);
  }
}

}  // namespace

std::optional<std::string> sass_opcode(std::string_view line) {
  const std::optional<Instruction> i = instruction(line);
  if (!i) return std::nullopt;
  return std::string(i->opcode);
}

std::map<std::string, std::map<uint32_t, std::string>> sass_pc_opcodes(std::string_view listing) {
  std::map<std::string, std::map<uint32_t, std::string>> out;
  std::map<uint32_t, std::string>* at = nullptr;
  walk_functions(
      listing,
      [&](const std::string& name) {
        at = &out[name];
        at->clear();  // a name listed again keeps its last listing
      },
      [&](std::string_view line) {
        if (const std::optional<Instruction> i = instruction(line))
          (*at)[i->offset] = std::string(i->opcode);
      });
  return out;
}

std::vector<SassFunction> parse_sass(std::string_view listing) {
  std::vector<SassFunction> out;
  walk_functions(
      listing, [&](const std::string& name) { out.emplace_back().name = name; },
      [&](std::string_view line) {
        SassFunction& fn = out.back();
        fn.text.append(line).push_back('\n');
        if (const std::optional<Instruction> i = instruction(line))
          ++fn.opcode_counts[std::string(i->opcode)];
      });
  return out;
}

}  // namespace ptxb
