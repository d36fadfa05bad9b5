#include "verdict/verdict.hpp"

#include "core/error.hpp"

namespace ptxb {

using nlohmann::json;

json Verdict::to_json() const {
  json j = record;
  j["schema"] = kVerdictSchemaVersion;
  j["outcome"] = std::string(ptxb::to_string(outcome));
  j["reason"] = reason;
  if (!targets.empty()) j["targets"] = targets;
  if (correctness) j["correctness"] = *correctness;
  if (correctness || !timing.empty()) j["timing"] = timing;
  if (const std::vector<RegimeSpeedup> regimes = regime_speedups(timing); !regimes.empty())
    j["speedup_by_regime"] = regimes;  // derived from timing, never read back
  return j;
}

Verdict Verdict::from_json(const json& j) {
  Verdict v;
  const std::string outcome = j.value("outcome", std::string("unavailable"));
  const std::optional<Outcome> parsed = outcome_from_string(outcome);
  if (!parsed) throw InputError("verdict: unknown outcome '" + outcome + "'");
  v.outcome = *parsed;
  v.reason = j.value("reason", std::string());
  try {
    VerdictParts parts = read_verdict_parts(j);
    v.targets = std::move(parts.targets);
    v.correctness = std::move(parts.correctness);
    v.timing = std::move(parts.timing);
  } catch (const json::exception& e) {
    throw InputError(std::string("verdict: a part of the wrong shape (") + e.what() + ")");
  }
  v.record = j;
  for (const char* key :
       {"schema", "outcome", "reason", "targets", "correctness", "timing", "speedup_by_regime"})
    v.record.erase(key);
  return v;
}

std::string validate_verdict_json(const json& j) {
  std::string problems;
  auto need = [&](const char* field, json::value_t type) {
    if (!j.contains(field)) {
      problems += std::string("missing ") + field + "; ";
    } else if (j[field].type() != type && !(type == json::value_t::number_integer &&
                                            j[field].type() == json::value_t::number_unsigned)) {
      problems += std::string("wrong type for ") + field + "; ";
    }
  };
  need("schema", json::value_t::number_integer);
  need("outcome", json::value_t::string);
  need("reason", json::value_t::string);
  need("task", json::value_t::string);
  need("source", json::value_t::object);
  need("compile", json::value_t::object);
  if (j.contains("outcome") && j["outcome"].is_string() &&
      !outcome_from_string(j["outcome"].get<std::string>()))
    problems += "unknown outcome; ";
  if (j.contains("schema") && j["schema"].is_number() && j["schema"] != kVerdictSchemaVersion)
    problems += "schema version differs; ";
  if (problems.empty()) {
    try {
      (void)Verdict::from_json(j);
    } catch (const InputError& e) {
      problems += std::string(e.what()) + "; ";
    }
  }
  return problems;
}

}  // namespace ptxb
