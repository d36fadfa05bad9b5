// The source file in a model's answer: markdown code fences (``` or ~~~) found line by line,
// with prose around them, several blocks, or an unterminated last fence; a leading
// <think>...</think> section is ignored. No code at all gives nullopt: the caller records
// `no_code`. Pure functions, no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxb {

/// One fenced block of an answer.
struct CodeBlock {
  std::string tag;   ///< first word of the info string, lower-case ("cuda", "c++", "" untagged)
  std::string code;  ///< the lines between the fences, each ending in '\n'; CRLF becomes LF
  bool terminated = true;  ///< false for a last fence the answer never closed
};

/// Every fenced block in order. A fence is a line of three or more '`' or '~' (any indentation);
/// the block ends at a line of at least as many of the same character and nothing else, or at
/// the end of the text.
std::vector<CodeBlock> find_code_blocks(std::string_view text);

/// `text` without a leading reasoning section: "<think>...</think>" at the start (after
/// whitespace), or everything up to a "</think>" that has no opening tag before it (chat templates
/// that put "<think>" in the prompt). nullopt when a leading "<think>" is never closed: the
/// answer is all reasoning.
std::optional<std::string_view> strip_thinking(std::string_view text);

/// True when `code` contains a definition of ptxb_run: "ptxb_run", "(...)", then "{".
bool defines_ptxb_run(std::string_view code);

/// The source file of an answer. Among the non-empty blocks after strip_thinking: the longest
/// block tagged cuda/cu that defines ptxb_run; else the longest block (any tag) containing
/// "ptxb_run"; else the longest block tagged as CUDA/C/C++ (cuda, cu, cuh, c++, cpp, cxx, cc, c,
/// h, hpp); else the longest untagged block; else nullopt. Ties go to the later block.
std::optional<std::string> extract_code(std::string_view answer);

}  // namespace ptxb
