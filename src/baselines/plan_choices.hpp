// The library baselines' preferred plans (Implementation::prefer): of the cached choices, those of
// this build's library with a well-formed problem key, plan index and plan identity, by problem.
// Plain C++: tested on the CPU (tests/unit/test_library_choices.cpp).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace ptxb {

/// The choices of `library` in `choices` (an array; anything else gives none) by their "problem"
/// string: each needs an integer "index", a string under `plan_field` (the plan's identity:
/// cuBLASLt's algorithm bytes, cuDNN's plan name) and, if present, a numeric "median_us". Other
/// elements are skipped; of two choices for one problem the later is kept.
inline std::map<std::string, nlohmann::json> choices_by_problem(const nlohmann::json& choices,
                                                                const std::string& library,
                                                                const char* plan_field) {
  std::map<std::string, nlohmann::json> out;
  if (!choices.is_array()) return out;
  for (const nlohmann::json& c : choices) {
    if (!c.is_object() || c.value("library", nlohmann::json()) != library) continue;
    const auto problem = c.find("problem"), index = c.find("index"), plan = c.find(plan_field);
    const auto median = c.find("median_us");
    if (problem == c.end() || !problem->is_string() || index == c.end() ||
        !index->is_number_integer() || plan == c.end() || !plan->is_string() ||
        (median != c.end() && !median->is_number()))
      continue;
    out[problem->get<std::string>()] = c;
  }
  return out;
}

}  // namespace ptxb
