#include "store/export.hpp"

#include <istream>
#include <limits>
#include <ostream>

#include "core/error.hpp"
#include "store/export_json.hpp"
#include "store/store.hpp"

namespace ptxb {

namespace {

int small_integer(const nlohmann::json& object, std::string_view key) {
  const int64_t value = json_field::integer(object, key, "");
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
    throw InputError("field `" + std::string(key) + "` is out of range");
  }
  return static_cast<int>(value);
}

void check_stream(const std::ostream& out) {
  if (!out) {
    throw_api("iostream", "operator<<", 0, "", "the export stream failed (disk full?)", __FILE__,
              __LINE__);
  }
}

}  // namespace

nlohmann::json attempt_export_json(const RunRecord& run, const AttemptRecord& a,
                                   const std::optional<EvaluationRecord>& evaluation) {
  return {
      {"schema", kAttemptExportSchema},
      {"run", run_to_json(run)},
      {"attempt_id", a.id},
      {"task", a.task_id},
      {"sample", a.sample},
      {"turn", a.turn},
      {"status", to_string(a.status)},
      {"error", a.error},
      {"request", a.request},
      {"response", a.response},
      {"response_text", a.response_text},
      {"reasoning", a.reasoning_text},
      {"code", a.code ? nlohmann::json(*a.code) : nlohmann::json(nullptr)},
      {"feedback", a.feedback},
      {"usage", {{"prompt_tokens", a.prompt_tokens}, {"completion_tokens", a.completion_tokens}}},
      {"latency_s", real_to_json(a.latency_s)},
      {"retries", a.retries},
      {"created_at", a.created_at},
      {"evaluation", evaluation ? evaluation_to_json(*evaluation) : nlohmann::json(nullptr)}};
}

std::string attempt_export_line(const RunRecord& run, const AttemptRecord& attempt,
                                const std::optional<EvaluationRecord>& evaluation) {
  return attempt_export_json(run, attempt, evaluation)
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

AttemptExport parse_attempt_export(const nlohmann::json& object) {
  const int64_t schema = json_field::integer(object, "schema", "");
  if (schema != kAttemptExportSchema) {
    throw InputError("attempt export schema " + std::to_string(schema) +
                     " is not supported; this PTXBench reads schema " +
                     std::to_string(kAttemptExportSchema));
  }
  AttemptExport out;
  out.run = run_from_json(json_field::any(object, "run", ""));
  AttemptRecord& a = out.attempt;
  a.id = json_field::integer(object, "attempt_id", "");
  a.run_id = out.run.id;
  a.task_id = json_field::text(object, "task", "");
  a.sample = small_integer(object, "sample");
  a.turn = small_integer(object, "turn");
  const std::string status = json_field::text(object, "status", "");
  const auto parsed = generation_status_from_string(status);
  if (!parsed) throw InputError("field `status` has an unknown value '" + status + "'");
  a.status = *parsed;
  a.error = json_field::text(object, "error", "");
  a.request = json_field::any(object, "request", "");
  a.response = json_field::any(object, "response", "");
  a.response_text = json_field::text(object, "response_text", "");
  a.reasoning_text = json_field::text(object, "reasoning", "");
  if (!json_field::any(object, "code", "").is_null()) a.code = json_field::text(object, "code", "");
  a.feedback = json_field::text(object, "feedback", "");
  const nlohmann::json& usage = json_field::any(object, "usage", "");
  a.prompt_tokens = json_field::integer(usage, "prompt_tokens", "usage");
  a.completion_tokens = json_field::integer(usage, "completion_tokens", "usage");
  a.latency_s = json_field::real(object, "latency_s", "");
  a.retries = small_integer(object, "retries");
  a.created_at = json_field::text(object, "created_at", "");
  const nlohmann::json& evaluation = json_field::any(object, "evaluation", "");
  if (!evaluation.is_null()) out.evaluation = evaluation_from_json(evaluation, a.id);
  return out;
}

AttemptExport parse_attempt_export_line(std::string_view line) {
  nlohmann::json object;
  try {
    object = nlohmann::json::parse(line);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(std::string("attempt export line is not JSON: ") + e.what());
  }
  return parse_attempt_export(object);
}

size_t read_attempt_export(std::istream& in, const std::function<void(AttemptExport&&)>& visit) {
  size_t count = 0;
  size_t line_number = 0;
  std::string line;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    AttemptExport record;
    try {
      record = parse_attempt_export_line(line);
    } catch (const InputError& e) {
      throw InputError("attempt export line " + std::to_string(line_number) + ": " + e.what());
    }
    visit(std::move(record));
    ++count;
  }
  return count;
}

size_t export_run(const ResultStore& store, int64_t run_id, std::ostream& out) {
  const std::optional<RunRecord> run = store.run(run_id);
  if (!run) throw InputError("no run " + std::to_string(run_id) + " in the results database");
  size_t count = 0;
  for (int64_t id : store.attempt_ids(run_id)) {
    const std::optional<AttemptRecord> attempt = store.attempt(id);
    PTXB_ASSERT(attempt.has_value(), "attempt " + std::to_string(id) + " vanished during export");
    out << attempt_export_line(*run, *attempt, store.evaluation(id)) << '\n';
    check_stream(out);
    ++count;
  }
  out.flush();
  check_stream(out);
  return count;
}

size_t export_all_runs(const ResultStore& store, std::ostream& out) {
  size_t count = 0;
  for (const RunRecord& run : store.runs()) count += export_run(store, run.id, out);
  return count;
}

}  // namespace ptxb
