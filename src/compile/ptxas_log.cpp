// ptxas -v parsing (see ptxas_log.hpp). Line-based; unknown lines are ignored, so a format change
// degrades to missing resources, never to an error.
#include "compile/ptxas_log.hpp"

#include <regex>
#include <string>

namespace ptxb {
namespace {

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

/// The number in front of `unit` in `line` ("624 bytes stack frame" -> 624), if present.
std::optional<int64_t> number_before(const std::string& line, const std::regex& unit) {
  std::smatch m;
  if (!std::regex_search(line, m, unit)) return std::nullopt;
  return std::stoll(m[1].str());
}

}  // namespace

std::vector<PtxasResources> parse_ptxas_resources(std::string_view log) {
  static const std::regex kEntry(R"(ptxas info\s*:\s*Compiling entry function '([^']+)')");
  static const std::regex kProperties(R"(ptxas info\s*:\s*Function properties for (\S+))");
  static const std::regex kStack(R"((\d+) bytes stack frame)");
  static const std::regex kSpillStores(R"((\d+) bytes spill stores)");
  static const std::regex kSpillLoads(R"((\d+) bytes spill loads)");
  static const std::regex kUsed(R"(ptxas info\s*:\s*Used (\d+) registers)");
  static const std::regex kSmem(R"((\d+) bytes smem)");

  std::vector<PtxasResources> out;
  PtxasResources* current = nullptr;
  auto select = [&](const std::string& name) {
    for (auto& r : out) {
      if (r.function == name) return &r;
    }
    out.emplace_back().function = name;
    return &out.back();
  };

  for (const std::string& line : split_lines(log)) {
    std::smatch m;
    if (std::regex_search(line, m, kEntry) || std::regex_search(line, m, kProperties)) {
      current = select(m[1].str());
    } else if (current && std::regex_search(line, m, kUsed)) {
      current->registers = std::stoi(m[1].str());
      current->shared_bytes = number_before(line, kSmem).value_or(0);
    } else if (current && line.find("bytes stack frame") != std::string::npos) {
      current->stack_frame_bytes = number_before(line, kStack).value_or(0);
      current->spill_store_bytes = number_before(line, kSpillStores).value_or(0);
      current->spill_load_bytes = number_before(line, kSpillLoads).value_or(0);
    }
  }
  return out;
}

std::vector<QualityFlag> parse_quality_flags(std::string_view log) {
  static const std::regex kCode(R"(\((C\d{4})\))");
  std::vector<QualityFlag> out;
  for (const std::string& line : split_lines(log)) {
    std::smatch m;
    if (std::regex_search(line, m, kCode)) out.push_back({m[1].str(), trim(line)});
  }
  return out;
}

bool is_error_line(std::string_view line) {
  return line.find("error") != std::string_view::npos ||
         line.find("Error") != std::string_view::npos;
}

}  // namespace ptxb
