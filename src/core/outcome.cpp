#include "core/outcome.hpp"

#include <array>
#include <utility>

namespace ptxb {
namespace {
constexpr std::array<std::pair<Outcome, std::string_view>, 10> kNames{{
    {Outcome::kPassed, "passed"},
    {Outcome::kCompileError, "compile_error"},
    {Outcome::kLoadError, "load_error"},
    {Outcome::kCrashed, "crashed"},
    {Outcome::kTimeout, "timeout"},
    {Outcome::kIncorrect, "incorrect"},
    {Outcome::kInstructionMissing, "instruction_missing"},
    {Outcome::kLowInstructionShare, "low_instruction_share"},
    {Outcome::kRejectedCheat, "rejected_cheat"},
    {Outcome::kUnavailable, "unavailable"},
}};
}  // namespace

std::string_view to_string(Outcome outcome) {
  for (const auto& [value, name] : kNames)
    if (value == outcome) return name;
  return "unknown";
}

std::optional<Outcome> outcome_from_string(std::string_view name) {
  for (const auto& [value, text] : kNames)
    if (text == name) return value;
  return std::nullopt;
}

}  // namespace ptxb
