// The results store (src/store): round-trips of every field, uniqueness rules, schema versions,
// WAL, the SQLite wrapper's errors and transactions, resume state, and threads.
#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <regex>
#include <thread>

#include "store/sqlite.hpp"
#include "store/store.hpp"
#include "sys/files.hpp"
#include "test_store_records.hpp"

namespace ptxb {
namespace {

using namespace store_test;

TEST(StoreTest, RoundTripsEveryField) {
  TempDir dir;
  ResultStore store(dir.path() / "sub" / "results.db");  // parent folders are created
  RunRecord run = sample_run("run-a");
  run.id = store.create_run(run);
  expect_same(*store.run(run.id), run);
  expect_same(*store.find_run("run-a"), run);
  EXPECT_FALSE(store.find_run("run-b").has_value());

  AttemptRecord a = sample_attempt(run.id, "sm90/gemm/bf16-wgmma-tma", 1, 0);
  a.response_text += std::string("\0after a NUL byte", 17);  // bytes are kept as they are
  a.id = store.insert_attempt(a);
  store.set_feedback(a.id, "turn 0: incorrect at (3, 17); wgmma executed 4096 times");
  a.feedback = "turn 0: incorrect at (3, 17); wgmma executed 4096 times";
  expect_same(*store.attempt(a.id), a);

  AttemptRecord failed = sample_attempt(run.id, "sm90/gemm/bf16-wgmma-tma", 1, 1);
  failed.status = GenerationStatus::kFailed;
  failed.error = "HTTP 503 after 5 retries";
  failed.response = nullptr;
  failed.code = std::nullopt;
  failed.created_at = "";  // the store fills in the current time
  failed.id = store.insert_attempt(failed);
  const AttemptRecord got_failed = *store.attempt(failed.id);
  EXPECT_TRUE(
      std::regex_match(got_failed.created_at, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << got_failed.created_at;
  failed.created_at = got_failed.created_at;
  expect_same(got_failed, failed);

  const EvaluationRecord e = sample_evaluation(a.id, /*success=*/false);
  store.insert_evaluation(e);
  expect_same(*store.evaluation(a.id), e);
  EXPECT_FALSE(store.evaluation(failed.id).has_value());
  ASSERT_EQ(store.evaluations(run.id).size(), 1u);
  expect_same(store.evaluations(run.id)[0], e);

  const std::vector<AttemptRecord> all = store.attempts(run.id);
  ASSERT_EQ(all.size(), 2u);
  expect_same(all[0], a);
  expect_same(all[1], failed);
  EXPECT_EQ(store.attempt_ids(run.id), (std::vector<int64_t>{a.id, failed.id}));
  EXPECT_FALSE(store.attempt(9999).has_value());
  EXPECT_THROW(store.set_feedback(9999, "x"), InputError);
}

TEST(StoreTest, NonFiniteNumbersRoundTrip) {
  ResultStore store = ResultStore::in_memory();
  const int64_t run_id = store.create_run(sample_run("r"));
  AttemptRecord a = sample_attempt(run_id, "t", 0, 0);
  a.latency_s = std::numeric_limits<double>::quiet_NaN();
  a.id = store.insert_attempt(a);
  expect_same(*store.attempt(a.id), a);
  EvaluationRecord e = sample_evaluation(a.id, true);
  e.judge_seconds = std::numeric_limits<double>::infinity();
  e.speedups[0].speedup = std::numeric_limits<double>::quiet_NaN();
  e.speedups[1].baseline_tflops = -std::numeric_limits<double>::infinity();
  store.insert_evaluation(e);
  expect_same(*store.evaluation(a.id), e);
}

TEST(StoreTest, UniquenessRules) {
  ResultStore store = ResultStore::in_memory();
  const int64_t run_id = store.create_run(sample_run("run-a"));
  try {
    store.create_run(sample_run("run-a"));
    FAIL() << "a second run with the same name was stored";
  } catch (const DuplicateRecord& e) {
    EXPECT_EQ(e.existing_id(), run_id);
  }
  EXPECT_EQ(store.runs().size(), 1u);

  const AttemptRecord first = sample_attempt(run_id, "task", 0, 0);
  const int64_t id = store.insert_attempt(first);
  AttemptRecord again = first;
  again.response_text = "a different answer";
  try {
    store.insert_attempt(again);
    FAIL() << "a second attempt for the same (run, task, sample, turn) was stored";
  } catch (const DuplicateRecord& e) {
    EXPECT_EQ(e.existing_id(), id);
    EXPECT_NE(std::string(e.what()).find("turn 0"), std::string::npos) << e.what();
  }
  EXPECT_EQ(store.attempt(id)->response_text, first.response_text);  // the first one is kept
  EXPECT_EQ(store.attempts(run_id).size(), 1u);
  // Any other key component makes it a different attempt; so does another run.
  EXPECT_NO_THROW(store.insert_attempt(sample_attempt(run_id, "task", 0, 1)));
  EXPECT_NO_THROW(store.insert_attempt(sample_attempt(run_id, "task", 1, 0)));
  EXPECT_NO_THROW(store.insert_attempt(sample_attempt(run_id, "other", 0, 0)));
  const int64_t run_b = store.create_run(sample_run("run-b"));
  EXPECT_NO_THROW(store.insert_attempt(sample_attempt(run_b, "task", 0, 0)));

  store.insert_evaluation(sample_evaluation(id, true));
  EXPECT_THROW(store.insert_evaluation(sample_evaluation(id, false)), DuplicateRecord);
  EXPECT_TRUE(store.evaluation(id)->success);  // the first evaluation is kept

  // Foreign keys are on: no attempt of an unknown run, no evaluation of an unknown attempt.
  try {
    store.insert_attempt(sample_attempt(run_id + 100, "task", 0, 0));
    FAIL() << "an attempt of an unknown run was stored";
  } catch (const sqlite::Error& e) {
    EXPECT_EQ(e.code(), SQLITE_CONSTRAINT);
    EXPECT_NE(std::string(e.what()).find("FOREIGN KEY constraint failed"), std::string::npos);
  }
  EXPECT_THROW(store.insert_evaluation(sample_evaluation(12345, true)), sqlite::Error);
}

TEST(StoreTest, SqliteErrorNamesCallCodeAndMessage) {
  sqlite::Database db(":memory:");
  db.exec("CREATE TABLE t (x INTEGER UNIQUE)");
  db.prepare("INSERT INTO t (x) VALUES (?1)").bind_int64(1, 1).run();
  try {
    db.prepare("INSERT INTO t (x) VALUES (?1)").bind_int64(1, 1).run();
    FAIL() << "the UNIQUE constraint did not fire";
  } catch (const sqlite::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("SQLite call `sqlite3_step(stmt_)` failed with 19 (SQLITE_CONSTRAINT): "
                        "UNIQUE constraint failed: t.x [INSERT INTO t (x) VALUES (?1)]"),
              std::string::npos)
        << what;
    EXPECT_EQ(e.code(), SQLITE_CONSTRAINT);
    EXPECT_EQ(e.extended_code(), SQLITE_CONSTRAINT_UNIQUE);
  }
  EXPECT_THROW(db.prepare("SELEC nonsense"), sqlite::Error);
  EXPECT_EQ(sqlite::result_code_name(SQLITE_BUSY), "SQLITE_BUSY");
  EXPECT_EQ(sqlite::result_code_name(SQLITE_IOERR_FSYNC), "SQLITE_IOERR");
}

TEST(StoreTest, TransactionRollsBackOnException) {
  sqlite::Database db(":memory:");
  db.exec("CREATE TABLE t (x INTEGER)");
  try {
    sqlite::Transaction transaction(db, sqlite::Transaction::Kind::kImmediate);
    db.prepare("INSERT INTO t (x) VALUES (1)").run();
    throw std::runtime_error("killed between the two inserts");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(db.query_text("SELECT count(*) FROM t"), "0");
  EXPECT_TRUE(db.autocommit());
  {
    sqlite::Transaction transaction(db, sqlite::Transaction::Kind::kImmediate);
    db.prepare("INSERT INTO t (x) VALUES (2)").run();
    transaction.commit();
  }
  EXPECT_EQ(db.query_text("SELECT count(*) FROM t"), "1");
}

TEST(StoreTest, WalModeAndSchemaVersionOnFirstOpen) {
  TempDir dir;
  const auto path = dir.path() / "results.db";
  {
    ResultStore store(path);
    EXPECT_EQ(store.journal_mode(), "wal");
    EXPECT_EQ(store.schema_version(), kStoreSchemaVersion);
    EXPECT_EQ(store.integrity_check(), "ok");
    store.create_run(sample_run("r"));
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "results.db-wal"));
  }
  ResultStore reopened(path);  // a second open keeps the data and the single version row
  EXPECT_EQ(reopened.schema_version(), kStoreSchemaVersion);
  EXPECT_TRUE(reopened.find_run("r").has_value());
  sqlite::Database raw(path);
  EXPECT_EQ(raw.query_text("SELECT count(*) FROM schema_version"), "1");
  EXPECT_EQ(ResultStore::in_memory().journal_mode(), "memory");
}

TEST(StoreTest, RefusesANewerSchemaOrAForeignFileAndLeavesTheFileAlone) {
  TempDir dir;
  const auto path = dir.path() / "results.db";
  { ResultStore store(path); }
  {
    sqlite::Database raw(path);
    raw.exec("UPDATE schema_version SET version = " + std::to_string(kStoreSchemaVersion + 1));
  }
  try {
    ResultStore store(path);
    FAIL() << "a newer schema was opened";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("schema version " + std::to_string(kStoreSchemaVersion + 1)),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("newer PTXBench"), std::string::npos) << what;
  }
  sqlite::Database raw(path);
  EXPECT_EQ(raw.query_text("SELECT version FROM schema_version"),
            std::to_string(kStoreSchemaVersion + 1));

  const auto junk = dir.path() / "not-a-database.db";
  std::ofstream(junk) << std::string(4096, 'x');
  try {
    ResultStore store(junk);
    FAIL() << "a file that is not a database was opened";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not a PTXBench results database"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read_file(junk), std::string(4096, 'x')) << "the file was changed";

  // An SQLite file of another program is refused too, and left as it was.
  const auto foreign = dir.path() / "foreign.db";
  sqlite::Database(foreign).exec("CREATE TABLE notes (text TEXT)");
  EXPECT_THROW(ResultStore{foreign}, InputError);
  EXPECT_EQ(sqlite::Database(foreign).query_text("SELECT group_concat(name) FROM sqlite_master"),
            "notes");
}

TEST(StoreTest, AttemptsWithoutEvaluation) {
  ResultStore store = ResultStore::in_memory();
  const int64_t run_id = store.create_run(sample_run("r"));
  const int64_t other_run = store.create_run(sample_run("other"));
  const int64_t a0 = store.insert_attempt(sample_attempt(run_id, "b-task", 0, 0));
  const int64_t a1 = store.insert_attempt(sample_attempt(run_id, "a-task", 0, 0));
  AttemptRecord no_code = sample_attempt(run_id, "a-task", 1, 0);
  no_code.status = GenerationStatus::kNoCode;
  no_code.code = std::nullopt;
  const int64_t a2 = store.insert_attempt(no_code);
  store.insert_attempt(sample_attempt(other_run, "a-task", 0, 0));

  auto ids = [&] {
    std::vector<int64_t> out;
    for (const AttemptRecord& a : store.attempts_without_evaluation(run_id)) out.push_back(a.id);
    return out;
  };
  EXPECT_EQ(ids(), (std::vector<int64_t>{a0, a1, a2}));  // by id, other runs excluded
  store.insert_evaluation(sample_evaluation(a1, false));
  EXPECT_EQ(ids(), (std::vector<int64_t>{a0, a2}));
  EvaluationRecord no_code_eval = sample_evaluation(a2, false);
  no_code_eval.outcome = "no_code";
  store.insert_evaluation(no_code_eval);
  EXPECT_EQ(ids(), (std::vector<int64_t>{a0}));
  EXPECT_EQ(store.attempts_without_evaluation(run_id)[0].code,
            sample_attempt(run_id, "b-task", 0, 0).code);  // full records, code included
}

TEST(StoreTest, SampleProgressForResume) {
  ResultStore store = ResultStore::in_memory();
  const int64_t run_id = store.create_run(sample_run("r"));
  constexpr int kTurns = 3;
  auto add = [&](const std::string& task, int sample, int turn, std::optional<bool> success) {
    const int64_t id = store.insert_attempt(sample_attempt(run_id, task, sample, turn));
    if (success) store.insert_evaluation(sample_evaluation(id, *success));
    return id;
  };
  // Inserted out of order on purpose: progress is ordered by (task, sample), turns by turn.
  add("t/b", 1, 0, std::nullopt);  // generated, not judged yet
  add("t/a", 0, 1, true);          // repaired in turn 1
  add("t/a", 0, 0, false);
  for (int turn = 0; turn < kTurns; ++turn) add("t/a", 1, turn, false);  // all turns failed
  add("t/b", 0, 0, false);  // one failed turn: more to do

  const std::vector<SampleProgress> progress = store.sample_progress(run_id);
  ASSERT_EQ(progress.size(), 4u);
  EXPECT_EQ(progress[0].task_id, "t/a");
  EXPECT_EQ(progress[0].sample, 0);
  ASSERT_EQ(progress[0].turns.size(), 2u);
  EXPECT_EQ(progress[0].turns[0].turn, 0);
  EXPECT_EQ(progress[0].turns[0].outcome, "incorrect");
  EXPECT_TRUE(progress[0].turns[1].success);
  EXPECT_TRUE(progress[0].succeeded());
  EXPECT_TRUE(progress[0].finished(kTurns));

  EXPECT_EQ(progress[1].task_id, "t/a");
  EXPECT_EQ(progress[1].sample, 1);
  EXPECT_FALSE(progress[1].succeeded());
  EXPECT_EQ(progress[1].next_turn(), kTurns);
  EXPECT_TRUE(progress[1].finished(kTurns));
  EXPECT_FALSE(progress[1].finished(kTurns + 1));  // a longer budget would continue

  EXPECT_EQ(progress[2].task_id, "t/b");
  EXPECT_EQ(progress[2].sample, 0);
  EXPECT_EQ(progress[2].next_turn(), 1);
  EXPECT_FALSE(progress[2].has_unjudged());
  EXPECT_FALSE(progress[2].finished(kTurns));

  EXPECT_EQ(progress[3].sample, 1);
  EXPECT_TRUE(progress[3].has_unjudged());
  EXPECT_FALSE(progress[3].turns[0].outcome.has_value());
  EXPECT_TRUE(progress[3].turns[0].has_code);
  EXPECT_FALSE(progress[3].finished(1));  // its only turn still needs judging

  EXPECT_TRUE(store.sample_progress(run_id + 1).empty());
}

TEST(StoreTest, ThreadsAndASecondConnectionShareTheFile) {
  TempDir dir;
  const auto path = dir.path() / "results.db";
  ResultStore store(path);
  ResultStore second(path);  // another connection, as another process would have
  const int64_t run_id = store.create_run(sample_run("r"));
  constexpr int kThreads = 6;
  constexpr int kPerThread = 15;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ResultStore& target = (t % 2 == 0) ? store : second;
      for (int i = 0; i < kPerThread; ++i) {
        const int64_t id = target.insert_attempt(sample_attempt(run_id, "task", t, i));
        target.insert_evaluation(sample_evaluation(id, i % 3 == 0));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(store.attempts(run_id).size(), size_t{kThreads * kPerThread});
  EXPECT_EQ(second.evaluations(run_id).size(), size_t{kThreads * kPerThread});
  EXPECT_TRUE(store.attempts_without_evaluation(run_id).empty());
  EXPECT_EQ(store.integrity_check(), "ok");
}

}  // namespace
}  // namespace ptxb
