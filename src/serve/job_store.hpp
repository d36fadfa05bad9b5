// The judging service's jobs in SQLite (docs/serve.md): every submission is a row before it is
// acknowledged, so a restart resumes the queue and a killed server loses nothing. A job is
// queued, then running (claimed by an executor), then done with its verdict; jobs a killed server
// left running go back to the queue when the next one starts and are judged again, their verdict
// stored once. An idempotency key makes a resubmission return the first job. Thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <variant>

#include "store/sqlite.hpp"

namespace ptxb::serve {

struct Job {
  int64_t id = 0;
  std::string key;  ///< the idempotency key ("" when none was given)
  std::string task;
  std::string tier;
  std::string source;
  std::string state;                                ///< "queued", "running" or "done"
  std::string verdict;                              ///< the verdict JSON when done, else ""
  double submitted = 0, started = 0, finished = 0;  ///< Unix seconds; 0 when not yet
  int attempts = 0;                                 ///< times claimed (more than 1 after restarts)
};

class JobStore {
 public:
  /// Opens (creating) the database at `path` in WAL mode with full synchronous writes.
  explicit JobStore(const std::filesystem::path& path);

  /// Puts jobs left "running" by a server that stopped without finishing them back in the queue;
  /// returns how many.
  int requeue_interrupted();

  struct Submitted {
    int64_t id = 0;
    bool existed = false;  ///< the key named an earlier job (the same task and source)
  };
  enum class Refusal { kQueueFull, kKeyConflict };
  /// A new queued job, or the earlier one with the same non-empty `key` (then the task, tier and
  /// source must be the same: kKeyConflict otherwise). kQueueFull when `max_queued` jobs wait.
  std::variant<Submitted, Refusal> submit(const std::string& key, const std::string& task,
                                          const std::string& tier, const std::string& source,
                                          int64_t max_queued);

  /// The oldest queued job, now running; nullopt when none waits.
  std::optional<Job> claim_next();
  /// Puts a running job back in the queue (the judge lost its GPUs before judging it).
  void requeue(int64_t id);
  /// Stores the verdict of a running job and marks it done.
  void finish(int64_t id, const std::string& verdict_json);
  std::optional<Job> get(int64_t id);

  struct Counts {
    int64_t queued = 0, running = 0, done = 0;
    int64_t done_last_hour = 0;
  };
  Counts counts();

 private:
  std::mutex mutex_;
  sqlite::Database db_;
};

}  // namespace ptxb::serve
