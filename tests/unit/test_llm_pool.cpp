// The bounded pool (results, exceptions, the concurrency bound, shutdown, cancellation) and the
// cost of 64 concurrent model requests against the local server (the target: < 1 core).
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <atomic>

#include "../llm/fake_server.hpp"
#include "core/error.hpp"
#include "llm/bounded_pool.hpp"
#include "llm/chat_client.hpp"
#include "llm/http_curl.hpp"

namespace ptxb {
namespace {

using json = nlohmann::json;
using std::chrono::milliseconds;

TEST(LlmPool, ReturnsResultsAndExceptions) {
  BoundedPool pool(3);
  EXPECT_EQ(pool.max_concurrent(), 3u);
  std::vector<std::future<int>> results;
  for (int i = 0; i < 20; ++i) results.push_back(pool.submit([i] { return i * i; }));
  auto thrown = pool.submit([]() -> int { throw std::runtime_error("job failed"); });
  for (int i = 0; i < 20; ++i) EXPECT_EQ(results[i].get(), i * i);
  EXPECT_THROW(thrown.get(), std::runtime_error);
  auto nothing = pool.submit([] {});
  nothing.get();
}

TEST(LlmPool, NeverRunsMoreThanTheBound) {
  BoundedPool pool(4);
  std::atomic<int> running{0}, peak{0};
  std::vector<std::future<void>> done;
  for (int i = 0; i < 32; ++i) {
    done.push_back(pool.submit([&] {
      const int now = ++running;
      int seen = peak.load();
      while (now > seen && !peak.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(milliseconds(5));
      --running;
    }));
  }
  for (auto& f : done) f.get();
  EXPECT_LE(peak.load(), 4);
  EXPECT_GT(peak.load(), 1) << "jobs never overlapped";
  // NOTE: a worker counts its job out just after the job's future becomes ready, so get()
  // can return a moment before in_flight() drops: wait for it, boundedly.
  for (int i = 0; i < 1000 && pool.in_flight() != 0; ++i)
    std::this_thread::sleep_for(milliseconds(1));
  EXPECT_EQ(pool.in_flight(), 0u);
}

TEST(LlmPool, DestructionFinishesQueuedJobs) {
  std::atomic<int> finished{0};
  {
    BoundedPool pool(2);
    for (int i = 0; i < 10; ++i)
      (void)pool.submit([&] {
        std::this_thread::sleep_for(milliseconds(2));
        ++finished;
      });
  }
  EXPECT_EQ(finished.load(), 10);
}

TEST(LlmPool, CancelPendingBreaksTheirPromises) {
  BoundedPool pool(1);
  std::promise<void> release, started;
  std::shared_future<void> gate = release.get_future().share();
  auto running = pool.submit([gate, &started] {
    started.set_value();
    gate.wait();
    return 1;
  });
  started.get_future().wait();  // the only worker is busy: later jobs stay queued
  auto queued_a = pool.submit([] { return 2; });
  auto queued_b = pool.submit([] { return 3; });
  EXPECT_EQ(pool.cancel_pending(), 2u);
  release.set_value();
  EXPECT_EQ(running.get(), 1);
  EXPECT_THROW(queued_a.get(), std::future_error);
  EXPECT_THROW(queued_b.get(), std::future_error);
}

TEST(LlmPool, SubmitAfterShutdownIsABug) {
  BoundedPool pool(2);
  pool.shutdown();
  pool.shutdown();  // idempotent
  EXPECT_THROW((void)pool.submit([] {}), InternalError);
}

double cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](timeval t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

TEST(LlmPool, SixtyFourConcurrentRequestsCostLessThanOneCore) {
  constexpr int kRequests = 64;
  testing::FakeOpenAiServer server(
      json{{"default", {{"delay_s", 1.0}, {"content", "```cuda\nint x;\n```"}}}});
  CurlTransport transport;
  SystemClock clock;
  ChatConfig config;
  config.base_url = server.base_url();
  config.model = "m";
  config.attempt_timeout = milliseconds(20'000);
  ChatClient client(config, transport, clock);
  BoundedPool pool(kRequests);
  const std::vector<ChatMessage> prompt = {{ChatRole::kUser, std::string(20'000, 'p')}};

  const double cpu_start = cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::future<ChatResult>> results;
  for (int i = 0; i < kRequests; ++i)
    results.push_back(pool.submit([&] { return client.complete(prompt); }));
  int ok = 0;
  for (auto& r : results) ok += r.get().ok();
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu_s = cpu_seconds() - cpu_start;

  EXPECT_EQ(ok, kRequests);
  EXPECT_LT(wall_s, 5.0) << "the requests did not run concurrently";
  EXPECT_LT(cpu_s, wall_s) << "more than one core busy on average";
  std::printf(
      "[ measure  ] %d requests of ~1 s: wall %.3f s, client CPU %.3f s (%.1f%% of a core)\n",
      kRequests, wall_s, cpu_s, 100.0 * cpu_s / wall_s);
}

}  // namespace
}  // namespace ptxb
