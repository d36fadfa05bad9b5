// A writer killed with SIGKILL in the middle of a run: the database must open afterwards, pass
// PRAGMA integrity_check, hold every record whose insert had returned, and only whole records.
// Eight rounds on the same file, each killed at another phase of the writer's loop and each child
// resuming where the previous one was killed.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <set>
#include <vector>

#include "store/store.hpp"
#include "sys/files.hpp"
#include "test_store_records.hpp"

namespace ptxb {
namespace {

using namespace store_test;

constexpr char kTask[] = "sm90/gemm/bf16-wgmma-tma";

/// Attempt `turn` of the writer: large (about 1 MiB), so most of the child's time is spent
/// inside a write transaction, and derived from `turn` alone, so a reader can check it whole.
AttemptRecord big_attempt(int64_t run_id, int turn) {
  AttemptRecord a = sample_attempt(run_id, kTask, 0, turn);
  a.response_text = std::string(1 << 19, static_cast<char>('a' + turn % 26));
  a.reasoning_text = std::string(1 << 19, static_cast<char>('A' + turn % 26));
  a.request["turn"] = turn;
  return a;
}

/// Runs in the forked child as a resumed run would: opens the store, judges what the killed
/// writer left unjudged, then writes attempts after the last stored turn, each followed by its
/// evaluation, until killed. Reports each attempt id on `fd` after its insert returned.
[[noreturn]] void writer_child(const std::filesystem::path& path, int64_t run_id, int fd) {
  try {
    ResultStore store(path);
    for (const AttemptRecord& a : store.attempts_without_evaluation(run_id)) {
      store.insert_evaluation(sample_evaluation(a.id, a.turn % 4 == 0));
    }
    const std::vector<SampleProgress> progress = store.sample_progress(run_id);
    int turn = progress.empty() ? 0 : progress[0].next_turn();
    for (;; ++turn) {
      const int64_t id = store.insert_attempt(big_attempt(run_id, turn));
      if (::write(fd, &id, sizeof id) != static_cast<ssize_t>(sizeof id)) ::_exit(3);
      store.insert_evaluation(sample_evaluation(id, turn % 4 == 0));
    }
  } catch (...) {
    ::_exit(2);
  }
}

/// Reads ids from `fd` until `want` (at least 2) arrived, or EOF, or 15 s passed. Returns the
/// mean time between two reports: the period of the writer's loop.
std::chrono::microseconds read_ids(int fd, size_t want, std::set<int64_t>& ids) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::seconds(15);
  std::vector<Clock::time_point> arrivals;
  while (arrivals.size() < want && Clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    int64_t id = 0;
    if (::read(fd, &id, sizeof id) != static_cast<ssize_t>(sizeof id)) break;
    ids.insert(id);
    arrivals.push_back(Clock::now());
  }
  if (arrivals.size() < 2) return std::chrono::microseconds(0);
  return std::chrono::duration_cast<std::chrono::microseconds>(arrivals.back() - arrivals.front()) /
         static_cast<int>(arrivals.size() - 1);
}

/// Reads whatever is left in the pipe after the writer died.
void drain_ids(int fd, std::set<int64_t>& ids) {
  int64_t id = 0;
  while (::read(fd, &id, sizeof id) == static_cast<ssize_t>(sizeof id)) ids.insert(id);
}

TEST(StoreKill, SigkillMidWriteLeavesOnlyWholeRecords) {
  TempDir dir;
  const auto path = dir.path() / "results.db";
  int64_t run_id = 0;
  {
    ResultStore store(path);  // closed before fork: the child opens its own connection
    run_id = store.create_run(sample_run("killed-run"));
  }
  std::set<int64_t> committed;  // ids whose insert had returned in some child
  constexpr int kRounds = 8;
  for (int round = 0; round < kRounds; ++round) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      writer_child(path, run_id, fds[1]);
    }
    ::close(fds[1]);
    std::set<int64_t> ids;
    const std::chrono::microseconds period = read_ids(fds[0], 3, ids);
    ASSERT_GT(period.count(), 0) << "the writer reported fewer than 2 attempts";
    // Each round kills at another phase of the loop (attempt write, report, evaluation write).
    ::usleep(static_cast<useconds_t>(period.count() * (2 * round + 1) / (2 * kRounds)));
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    drain_ids(fds[0], ids);
    ::close(fds[0]);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "the writer ended on its own (status " << status << "): it failed to write";
    ASSERT_FALSE(ids.empty()) << "the writer committed nothing in round " << round;
    committed.insert(ids.begin(), ids.end());

    ResultStore store(path);
    ASSERT_EQ(store.integrity_check(), "ok");
    const std::vector<AttemptRecord> attempts = store.attempts(run_id);
    std::set<int64_t> stored;
    for (size_t i = 0; i < attempts.size(); ++i) {
      const AttemptRecord& a = attempts[i];
      stored.insert(a.id);
      ASSERT_EQ(a.turn, static_cast<int>(i)) << "turns must be 0..n-1 without a gap";
      AttemptRecord want = big_attempt(run_id, a.turn);
      want.id = a.id;
      // Whole: every byte of both 512 KiB texts (compared here, so a failure prints no text).
      EXPECT_TRUE(a.response_text == want.response_text)
          << "turn " << a.turn << ": response_text has " << a.response_text.size() << " bytes";
      EXPECT_TRUE(a.reasoning_text == want.reasoning_text)
          << "turn " << a.turn << ": reasoning_text has " << a.reasoning_text.size() << " bytes";
      AttemptRecord rest = a;
      rest.response_text = want.response_text = "";
      rest.reasoning_text = want.reasoning_text = "";
      expect_same(rest, want);
      const std::optional<EvaluationRecord> e = store.evaluation(a.id);
      // Only the last attempt may lack its evaluation (killed between the two writes); the
      // next child judges it before going on.
      if (i + 1 < attempts.size()) {
        ASSERT_TRUE(e.has_value()) << "turn " << a.turn;
      }
      if (e) expect_same(*e, sample_evaluation(a.id, a.turn % 4 == 0));
    }
    for (int64_t id : committed) EXPECT_TRUE(stored.count(id)) << "committed attempt lost: " << id;
    // Each killed child may have committed one attempt it had not reported yet.
    EXPECT_LE(stored.size(), committed.size() + static_cast<size_t>(round) + 1);
    if (HasFailure()) return;  // later rounds would repeat the same findings
  }
}

}  // namespace
}  // namespace ptxb
