// Static evidence per target (S0: PTX text, S1: primary SASS opcode) and PTX comment stripping.
#include <regex>

#include "compile/ptx_text.hpp"
#include "compile/static_stage.hpp"
#include "core/error.hpp"
#include "tasks/catalog.hpp"

namespace ptxb {

std::string strip_ptx_comments(std::string_view ptx) {
  std::string out;
  out.reserve(ptx.size());
  size_t i = 0;
  while (i < ptx.size()) {
    const char c = ptx[i];
    const char next = i + 1 < ptx.size() ? ptx[i + 1] : '\0';
    if (c == '"') {  // a string: copy through the closing quote (or the end of the line)
      size_t end = i + 1;
      while (end < ptx.size() && ptx[end] != '"' && ptx[end] != '\n') ++end;
      if (end < ptx.size() && ptx[end] == '"') ++end;
      out.append(ptx.substr(i, end - i));
      i = end;
    } else if (c == '/' && next == '/') {
      while (i < ptx.size() && ptx[i] != '\n') ++i;
    } else if (c == '/' && next == '*') {
      size_t end = ptx.find("*/", i + 2);
      end = end == std::string_view::npos ? ptx.size() : end + 2;
      for (size_t k = i; k < end; ++k) {
        if (ptx[k] == '\n') out.push_back('\n');
      }
      out.push_back(' ');  // a block comment separates tokens
      i = end;
    } else {
      out.push_back(c);
      ++i;
    }
  }
  return out;
}

bool ptx_matches(std::string_view ptx, const std::string& pattern) {
  std::regex re;
  try {
    re = std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw InputError("catalog ptx_pattern '" + pattern + "': invalid regex: " + e.what());
  }
  // NOTE: matched line by line: libstdc++'s std::regex recurses per character and can overflow the
  // stack on a multi-megabyte PTX file searched as one string. PTX instructions fit on one line.
  const std::string text = strip_ptx_comments(ptx);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (std::regex_search(text.begin() + start, text.begin() + end, re)) return true;
    start = end + 1;
  }
  return false;
}

std::vector<StaticEvidence> static_evidence(const TaskSpec& task, const Catalog& catalog,
                                            const CompileResult& compiled) {
  std::vector<StaticEvidence> out;
  for (const TargetSpec& target : task.targets) {
    const InstructionEntry* entry = catalog.find(target.instruction, task.arch);
    PTXB_ASSERT(entry != nullptr, "task " + task.id + ": target " + target.instruction +
                                      " has no catalog entry for " + task.arch);
    StaticEvidence evidence;
    evidence.instruction = target.instruction;
    evidence.s0 = ptx_matches(compiled.ptx, entry->ptx_pattern);
    if (compiled.sass_available) {
      for (const SassFunction& fn : compiled.sass_functions) {
        bool found = false;
        for (const auto& [opcode, count] : fn.opcode_counts) {
          if (!entry->is_primary(opcode)) continue;
          evidence.s1_opcodes[opcode] += count;
          found = true;
        }
        if (found) evidence.s1_functions.push_back(fn.name);
      }
      evidence.s1 = !evidence.s1_functions.empty();
    }
    out.push_back(std::move(evidence));
  }
  return out;
}

}  // namespace ptxb
