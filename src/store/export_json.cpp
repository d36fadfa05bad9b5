#include "store/export_json.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace ptxb {

namespace json_field {

namespace {

std::string name_of(std::string_view key, std::string_view where) {
  return where.empty() ? std::string(key) : std::string(where) + "." + std::string(key);
}

[[noreturn]] void wrong_type(std::string_view key, std::string_view where, const char* want) {
  throw InputError("field `" + name_of(key, where) + "` must be " + want);
}

}  // namespace

const nlohmann::json& any(const nlohmann::json& object, std::string_view key,
                          std::string_view where) {
  if (!object.is_object()) {
    throw InputError("`" + (where.empty() ? std::string("record") : std::string(where)) +
                     "` must be an object");
  }
  const auto it = object.find(std::string(key));
  if (it == object.end()) throw InputError("field `" + name_of(key, where) + "` is missing");
  return *it;
}

std::string text(const nlohmann::json& object, std::string_view key, std::string_view where) {
  const nlohmann::json& value = any(object, key, where);
  if (!value.is_string()) wrong_type(key, where, "a string");
  return value.get<std::string>();
}

int64_t integer(const nlohmann::json& object, std::string_view key, std::string_view where) {
  const nlohmann::json& value = any(object, key, where);
  if (!value.is_number_integer()) wrong_type(key, where, "an integer");
  return value.get<int64_t>();
}

bool boolean(const nlohmann::json& object, std::string_view key, std::string_view where) {
  const nlohmann::json& value = any(object, key, where);
  if (!value.is_boolean()) wrong_type(key, where, "true or false");
  return value.get<bool>();
}

double real(const nlohmann::json& object, std::string_view key, std::string_view where) {
  return real_from_json(any(object, key, where), name_of(key, where));
}

}  // namespace json_field

nlohmann::json real_to_json(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  return value;
}

double real_from_json(const nlohmann::json& value, std::string_view field) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  throw InputError("field `" + std::string(field) +
                   "` must be a number or \"NaN\", \"Infinity\", \"-Infinity\"");
}

nlohmann::json speedups_to_json(const std::vector<ShapeSpeedup>& speedups) {
  nlohmann::json out = nlohmann::json::array();
  for (const ShapeSpeedup& s : speedups) {
    out.push_back({{"shape", s.shape},
                   {"hidden", s.hidden},
                   {"speedup", real_to_json(s.speedup)},
                   {"candidate_tflops", real_to_json(s.candidate_tflops)},
                   {"baseline_tflops", real_to_json(s.baseline_tflops)}});
    if (s.sustained_speedup) out.back()["sustained_speedup"] = real_to_json(*s.sustained_speedup);
    if (!s.regime.empty()) out.back()["regime"] = s.regime;
  }
  return out;
}

std::vector<ShapeSpeedup> speedups_from_json(const nlohmann::json& value) {
  if (!value.is_array()) throw InputError("field `speedups` must be an array");
  std::vector<ShapeSpeedup> out;
  for (size_t i = 0; i < value.size(); ++i) {
    const std::string where = "speedups[" + std::to_string(i) + "]";
    const nlohmann::json& item = value[i];
    ShapeSpeedup s;
    s.shape = json_field::text(item, "shape", where);
    s.hidden = json_field::boolean(item, "hidden", where);
    s.speedup = json_field::real(item, "speedup", where);
    s.candidate_tflops = json_field::real(item, "candidate_tflops", where);
    s.baseline_tflops = json_field::real(item, "baseline_tflops", where);
    if (item.contains("sustained_speedup"))  // absent: not measured (or stored before it was)
      s.sustained_speedup = json_field::real(item, "sustained_speedup", where);
    if (item.contains("regime")) s.regime = json_field::text(item, "regime", where);
    out.push_back(std::move(s));
  }
  return out;
}

nlohmann::json run_to_json(const RunRecord& run) {
  return {{"id", run.id},
          {"name", run.name},
          {"model", run.model},
          {"endpoint", run.endpoint},
          {"prompt_version", run.prompt_version},
          {"ptxbench_version", run.ptxbench_version},
          {"created_at", run.created_at},
          {"settings", run.settings},
          {"environment", run.environment}};
}

RunRecord run_from_json(const nlohmann::json& value) {
  constexpr std::string_view kWhere = "run";
  RunRecord run;
  run.id = json_field::integer(value, "id", kWhere);
  run.name = json_field::text(value, "name", kWhere);
  run.model = json_field::text(value, "model", kWhere);
  run.endpoint = json_field::text(value, "endpoint", kWhere);
  run.prompt_version = json_field::text(value, "prompt_version", kWhere);
  run.ptxbench_version = json_field::text(value, "ptxbench_version", kWhere);
  run.created_at = json_field::text(value, "created_at", kWhere);
  run.settings = json_field::any(value, "settings", kWhere);
  run.environment = json_field::any(value, "environment", kWhere);
  return run;
}

nlohmann::json evaluation_to_json(const EvaluationRecord& e) {
  return {{"outcome", e.outcome},
          {"reason", e.reason},
          {"compiled", e.compiled},
          {"correct", e.correct},
          {"targets_executed", e.targets_executed},
          {"success", e.success},
          {"audit", e.audit},
          {"speedups", speedups_to_json(e.speedups)},
          {"judge_seconds", real_to_json(e.judge_seconds)},
          {"stage_seconds", e.stage_seconds},
          {"verdict", e.verdict},
          {"created_at", e.created_at}};
}

EvaluationRecord evaluation_from_json(const nlohmann::json& value, int64_t attempt_id) {
  constexpr std::string_view kWhere = "evaluation";
  EvaluationRecord e;
  e.attempt_id = attempt_id;
  e.outcome = json_field::text(value, "outcome", kWhere);
  e.reason = json_field::text(value, "reason", kWhere);
  e.compiled = json_field::boolean(value, "compiled", kWhere);
  e.correct = json_field::boolean(value, "correct", kWhere);
  e.targets_executed = json_field::boolean(value, "targets_executed", kWhere);
  e.success = json_field::boolean(value, "success", kWhere);
  e.audit = json_field::boolean(value, "audit", kWhere);
  e.speedups = speedups_from_json(json_field::any(value, "speedups", kWhere));
  e.judge_seconds = json_field::real(value, "judge_seconds", kWhere);
  e.stage_seconds = json_field::any(value, "stage_seconds", kWhere);
  e.verdict = json_field::any(value, "verdict", kWhere);
  e.created_at = json_field::text(value, "created_at", kWhere);
  return e;
}

}  // namespace ptxb
