// cuobjdump -sass parsing (see sass.hpp). The format: a "Function : <name>" header per function,
// then one "/*offset*/  [@pred] OPCODE operands ;  /* encoding */" line per instruction, each
// followed by an encoding-only continuation line; "....." closes a function's listing.
#include "compile/sass.hpp"

#include <algorithm>
#include <cctype>

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

}  // namespace

std::optional<std::string> sass_opcode(std::string_view line) {
  std::string_view s = skip_space(line);
  // An instruction line starts with its offset comment: /*0090*/
  if (s.size() < 5 || s.substr(0, 2) != "/*") return std::nullopt;
  size_t close = s.find("*/");
  if (close == std::string_view::npos || close == 2) return std::nullopt;
  for (char c : s.substr(2, close - 2)) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  s = skip_space(s.substr(close + 2));
  std::string_view token = take_token(s);
  if (!token.empty() && token[0] == '@') {  // predicate: @P0, @!UP0, @!PT
    s = skip_space(s.substr(token.size()));
    token = take_token(s);
  }
  if (token.empty() || token.substr(0, 2) == "/*") return std::nullopt;
  return std::string(token);
}

std::map<std::string, std::map<uint32_t, std::string>> sass_pc_opcodes(std::string_view listing) {
  std::map<std::string, std::map<uint32_t, std::string>> out;
  for (const SassFunction& fn : parse_sass(listing)) {
    std::map<uint32_t, std::string>& at = out[fn.name];
    std::string_view text = fn.text;
    while (!text.empty()) {
      const size_t end = std::min(text.find('\n'), text.size());
      const std::string_view line = text.substr(0, end);
      text.remove_prefix(std::min(end + 1, text.size()));
      const std::optional<std::string> opcode = sass_opcode(line);
      if (!opcode) continue;
      const std::string_view s = skip_space(line);  // "/*0090*/ ...", checked by sass_opcode
      at[static_cast<uint32_t>(
          std::stoul(std::string(s.substr(2, s.find("*/") - 2)), nullptr, 16))] = *opcode;
    }
  }
  return out;
}

std::vector<SassFunction> parse_sass(std::string_view listing) {
  std::vector<SassFunction> out;
  bool inside = false;
  size_t start = 0;
  while (start < listing.size()) {
    size_t end = listing.find('\n', start);
    if (end == std::string_view::npos) end = listing.size();
    std::string_view line = listing.substr(start, end - start);
    start = end + 1;

    if (auto name = function_header(line)) {
      out.emplace_back().name = *name;
      inside = true;
    } else if (inside && closes_function(line)) {
      inside = false;
      continue;
    }
    if (!inside) continue;
    SassFunction& fn = out.back();
    fn.text.append(line).push_back('\n');
    if (auto opcode = sass_opcode(line)) ++fn.opcode_counts[*opcode];
  }
  return out;
}

}  // namespace ptxb
