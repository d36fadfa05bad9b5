#include "serve/job_store.hpp"

#include <chrono>

namespace ptxb::serve {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  idempotency_key TEXT UNIQUE,
  task TEXT NOT NULL,
  tier TEXT NOT NULL,
  source TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done')),
  verdict TEXT,
  submitted REAL NOT NULL,
  started REAL,
  finished REAL,
  attempts INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs (state, id);
)sql";

constexpr const char* kColumns =
    "id, COALESCE(idempotency_key, ''), task, tier, source, state, COALESCE(verdict, ''), "
    "submitted, COALESCE(started, 0), COALESCE(finished, 0), attempts";

Job job_of(const sqlite::Statement& s) {
  Job j;
  j.id = s.column_int64(0);
  j.key = s.column_text(1);
  j.task = s.column_text(2);
  j.tier = s.column_text(3);
  j.source = s.column_text(4);
  j.state = s.column_text(5);
  j.verdict = s.column_text(6);
  j.submitted = s.column_double(7);
  j.started = s.column_double(8);
  j.finished = s.column_double(9);
  j.attempts = static_cast<int>(s.column_int64(10));
  return j;
}

}  // namespace

JobStore::JobStore(const std::filesystem::path& path) : db_(path) {
  db_.set_busy_timeout(std::chrono::seconds(10));
  db_.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;");
  db_.exec(kSchema);
}

int JobStore::requeue_interrupted() {
  std::lock_guard lock(mutex_);
  db_.prepare("UPDATE jobs SET state = 'queued', started = NULL WHERE state = 'running'").run();
  return static_cast<int>(db_.changes());
}

void JobStore::requeue(int64_t id) {
  std::lock_guard lock(mutex_);
  auto q = db_.prepare(
      "UPDATE jobs SET state = 'queued', started = NULL WHERE id = ? AND state = 'running'");
  q.bind_int64(1, id);
  q.run();
}

std::variant<JobStore::Submitted, JobStore::Refusal> JobStore::submit(const std::string& key,
                                                                      const std::string& task,
                                                                      const std::string& tier,
                                                                      const std::string& source,
                                                                      int64_t max_queued) {
  std::lock_guard lock(mutex_);
  sqlite::Transaction tx(db_, sqlite::Transaction::Kind::kImmediate);
  if (!key.empty()) {
    auto q = db_.prepare("SELECT id, task, tier, source FROM jobs WHERE idempotency_key = ?");
    q.bind_text(1, key);
    if (q.step()) {
      if (q.column_text(1) != task || q.column_text(2) != tier || q.column_text(3) != source)
        return Refusal::kKeyConflict;
      return Submitted{q.column_int64(0), true};
    }
  }
  auto waiting = db_.prepare("SELECT COUNT(*) FROM jobs WHERE state = 'queued'");
  waiting.step();
  if (waiting.column_int64(0) >= max_queued) return Refusal::kQueueFull;
  auto insert = db_.prepare(
      "INSERT INTO jobs (idempotency_key, task, tier, source, state, submitted) "
      "VALUES (?, ?, ?, ?, 'queued', ?)");
  insert.bind_optional_text(1, key.empty() ? std::nullopt : std::optional<std::string>(key))
      .bind_text(2, task)
      .bind_text(3, tier)
      .bind_text(4, source)
      .bind_double(5, now_seconds())
      .run();
  const int64_t id = db_.last_insert_rowid();
  tx.commit();
  return Submitted{id, false};
}

std::optional<Job> JobStore::claim_next() {
  std::lock_guard lock(mutex_);
  sqlite::Transaction tx(db_, sqlite::Transaction::Kind::kImmediate);
  auto next = db_.prepare("SELECT id FROM jobs WHERE state = 'queued' ORDER BY id LIMIT 1");
  if (!next.step()) return std::nullopt;
  const int64_t id = next.column_int64(0);
  db_.prepare(
         "UPDATE jobs SET state = 'running', started = ?, attempts = attempts + 1 WHERE id = ?")
      .bind_double(1, now_seconds())
      .bind_int64(2, id)
      .run();
  auto row = db_.prepare(std::string("SELECT ") + kColumns + " FROM jobs WHERE id = ?");
  row.bind_int64(1, id);
  row.step();
  Job job = job_of(row);
  tx.commit();
  return job;
}

void JobStore::finish(int64_t id, const std::string& verdict_json) {
  std::lock_guard lock(mutex_);
  db_.prepare(
         "UPDATE jobs SET state = 'done', verdict = ?, finished = ? WHERE id = ? AND state = "
         "'running'")
      .bind_text(1, verdict_json)
      .bind_double(2, now_seconds())
      .bind_int64(3, id)
      .run();
}

std::optional<Job> JobStore::get(int64_t id) {
  std::lock_guard lock(mutex_);
  auto row = db_.prepare(std::string("SELECT ") + kColumns + " FROM jobs WHERE id = ?");
  row.bind_int64(1, id);
  if (!row.step()) return std::nullopt;
  return job_of(row);
}

JobStore::Counts JobStore::counts() {
  std::lock_guard lock(mutex_);
  Counts c;
  auto q = db_.prepare("SELECT state, COUNT(*) FROM jobs GROUP BY state");
  while (q.step()) {
    const std::string state = q.column_text(0);
    const int64_t n = q.column_int64(1);
    if (state == "queued") c.queued = n;
    if (state == "running") c.running = n;
    if (state == "done") c.done = n;
  }
  auto recent = db_.prepare("SELECT COUNT(*) FROM jobs WHERE state = 'done' AND finished >= ?");
  recent.bind_double(1, now_seconds() - 3600.0);
  recent.step();
  c.done_last_hour = recent.column_int64(0);
  return c;
}

}  // namespace ptxb::serve
