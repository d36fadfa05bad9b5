// The bounded worker pool (see bounded_pool.hpp).
#include "llm/bounded_pool.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace ptxb {

BoundedPool::BoundedPool(size_t max_concurrent) {
  const size_t n = std::max<size_t>(max_concurrent, 1);
  workers_.reserve(n);
  for (size_t i = 0; i < n; ++i) workers_.emplace_back([this] { work(); });
}

BoundedPool::~BoundedPool() { shutdown(); }

void BoundedPool::enqueue(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    PTXB_ASSERT(!stopping_, "BoundedPool::submit after shutdown");
    queue_.push_back(std::move(job));
  }
  ready_.notify_one();
}

void BoundedPool::work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and nothing left
      job = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    job();  // a packaged_task: exceptions land in its future
    std::lock_guard lock(mutex_);
    --running_;
  }
}

void BoundedPool::shutdown() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (std::thread& t : workers_)
    if (t.joinable()) t.join();
}

size_t BoundedPool::cancel_pending() {
  std::deque<std::function<void()>> dropped;
  {
    std::lock_guard lock(mutex_);
    dropped.swap(queue_);
  }
  return dropped.size();  // destroying them breaks their promises
}

size_t BoundedPool::in_flight() const {
  std::lock_guard lock(mutex_);
  return queue_.size() + running_;
}

}  // namespace ptxb
