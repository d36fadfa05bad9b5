// The results store of model runs (DESIGN.md, "Results"): runs, attempts and evaluations in one
// embedded SQLite file. Every write is one transaction, so a killed process loses at most the
// record it was writing and never leaves part of one; the WAL journal lets readers (report,
// export) work while a run writes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "store/records.hpp"

namespace ptxb {

namespace sqlite {
class Database;
}

/// The database layout this build reads and writes. Bumped on any incompatible change; a file
/// with a newer version is refused, never modified.
inline constexpr int kStoreSchemaVersion = 1;

/// "ok", "no_code", "failed": the spelling in the database and the export.
std::string_view to_string(GenerationStatus status);
/// nullopt for an unknown name.
std::optional<GenerationStatus> generation_status_from_string(std::string_view name);

/// A second insert of something the store already holds: a run name that is taken, an attempt
/// for the same (run, task, sample, turn), a second evaluation of an attempt. Nothing was
/// written. `existing_id` is the stored run's id, the stored attempt's id, or the attempt id.
class DuplicateRecord : public InputError {
 public:
  DuplicateRecord(const std::string& message, int64_t existing_id)
      : InputError(message), existing_id_(existing_id) {}
  int64_t existing_id() const { return existing_id_; }

 private:
  int64_t existing_id_;
};

/// One stored turn of a sample: what resuming needs to decide the next step.
struct TurnState {
  int64_t attempt_id = 0;
  int turn = 0;
  GenerationStatus status = GenerationStatus::kOk;
  bool has_code = false;
  std::optional<std::string> outcome;  ///< the evaluation's outcome; nullopt: not judged yet
  bool success = false;                ///< judged, and the evaluation's `success`
};

/// The attempts so far of one (task, sample) of a run.
struct SampleProgress {
  std::string task_id;
  int sample = 0;
  std::vector<TurnState> turns;  ///< ordered by turn

  /// Some turn was judged a success.
  bool succeeded() const;
  /// Some stored turn has no evaluation yet (judge it before generating the next turn).
  bool has_unjudged() const;
  /// The turn to generate next: the last stored turn + 1.
  int next_turn() const;
  /// Finished under the default policy (stop on success): a turn succeeded, or `max_turns`
  /// turns are stored and all of them judged. A keep-optimizing loop looks at next_turn() only.
  bool finished(int max_turns) const;
};

/// The store. Thread-safe: one connection per ResultStore, every call serialised by a mutex
/// (writes are small and rare next to model calls and judging). Several processes may open the
/// same file at once (WAL; a writer waits up to 10 s for another's lock, then SQLITE_BUSY).
/// Failing SQLite calls throw sqlite::Error (an ApiError). Not to be used across fork(): a child
/// process opens its own ResultStore.
class ResultStore {
 public:
  /// Opens `path`, creating the file, its parent folders and the schema on first use. Turns on
  /// WAL, foreign keys, synchronous=FULL and a 10 s busy timeout. Throws InputError when the
  /// file holds a newer schema version (or an older one this build cannot migrate).
  explicit ResultStore(const std::filesystem::path& path);
  /// A private in-memory store (tests, dry runs): the same schema and rules, no file, no WAL.
  static ResultStore in_memory();
  ~ResultStore();
  ResultStore(const ResultStore&) = delete;
  ResultStore& operator=(const ResultStore&) = delete;

  /// The schema version stored in the file (kStoreSchemaVersion after a successful open).
  int schema_version() const;
  /// "wal" for a file store ("memory" in memory): PRAGMA journal_mode.
  std::string journal_mode() const;
  /// "ok" when SQLite finds no corruption: PRAGMA integrity_check (its first line).
  std::string integrity_check() const;

  // ---- writes: one transaction each ----

  /// Stores a run and returns its id. `created_at` empty: the current UTC time is stored.
  /// Throws DuplicateRecord when the name is taken (find_run() it to resume).
  int64_t create_run(const RunRecord& run);
  /// Stores one attempt and returns its id. `created_at` empty: the current UTC time.
  /// Throws DuplicateRecord when (run_id, task_id, sample, turn) is already stored (the
  /// stored one is kept, unchanged) and sqlite::Error (foreign key) for an unknown run.
  int64_t insert_attempt(const AttemptRecord& attempt);
  /// Sets the feedback the next turn was given about attempt `attempt_id` (known only after
  /// its evaluation). Throws InputError for an unknown attempt.
  void set_feedback(int64_t attempt_id, std::string_view feedback);
  /// Replaces run `run_id`'s environment record (a merge of shards keeps every host's).
  /// Throws InputError for an unknown run.
  void set_run_environment(int64_t run_id, const nlohmann::json& environment);
  /// Stores the evaluation of `evaluation.attempt_id`: exactly once per attempt. Throws
  /// DuplicateRecord when that attempt has one, sqlite::Error (foreign key) for an unknown one.
  void insert_evaluation(const EvaluationRecord& evaluation);

  // ---- reads ----

  std::optional<RunRecord> find_run(std::string_view name) const;
  std::optional<RunRecord> run(int64_t run_id) const;
  /// Every run, oldest first.
  std::vector<RunRecord> runs() const;

  std::optional<AttemptRecord> attempt(int64_t attempt_id) const;
  /// The attempts of a run ordered by (task_id, sample, turn).
  std::vector<AttemptRecord> attempts(int64_t run_id) const;
  /// Their ids only, same order (to stream large runs one attempt at a time).
  std::vector<int64_t> attempt_ids(int64_t run_id) const;
  /// The attempts of a run that have no evaluation yet, ordered by id: what `ptxbench
  /// evaluate` or a resumed run must judge. Attempts without code are included: the judge
  /// records a `no_code` evaluation for them, which takes them off this list.
  std::vector<AttemptRecord> attempts_without_evaluation(int64_t run_id) const;

  std::optional<EvaluationRecord> evaluation(int64_t attempt_id) const;
  /// The evaluations of a run's attempts, ordered by attempt id.
  std::vector<EvaluationRecord> evaluations(int64_t run_id) const;

  /// For resuming generation: per (task, sample) of the run that has at least one attempt,
  /// its turns so far, ordered by (task_id, sample). A (task, sample) with no attempt is absent.
  std::vector<SampleProgress> sample_progress(int64_t run_id) const;

 private:
  struct InMemory {};
  ResultStore(InMemory, const std::filesystem::path& path);
  void open_schema(bool in_memory);

  mutable std::mutex mutex_;
  std::unique_ptr<sqlite::Database> db_;
};

}  // namespace ptxb
