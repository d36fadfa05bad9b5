#include "store/store_rows.hpp"

#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>

#include "store/export_json.hpp"
#include "store/store.hpp"

namespace ptxb::store_rows {

// NOTE: REAL columns are nullable on purpose: SQLite stores a bound NaN as NULL, which reads
// back as NaN (read_real), instead of failing a NOT NULL constraint in the middle of a run.
const char* const kSchemaSql = R"sql(
CREATE TABLE IF NOT EXISTS schema_version (
  version INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  model TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  prompt_version TEXT NOT NULL,
  ptxbench_version TEXT NOT NULL,
  created_at TEXT NOT NULL,
  settings TEXT NOT NULL,
  environment TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS attempts (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  task_id TEXT NOT NULL,
  sample INTEGER NOT NULL,
  turn INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ok', 'no_code', 'failed')),
  error TEXT NOT NULL,
  request TEXT NOT NULL,
  response TEXT NOT NULL,
  response_text TEXT NOT NULL,
  reasoning_text TEXT NOT NULL,
  code TEXT,
  feedback TEXT NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  latency_s REAL,
  retries INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (run_id, task_id, sample, turn)
);
CREATE TABLE IF NOT EXISTS evaluations (
  id INTEGER PRIMARY KEY,
  attempt_id INTEGER NOT NULL UNIQUE REFERENCES attempts(id),
  outcome TEXT NOT NULL,
  reason TEXT NOT NULL,
  compiled INTEGER NOT NULL,
  correct INTEGER NOT NULL,
  targets_executed INTEGER NOT NULL,
  success INTEGER NOT NULL,
  audit INTEGER NOT NULL,
  speedups TEXT NOT NULL,
  judge_seconds REAL,
  stage_seconds TEXT NOT NULL,
  verdict TEXT NOT NULL,
  created_at TEXT NOT NULL
);
)sql";

const char* const kRunColumns =
    "id, name, model, endpoint, prompt_version, ptxbench_version, created_at, settings, "
    "environment";
const char* const kAttemptColumns =
    "id, run_id, task_id, sample, turn, status, error, request, response, response_text, "
    "reasoning_text, code, feedback, prompt_tokens, completion_tokens, latency_s, retries, "
    "created_at";
const char* const kEvaluationColumns =
    "attempt_id, outcome, reason, compiled, correct, targets_executed, success, audit, speedups, "
    "judge_seconds, stage_seconds, verdict, created_at";

std::string dump_json(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json parse_json(const std::string& text, std::string_view column) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    PTXB_ASSERT(false,
                "stored JSON of column " + std::string(column) + " is malformed: " + e.what());
  }
  return {};  // unreachable: PTXB_ASSERT(false) throws
}

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

namespace {

const std::string& or_now(const std::string& created_at, std::string& scratch) {
  if (!created_at.empty()) return created_at;
  scratch = utc_now_iso8601();
  return scratch;
}

double read_real(const sqlite::Statement& row, int index) {
  if (row.column_is_null(index)) return std::numeric_limits<double>::quiet_NaN();
  return row.column_double(index);
}

}  // namespace

void bind_run(sqlite::Statement& s, const RunRecord& run) {
  std::string now;
  s.bind_text(1, run.name)
      .bind_text(2, run.model)
      .bind_text(3, run.endpoint)
      .bind_text(4, run.prompt_version)
      .bind_text(5, run.ptxbench_version)
      .bind_text(6, or_now(run.created_at, now))
      .bind_text(7, dump_json(run.settings))
      .bind_text(8, dump_json(run.environment));
}

RunRecord read_run(const sqlite::Statement& row) {
  RunRecord run;
  run.id = row.column_int64(0);
  run.name = row.column_text(1);
  run.model = row.column_text(2);
  run.endpoint = row.column_text(3);
  run.prompt_version = row.column_text(4);
  run.ptxbench_version = row.column_text(5);
  run.created_at = row.column_text(6);
  run.settings = parse_json(row.column_text(7), "runs.settings");
  run.environment = parse_json(row.column_text(8), "runs.environment");
  return run;
}

void bind_attempt(sqlite::Statement& s, const AttemptRecord& a) {
  std::string now;
  s.bind_int64(1, a.run_id)
      .bind_text(2, a.task_id)
      .bind_int64(3, a.sample)
      .bind_int64(4, a.turn)
      .bind_text(5, to_string(a.status))
      .bind_text(6, a.error)
      .bind_text(7, dump_json(a.request))
      .bind_text(8, dump_json(a.response))
      .bind_text(9, a.response_text)
      .bind_text(10, a.reasoning_text)
      .bind_optional_text(11, a.code)
      .bind_text(12, a.feedback)
      .bind_int64(13, a.prompt_tokens)
      .bind_int64(14, a.completion_tokens)
      .bind_double(15, a.latency_s)
      .bind_int64(16, a.retries)
      .bind_text(17, or_now(a.created_at, now));
}

AttemptRecord read_attempt(const sqlite::Statement& row) {
  AttemptRecord a;
  a.id = row.column_int64(0);
  a.run_id = row.column_int64(1);
  a.task_id = row.column_text(2);
  a.sample = static_cast<int>(row.column_int64(3));
  a.turn = static_cast<int>(row.column_int64(4));
  const std::string status = row.column_text(5);
  const auto parsed = generation_status_from_string(status);
  PTXB_ASSERT(parsed.has_value(), "stored attempt status is unknown: " + status);
  a.status = *parsed;
  a.error = row.column_text(6);
  a.request = parse_json(row.column_text(7), "attempts.request");
  a.response = parse_json(row.column_text(8), "attempts.response");
  a.response_text = row.column_text(9);
  a.reasoning_text = row.column_text(10);
  a.code = row.column_optional_text(11);
  a.feedback = row.column_text(12);
  a.prompt_tokens = row.column_int64(13);
  a.completion_tokens = row.column_int64(14);
  a.latency_s = read_real(row, 15);
  a.retries = static_cast<int>(row.column_int64(16));
  a.created_at = row.column_text(17);
  return a;
}

void bind_evaluation(sqlite::Statement& s, const EvaluationRecord& e) {
  std::string now;
  s.bind_int64(1, e.attempt_id)
      .bind_text(2, e.outcome)
      .bind_text(3, e.reason)
      .bind_int64(4, e.compiled ? 1 : 0)
      .bind_int64(5, e.correct ? 1 : 0)
      .bind_int64(6, e.targets_executed ? 1 : 0)
      .bind_int64(7, e.success ? 1 : 0)
      .bind_int64(8, e.audit ? 1 : 0)
      .bind_text(9, dump_json(speedups_to_json(e.speedups)))
      .bind_double(10, e.judge_seconds)
      .bind_text(11, dump_json(e.stage_seconds))
      .bind_text(12, dump_json(e.verdict))
      .bind_text(13, or_now(e.created_at, now));
}

EvaluationRecord read_evaluation(const sqlite::Statement& row) {
  EvaluationRecord e;
  e.attempt_id = row.column_int64(0);
  e.outcome = row.column_text(1);
  e.reason = row.column_text(2);
  e.compiled = row.column_int64(3) != 0;
  e.correct = row.column_int64(4) != 0;
  e.targets_executed = row.column_int64(5) != 0;
  e.success = row.column_int64(6) != 0;
  e.audit = row.column_int64(7) != 0;
  e.speedups = speedups_from_json(parse_json(row.column_text(8), "evaluations.speedups"));
  e.judge_seconds = read_real(row, 9);
  e.stage_seconds = parse_json(row.column_text(10), "evaluations.stage_seconds");
  e.verdict = parse_json(row.column_text(11), "evaluations.verdict");
  e.created_at = row.column_text(12);
  return e;
}

}  // namespace ptxb::store_rows
