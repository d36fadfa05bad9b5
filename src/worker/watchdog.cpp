#include "worker/watchdog.hpp"

#include <cstdlib>

namespace ptxb {

CallWatchdog::CallWatchdog(const ResultChannel& out) : out_(out), thread_([this] { watch(); }) {}

CallWatchdog::~CallWatchdog() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void CallWatchdog::begin(std::string what, std::chrono::seconds limit) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    running_ = true;
    what_ = std::move(what);
    limit_ = limit;
    deadline_ = std::chrono::steady_clock::now() + limit;
  }
  wake_.notify_all();
}

void CallWatchdog::end() {
  const std::lock_guard<std::mutex> lock(mutex_);
  running_ = false;
}

void CallWatchdog::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    if (!running_) {
      wake_.wait(lock);
      continue;
    }
    if (wake_.wait_until(lock, deadline_) == std::cv_status::timeout && running_ &&
        std::chrono::steady_clock::now() >= deadline_) {
      out_.send({{"type", "candidate_timeout"}, {"what", what_}, {"seconds", limit_.count()}});
      std::_Exit(kExitCandidateTimeout);
    }
  }
}

}  // namespace ptxb
