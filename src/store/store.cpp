// ResultStore: opening, the schema and the writes. Reads are in store_query.cpp.
#include "store/store.hpp"

#include <algorithm>

#include "store/sqlite.hpp"
#include "store/store_rows.hpp"

namespace ptxb {
namespace fs = std::filesystem;
using sqlite::Transaction;

namespace {

constexpr std::chrono::milliseconds kBusyTimeout{10'000};

/// "INSERT INTO table (a, b, c) VALUES (?1, ?2, ?3)" for the columns of a k*Columns list
/// without its leading "id" (the store assigns ids).
std::string insert_sql(std::string_view table, std::string_view columns) {
  if (columns.substr(0, 4) == "id, ") columns.remove_prefix(4);
  const auto count = static_cast<int>(std::count(columns.begin(), columns.end(), ',')) + 1;
  std::string sql =
      "INSERT INTO " + std::string(table) + " (" + std::string(columns) + ") VALUES (";
  for (int i = 1; i <= count; ++i) sql += (i > 1 ? ", ?" : "?") + std::to_string(i);
  return sql + ")";
}

}  // namespace

std::string_view to_string(GenerationStatus status) {
  switch (status) {
    case GenerationStatus::kOk:
      return "ok";
    case GenerationStatus::kNoCode:
      return "no_code";
    case GenerationStatus::kFailed:
      return "failed";
  }
  PTXB_ASSERT(false, "unknown GenerationStatus");
  return "";  // unreachable: PTXB_ASSERT(false) throws
}

std::optional<GenerationStatus> generation_status_from_string(std::string_view name) {
  for (GenerationStatus s :
       {GenerationStatus::kOk, GenerationStatus::kNoCode, GenerationStatus::kFailed}) {
    if (to_string(s) == name) return s;
  }
  return std::nullopt;
}

// ---- SampleProgress ----

bool SampleProgress::succeeded() const {
  return std::any_of(turns.begin(), turns.end(), [](const TurnState& t) { return t.success; });
}

bool SampleProgress::has_unjudged() const {
  return std::any_of(turns.begin(), turns.end(),
                     [](const TurnState& t) { return !t.outcome.has_value(); });
}

int SampleProgress::next_turn() const { return turns.empty() ? 0 : turns.back().turn + 1; }

bool SampleProgress::finished(int max_turns) const {
  return succeeded() || (next_turn() >= max_turns && !has_unjudged());
}

// ---- opening ----

ResultStore::ResultStore(const fs::path& path) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  db_ = std::make_unique<sqlite::Database>(path);
  open_schema(/*in_memory=*/false);
}

ResultStore::ResultStore(InMemory, const fs::path& path)
    : db_(std::make_unique<sqlite::Database>(path)) {
  open_schema(/*in_memory=*/true);
}

ResultStore ResultStore::in_memory() { return ResultStore(InMemory{}, ":memory:"); }

ResultStore::~ResultStore() = default;

void ResultStore::open_schema(bool in_memory) {
  db_->set_busy_timeout(kBusyTimeout);
  try {
    db_->exec("PRAGMA foreign_keys = ON");
    // The first statement that reads the file: a file that is not SQLite fails here.
    db_->query_text("SELECT count(*) FROM sqlite_master");
  } catch (const sqlite::Error& e) {
    if (e.code() != SQLITE_NOTADB) throw;
    throw InputError(db_->path() + ": not a PTXBench results database (not an SQLite file)");
  }
  // NOTE: FULL syncs the WAL on every commit, so a committed record survives a power cut too;
  // records are written once per model call, so the cost does not show.
  db_->exec("PRAGMA synchronous = FULL");
  {
    // The version check and the schema in one write transaction: two processes creating the
    // same new file cannot both insert a version, and a newer file is left untouched.
    Transaction transaction(*db_, Transaction::Kind::kImmediate);
    const bool has_table = db_->query_text(
                                  "SELECT name FROM sqlite_master WHERE type = 'table' AND "
                                  "name = 'schema_version'")
                               .has_value();
    if (!has_table && db_->query_text("SELECT count(*) FROM sqlite_master") != "0") {
      throw InputError(db_->path() +
                       ": an SQLite file of something else (tables but no PTXBench schema "
                       "version); left untouched: choose another file");
    }
    std::optional<std::string> stored;
    if (has_table) stored = db_->query_text("SELECT max(version) FROM schema_version");
    if (stored && !stored->empty()) {
      const int version = std::stoi(*stored);
      if (version != kStoreSchemaVersion) {
        throw InputError("results database " + db_->path() + " has schema version " +
                         std::to_string(version) + "; this PTXBench reads version " +
                         std::to_string(kStoreSchemaVersion) +
                         (version > kStoreSchemaVersion
                              ? " only: open it with a newer PTXBench or choose another file"
                              : " and cannot migrate it: choose another file"));
      }
    }
    db_->exec(store_rows::kSchemaSql);
    if (!stored || stored->empty()) {
      db_->prepare("INSERT INTO schema_version (version) VALUES (?1)")
          .bind_int64(1, kStoreSchemaVersion)
          .run();
    }
    transaction.commit();
  }
  if (in_memory) return;
  const std::string mode = db_->query_text("PRAGMA journal_mode = WAL").value_or("");
  if (mode != "wal") {
    throw InputError("results database " + db_->path() + " cannot use the WAL journal (SQLite " +
                     "kept '" + mode + "'): put it on a local file system");
  }
}

int ResultStore::schema_version() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::stoi(db_->query_text("SELECT max(version) FROM schema_version").value_or("0"));
}

std::string ResultStore::journal_mode() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return db_->query_text("PRAGMA journal_mode").value_or("");
}

std::string ResultStore::integrity_check() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return db_->query_text("PRAGMA integrity_check").value_or("");
}

// ---- writes ----

int64_t ResultStore::create_run(const RunRecord& run) {
  std::lock_guard<std::mutex> lock(mutex_);
  Transaction transaction(*db_, Transaction::Kind::kImmediate);
  sqlite::Statement find = db_->prepare("SELECT id FROM runs WHERE name = ?1");
  if (find.bind_text(1, run.name).step()) {
    throw DuplicateRecord("a run named '" + run.name + "' is already stored (run " +
                              std::to_string(find.column_int64(0)) + ")",
                          find.column_int64(0));
  }
  sqlite::Statement insert = db_->prepare(insert_sql("runs", store_rows::kRunColumns));
  store_rows::bind_run(insert, run);
  insert.run();
  const int64_t id = db_->last_insert_rowid();
  transaction.commit();
  return id;
}

int64_t ResultStore::insert_attempt(const AttemptRecord& attempt) {
  std::lock_guard<std::mutex> lock(mutex_);
  Transaction transaction(*db_, Transaction::Kind::kImmediate);
  sqlite::Statement find = db_->prepare(
      "SELECT id FROM attempts WHERE run_id = ?1 AND task_id = ?2 AND sample = ?3 AND turn = ?4");
  find.bind_int64(1, attempt.run_id)
      .bind_text(2, attempt.task_id)
      .bind_int64(3, attempt.sample)
      .bind_int64(4, attempt.turn);
  if (find.step()) {
    const int64_t existing = find.column_int64(0);
    throw DuplicateRecord("run " + std::to_string(attempt.run_id) + " already holds task " +
                              attempt.task_id + " sample " + std::to_string(attempt.sample) +
                              " turn " + std::to_string(attempt.turn) + " (attempt " +
                              std::to_string(existing) + ")",
                          existing);
  }
  sqlite::Statement insert = db_->prepare(insert_sql("attempts", store_rows::kAttemptColumns));
  store_rows::bind_attempt(insert, attempt);
  insert.run();
  const int64_t id = db_->last_insert_rowid();
  transaction.commit();
  return id;
}

void ResultStore::set_feedback(int64_t attempt_id, std::string_view feedback) {
  std::lock_guard<std::mutex> lock(mutex_);
  Transaction transaction(*db_, Transaction::Kind::kImmediate);
  db_->prepare("UPDATE attempts SET feedback = ?1 WHERE id = ?2")
      .bind_text(1, feedback)
      .bind_int64(2, attempt_id)
      .run();
  if (db_->changes() == 0) {
    throw InputError("no attempt " + std::to_string(attempt_id) + " in the results database");
  }
  transaction.commit();
}

void ResultStore::set_run_environment(int64_t run_id, const nlohmann::json& environment) {
  std::lock_guard<std::mutex> lock(mutex_);
  Transaction transaction(*db_, Transaction::Kind::kImmediate);
  db_->prepare("UPDATE runs SET environment = ?1 WHERE id = ?2")
      .bind_text(1, store_rows::dump_json(environment))
      .bind_int64(2, run_id)
      .run();
  if (db_->changes() == 0)
    throw InputError("no run " + std::to_string(run_id) + " in the results database");
  transaction.commit();
}

void ResultStore::insert_evaluation(const EvaluationRecord& evaluation) {
  std::lock_guard<std::mutex> lock(mutex_);
  Transaction transaction(*db_, Transaction::Kind::kImmediate);
  sqlite::Statement find = db_->prepare("SELECT 1 FROM evaluations WHERE attempt_id = ?1");
  if (find.bind_int64(1, evaluation.attempt_id).step()) {
    throw DuplicateRecord(
        "attempt " + std::to_string(evaluation.attempt_id) + " already has an evaluation",
        evaluation.attempt_id);
  }
  sqlite::Statement insert =
      db_->prepare(insert_sql("evaluations", store_rows::kEvaluationColumns));
  store_rows::bind_evaluation(insert, evaluation);
  insert.run();
  transaction.commit();
}

}  // namespace ptxb
