// ResultStore: the reads. Each is one SELECT, so it sees one consistent state of the file even
// while another connection writes (WAL readers see the last commit before they started).
#include "store/sqlite.hpp"
#include "store/store.hpp"
#include "store/store_rows.hpp"

namespace ptxb {

namespace {

std::string select_sql(const char* columns, const char* from_where) {
  return std::string("SELECT ") + columns + " FROM " + from_where;
}

template <class Record, class Read>
std::vector<Record> all_rows(sqlite::Statement& statement, Read read) {
  std::vector<Record> out;
  while (statement.step()) out.push_back(read(statement));
  return out;
}

}  // namespace

std::optional<RunRecord> ResultStore::find_run(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  sqlite::Statement s = db_->prepare(select_sql(store_rows::kRunColumns, "runs WHERE name = ?1"));
  if (!s.bind_text(1, name).step()) return std::nullopt;
  return store_rows::read_run(s);
}

std::optional<RunRecord> ResultStore::run(int64_t run_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  sqlite::Statement s = db_->prepare(select_sql(store_rows::kRunColumns, "runs WHERE id = ?1"));
  if (!s.bind_int64(1, run_id).step()) return std::nullopt;
  return store_rows::read_run(s);
}

std::vector<RunRecord> ResultStore::runs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  sqlite::Statement s = db_->prepare(select_sql(store_rows::kRunColumns, "runs ORDER BY id"));
  return all_rows<RunRecord>(s, store_rows::read_run);
}

std::optional<AttemptRecord> ResultStore::attempt(int64_t attempt_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  sqlite::Statement s =
      db_->prepare(select_sql(store_rows::kAttemptColumns, "attempts WHERE id = ?1"));
  if (!s.bind_int64(1, attempt_id).step()) return std::nullopt;
  return store_rows::read_attempt(s);
}

std::vector<AttemptRecord> ResultStore::attempts(int64_t run_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  sqlite::Statement s = db_->prepare(select_sql(
      store_rows::kAttemptColumns, "attempts WHERE run_id = ?1 ORDER BY task_id, sample, turn"));
  s.bind_int64(1, run_id);
  return all_rows<AttemptRecord>(s, store_rows::read_attempt);
}

std::vector<int64_t> ResultStore::attempt_ids(int64_t run_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  sqlite::Statement s =
      db_->prepare("SELECT id FROM attempts WHERE run_id = ?1 ORDER BY task_id, sample, turn");
  s.bind_int64(1, run_id);
  return all_rows<int64_t>(s, [](const sqlite::Statement& row) { return row.column_int64(0); });
}

std::vector<AttemptRecord> ResultStore::attempts_without_evaluation(int64_t run_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  sqlite::Statement s = db_->prepare(
      select_sql(store_rows::kAttemptColumns,
                 "attempts WHERE run_id = ?1 AND NOT EXISTS (SELECT 1 FROM evaluations e WHERE "
                 "e.attempt_id = attempts.id) ORDER BY id"));
  s.bind_int64(1, run_id);
  return all_rows<AttemptRecord>(s, store_rows::read_attempt);
}

std::optional<EvaluationRecord> ResultStore::evaluation(int64_t attempt_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  sqlite::Statement s =
      db_->prepare(select_sql(store_rows::kEvaluationColumns, "evaluations WHERE attempt_id = ?1"));
  if (!s.bind_int64(1, attempt_id).step()) return std::nullopt;
  return store_rows::read_evaluation(s);
}

std::vector<EvaluationRecord> ResultStore::evaluations(int64_t run_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  sqlite::Statement s = db_->prepare(
      select_sql(store_rows::kEvaluationColumns,
                 "evaluations WHERE attempt_id IN (SELECT id FROM attempts WHERE run_id = ?1) "
                 "ORDER BY attempt_id"));
  s.bind_int64(1, run_id);
  return all_rows<EvaluationRecord>(s, store_rows::read_evaluation);
}

std::vector<SampleProgress> ResultStore::sample_progress(int64_t run_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  sqlite::Statement s = db_->prepare(
      "SELECT a.id, a.task_id, a.sample, a.turn, a.status, a.code IS NOT NULL, e.outcome, "
      "e.success FROM attempts a LEFT JOIN evaluations e ON e.attempt_id = a.id "
      "WHERE a.run_id = ?1 ORDER BY a.task_id, a.sample, a.turn");
  s.bind_int64(1, run_id);
  std::vector<SampleProgress> out;
  while (s.step()) {
    const std::string task_id = s.column_text(1);
    const int sample = static_cast<int>(s.column_int64(2));
    if (out.empty() || out.back().task_id != task_id || out.back().sample != sample) {
      out.push_back(SampleProgress{task_id, sample, {}});
    }
    TurnState turn;
    turn.attempt_id = s.column_int64(0);
    turn.turn = static_cast<int>(s.column_int64(3));
    const std::string status = s.column_text(4);
    const auto parsed = generation_status_from_string(status);
    PTXB_ASSERT(parsed.has_value(), "stored attempt status is unknown: " + status);
    turn.status = *parsed;
    turn.has_code = s.column_int64(5) != 0;
    turn.outcome = s.column_optional_text(6);
    turn.success = s.column_int64(7) != 0;
    out.back().turns.push_back(std::move(turn));
  }
  return out;
}

}  // namespace ptxb
