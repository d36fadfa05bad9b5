// Ends the worker when a candidate call does not come back: a kernel that never finishes, a
// host loop, a deadlock. Runs its own thread; on expiry it sends "candidate_timeout" and exits
// the process at once (the driver tears the GPU context down with it).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "worker/result_channel.hpp"

namespace ptxb {

/// Worker exit status after a candidate call passed its deadline.
constexpr int kExitCandidateTimeout = 5;

class CallWatchdog {
 public:
  explicit CallWatchdog(const ResultChannel& out);
  ~CallWatchdog();
  CallWatchdog(const CallWatchdog&) = delete;
  CallWatchdog& operator=(const CallWatchdog&) = delete;

  /// Starts the clock for `what` ("ptxb_run at M=1000 N=1000 K=1000"): unless end() comes within
  /// `limit`, the process ends with status kExitCandidateTimeout.
  void begin(std::string what, std::chrono::seconds limit);
  void end();

 private:
  void watch();

  const ResultChannel& out_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool running_ = false, stop_ = false;
  std::string what_;
  std::chrono::seconds limit_{0};
  std::chrono::steady_clock::time_point deadline_;
  std::thread thread_;
};

}  // namespace ptxb
