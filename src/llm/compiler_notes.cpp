#include "llm/compiler_notes.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <vector>

namespace ptxb {
namespace {

using nlohmann::json;

constexpr std::string_view kAnonymous = "(anonymous namespace)::";

std::string erase_all(std::string text, std::string_view what) {
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at))
    text.erase(at, what.size());
  return text;
}

// The diagnostic as a model should read it: without ptxas's "ptxas info    : " prefix, every
// quoted mangled name ('_Z...') written readably.
std::string readable_diagnostic(const std::string& line) {
  std::string text = line;
  if (const size_t code = text.find("(C"); code != std::string::npos) text.erase(0, code);
  for (size_t open = text.find("'_Z"); open != std::string::npos; open = text.find("'_Z", open)) {
    const size_t close = text.find('\'', open + 1);
    if (close == std::string::npos) break;
    const std::string name = readable_function(text.substr(open + 1, close - open - 1));
    text.replace(open + 1, close - open - 1, name);
    open += name.size() + 2;
  }
  return text;
}

int64_t number_or_zero(const json& record, const char* key) {
  const auto it = record.find(key);
  return it != record.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

void render_resources(std::ostringstream& os, const json& resources, size_t max_kernels) {
  std::vector<std::string> lines;
  for (const json& r : resources) {
    const int64_t registers = number_or_zero(r, "registers");
    const int64_t stores = number_or_zero(r, "spill_store_bytes");
    const int64_t loads = number_or_zero(r, "spill_load_bytes");
    const int64_t stack = number_or_zero(r, "stack_frame_bytes");
    // NOTE: a device function that is not a kernel has no "Used N registers" line (0): listed
    // only when it spills or keeps a stack frame.
    if (registers == 0 && stores == 0 && loads == 0 && stack == 0) continue;
    std::ostringstream line;
    line << "  " << readable_function(r.value("function", "?")) << ": ";
    if (registers > 0) line << registers << " registers, ";
    if (stores == 0 && loads == 0)
      line << "no spills";
    else
      line << stores << " bytes spill stores, " << loads << " bytes spill loads";
    if (stack > 0) line << ", " << stack << " bytes stack frame";
    lines.push_back(line.str());
  }
  if (lines.empty()) return;
  os << "Compiler (ptxas -v), per function:\n";
  for (size_t i = 0; i < lines.size() && i < max_kernels; ++i) os << lines[i] << "\n";
  if (lines.size() > max_kernels)
    os << "  (" << lines.size() - max_kernels << " more functions not shown)\n";
}

void render_flags(std::ostringstream& os, const json& flags, size_t max_codes) {
  std::vector<std::string> order;            // codes in first-seen order
  std::map<std::string, std::string> first;  // code -> its first diagnostic, readable
  std::map<std::string, size_t> count;
  for (const json& f : flags) {
    const std::string code = f.value("code", "");
    if (code.empty()) continue;
    if (count[code]++ == 0) {
      order.push_back(code);
      first[code] = readable_diagnostic(f.value("message", code));
    }
  }
  if (order.empty()) return;
  os << "Compiler performance notes (ptxas):\n";
  for (size_t i = 0; i < order.size() && i < max_codes; ++i) {
    const std::string& code = order[i];
    os << "  " << first[code];
    if (count[code] > 1) os << " (and " << count[code] - 1 << " more " << code << ")";
    os << "\n";
  }
  if (order.size() > max_codes)
    os << "  (" << order.size() - max_codes << " more diagnostic codes not shown)\n";
}

}  // namespace

std::string readable_function(const std::string& mangled) {
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || demangled == nullptr) return mangled;
  const std::string name = erase_all(demangled.get(), kAnonymous);
  // The name runs from after a template function's return type ("void ") to its parameter list,
  // spaces and parentheses inside template arguments included.
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (depth != 0) continue;
    if (name[i] == ' ') begin = i + 1;
    if (name[i] == '(') return name.substr(begin, i - begin);
  }
  return name.substr(begin);
}

std::string compiler_notes(const json& compile, const CompilerNoteLimits& limits) {
  std::ostringstream os;
  render_resources(os, compile.value("resources", json::array()), limits.max_kernels);
  render_flags(os, compile.value("quality_flags", json::array()), limits.max_codes);
  return os.str();
}

}  // namespace ptxb
