// Bounded concurrency for model requests: a fixed set of worker threads runs submitted jobs, at
// most N at once, in submission order; each submit returns a std::future of the job's result
// (or of the exception it threw). Destruction finishes every queued job, then joins.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace ptxb {

class BoundedPool {
 public:
  /// Starts `max_concurrent` worker threads (at least 1).
  explicit BoundedPool(size_t max_concurrent);
  /// shutdown(): waits for queued and running jobs.
  ~BoundedPool();
  BoundedPool(const BoundedPool&) = delete;
  BoundedPool& operator=(const BoundedPool&) = delete;

  /// Queues `job`; its future holds the return value or the exception it threw. Submitting after
  /// shutdown() is a PTXBench bug (InternalError).
  template <class F>
  std::future<std::invoke_result_t<std::decay_t<F>>> submit(F&& job) {
    using R = std::invoke_result_t<std::decay_t<F>>;
    auto task = std::make_shared<std::packaged_task<R()>>(std::forward<F>(job));
    std::future<R> result = task->get_future();
    enqueue([task] { (*task)(); });
    return result;
  }

  /// Stops accepting jobs, lets the workers finish every queued and running job, and joins them.
  /// Idempotent.
  void shutdown();
  /// Drops the jobs not yet started (their futures report std::future_errc::broken_promise) and
  /// returns how many; running jobs continue.
  size_t cancel_pending();

  size_t max_concurrent() const { return workers_.size(); }
  /// Jobs queued or running. A job counts out just after its future becomes ready.
  size_t in_flight() const;

 private:
  void enqueue(std::function<void()> job);
  void work();

  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
  size_t running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace ptxb
