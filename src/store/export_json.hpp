// The JSON spelling of the run and evaluation records, shared by the store (speedups column) and
// the attempt export (docs/result-schema.md, "Attempt export"). Readers throw InputError naming
// the field; writers never throw.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "store/records.hpp"

namespace ptxb {

/// A number as JSON: finite values as numbers; NaN and infinities, which JSON cannot hold, as
/// the strings "NaN", "Infinity", "-Infinity" (the verdict's convention).
nlohmann::json real_to_json(double value);
/// The inverse; throws InputError naming `field` for anything else.
double real_from_json(const nlohmann::json& value, std::string_view field);

/// [{"shape", "hidden", "speedup", "candidate_tflops", "baseline_tflops"}, ...]
nlohmann::json speedups_to_json(const std::vector<ShapeSpeedup>& speedups);
std::vector<ShapeSpeedup> speedups_from_json(const nlohmann::json& value);

/// {"id", "name", "model", "endpoint", "prompt_version", "ptxbench_version", "created_at",
///  "settings", "environment"}
nlohmann::json run_to_json(const RunRecord& run);
RunRecord run_from_json(const nlohmann::json& value);

/// {"outcome", "reason", "compiled", "correct", "targets_executed", "success", "audit",
///  "speedups", "judge_seconds", "stage_seconds", "verdict", "created_at"}; the attempt id is
/// the enclosing attempt's, so it is not repeated.
nlohmann::json evaluation_to_json(const EvaluationRecord& evaluation);
EvaluationRecord evaluation_from_json(const nlohmann::json& value, int64_t attempt_id);

/// Field readers for the parsers: `where` is the object's path in messages ("run", "evaluation").
/// Each throws InputError naming `where.key` when the field is missing or of another type.
namespace json_field {
const nlohmann::json& any(const nlohmann::json& object, std::string_view key,
                          std::string_view where);
std::string text(const nlohmann::json& object, std::string_view key, std::string_view where);
int64_t integer(const nlohmann::json& object, std::string_view key, std::string_view where);
bool boolean(const nlohmann::json& object, std::string_view key, std::string_view where);
double real(const nlohmann::json& object, std::string_view key, std::string_view where);
}  // namespace json_field

}  // namespace ptxb
