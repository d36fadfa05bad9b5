// Code extraction from model answers (see code_extract.hpp).
#include "llm/code_extract.hpp"

#include <algorithm>
#include <array>
#include <functional>

namespace ptxb {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// A fence line: its character, how many of them, its indentation and its info string.
struct Fence {
  char mark = 0;
  size_t count = 0;
  size_t indent = 0;
  std::string_view info;
};

std::optional<Fence> parse_fence(std::string_view line) {
  Fence fence;
  while (fence.indent < line.size() && (line[fence.indent] == ' ' || line[fence.indent] == '\t'))
    ++fence.indent;
  line.remove_prefix(fence.indent);
  if (line.empty() || (line[0] != '`' && line[0] != '~')) return std::nullopt;
  fence.mark = line[0];
  while (fence.count < line.size() && line[fence.count] == fence.mark) ++fence.count;
  if (fence.count < 3) return std::nullopt;
  fence.info = line.substr(fence.count);
  // NOTE: "```x```" on one line is inline code, not a fence (CommonMark forbids '`' in the info).
  if (fence.mark == '`' && fence.info.find('`') != std::string_view::npos) return std::nullopt;
  return fence;
}

bool closes(const Fence& open, std::string_view line) {
  const auto fence = parse_fence(line);
  if (!fence || fence->mark != open.mark || fence->count < open.count) return false;
  return std::all_of(fence->info.begin(), fence->info.end(), is_space);
}

/// "cuda" from " cuda", "{.cuda}", "CUDA title=x", "cu:kernel.cu".
std::string tag_of(std::string_view info) {
  while (!info.empty() && (is_space(info.front()) || info.front() == '{' || info.front() == '.'))
    info.remove_prefix(1);
  std::string tag;
  for (char c : info) {
    if (is_space(c) || c == '}' || c == ':' || c == ',') break;
    tag += (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
  }
  return tag;
}

/// Removes up to `indent` leading spaces (the fence's own indentation, as CommonMark does).
std::string_view dedent(std::string_view line, size_t indent) {
  size_t n = 0;
  while (n < indent && n < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
  return line.substr(n);
}

bool is_cuda_tag(std::string_view tag) { return tag == "cuda" || tag == "cu"; }

bool is_cxx_tag(std::string_view tag) {
  static constexpr std::array<std::string_view, 11> kTags = {
      "cuda", "cu", "cuh", "c++", "cpp", "cxx", "cc", "c", "h", "hpp", "hxx"};
  return std::find(kTags.begin(), kTags.end(), tag) != kTags.end();
}

bool has_code(const CodeBlock& b) { return !std::all_of(b.code.begin(), b.code.end(), is_space); }

/// The longest non-empty block that satisfies `keep` (the later one on ties), or null.
const CodeBlock* longest(const std::vector<CodeBlock>& blocks,
                         const std::function<bool(const CodeBlock&)>& keep) {
  const CodeBlock* best = nullptr;
  for (const CodeBlock& b : blocks)
    if (has_code(b) && keep(b) && (!best || b.code.size() >= best->code.size())) best = &b;
  return best;
}

}  // namespace

std::vector<CodeBlock> find_code_blocks(std::string_view text) {
  std::vector<CodeBlock> blocks;
  std::optional<Fence> open;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

    if (!open) {
      if ((open = parse_fence(line))) blocks.push_back({tag_of(open->info), "", false});
    } else if (closes(*open, line)) {
      blocks.back().terminated = true;
      open.reset();
    } else {
      blocks.back().code.append(dedent(line, open->indent)).push_back('\n');
    }
  }
  return blocks;
}

std::optional<std::string_view> strip_thinking(std::string_view text) {
  static constexpr std::string_view kOpen = "<think>", kClose = "</think>";
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text.substr(first).starts_with(kOpen)) {
    const size_t close = text.find(kClose, first + kOpen.size());
    if (close == std::string_view::npos) return std::nullopt;
    return text.substr(close + kClose.size());
  }
  // A closing tag with no opening one before it: the chat template opened the section in the
  // prompt, so everything before the tag is reasoning (drafts of code included).
  const size_t close = text.find(kClose);
  if (close == std::string_view::npos) return text;
  if (text.substr(0, close).find(kOpen) != std::string_view::npos) return text;
  return text.substr(close + kClose.size());
}

bool defines_ptxb_run(std::string_view code) {
  static constexpr std::string_view kName = "ptxb_run";
  for (size_t at = code.find(kName); at != std::string_view::npos; at = code.find(kName, at + 1)) {
    size_t i = at + kName.size();
    if ((at > 0 && is_ident(code[at - 1])) || (i < code.size() && is_ident(code[i]))) continue;
    while (i < code.size() && is_space(code[i])) ++i;
    if (i >= code.size() || code[i] != '(') continue;
    int depth = 0;
    for (; i < code.size(); ++i) {
      depth += code[i] == '(' ? 1 : code[i] == ')' ? -1 : 0;
      if (depth == 0) break;
    }
    if (i >= code.size()) continue;
    ++i;
    while (i < code.size() && is_space(code[i])) ++i;
    if (code.substr(i).starts_with("noexcept")) i += 8;
    while (i < code.size() && is_space(code[i])) ++i;
    if (i < code.size() && code[i] == '{') return true;
  }
  return false;
}

std::optional<std::string> extract_code(std::string_view answer) {
  const auto visible = strip_thinking(answer);
  if (!visible) return std::nullopt;
  const std::vector<CodeBlock> blocks = find_code_blocks(*visible);
  const std::array<std::function<bool(const CodeBlock&)>, 4> preferences = {
      [](const CodeBlock& b) { return is_cuda_tag(b.tag) && defines_ptxb_run(b.code); },
      [](const CodeBlock& b) { return b.code.find("ptxb_run") != std::string::npos; },
      [](const CodeBlock& b) { return is_cxx_tag(b.tag); },
      [](const CodeBlock& b) { return b.tag.empty(); },
  };
  for (const auto& keep : preferences)
    if (const CodeBlock* best = longest(blocks, keep)) return best->code;
  return std::nullopt;
}

}  // namespace ptxb
