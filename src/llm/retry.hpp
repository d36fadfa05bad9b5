// When and how long the model client waits before repeating a request: which failures are worth
// a retry, exponential backoff with full jitter, the server's Retry-After (delta-seconds or
// HTTP-date), and the Clock seam through which all waiting goes, so tests never really sleep.
// Everything except the clocks is a pure function.
#pragma once

#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <vector>

#include "llm/http.hpp"

namespace ptxb {

struct RetryPolicy {
  int max_attempts = 5;                                ///< the first request included; 1: no retry
  std::chrono::milliseconds base_delay{1'000};         ///< backoff ceiling before the first retry
  std::chrono::milliseconds max_delay{60'000};         ///< cap on the backoff ceiling
  std::chrono::milliseconds max_retry_after{120'000};  ///< cap on a server's Retry-After

  nlohmann::json to_json() const;
};

/// 408 Request Timeout, 409 Conflict, 429 Too Many Requests and every 5xx.
bool is_retryable_status(int status);

/// A timeout, a connection failure, a broken transfer, or a retryable status. A 2xx answer, a
/// fatal transport error and any other status are final.
bool is_retryable(const HttpResponse& response);

/// An HTTP-date (RFC 9110: IMF-fixdate, and the obsolete RFC 850 and asctime forms), as UTC.
std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view text);

/// The wait a Retry-After value asks for: delta-seconds, or an HTTP-date relative to `now` (a
/// date in the past asks for no wait). nullopt when the value is neither.
std::optional<std::chrono::milliseconds> parse_retry_after(
    std::string_view value, std::chrono::system_clock::time_point now);

/// min(max_delay, base_delay * 2^retry): the most a backoff before retry `retry` (0-based) waits.
std::chrono::milliseconds backoff_ceiling(const RetryPolicy& policy, int retry);

/// Full jitter: `unit` (uniform in [0, 1)) times the ceiling of retry `retry`.
std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int retry, double unit);

/// The wait before retry `retry`: the server's Retry-After when it sent one (capped at
/// max_retry_after), else the jittered backoff.
std::chrono::milliseconds retry_delay(const RetryPolicy& policy, int retry,
                                      std::optional<std::chrono::milliseconds> retry_after,
                                      double unit);

/// The time source and sleeper of the client. Implementations are thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;
  /// Monotonic time, for deadlines and latencies.
  virtual std::chrono::steady_clock::time_point now() const = 0;
  /// Calendar time, for Retry-After dates.
  virtual std::chrono::system_clock::time_point wall_now() const = 0;
  virtual void sleep_for(std::chrono::milliseconds duration) = 0;
};

/// The real clocks; sleep_for blocks the calling thread.
class SystemClock : public Clock {
 public:
  std::chrono::steady_clock::time_point now() const override;
  std::chrono::system_clock::time_point wall_now() const override;
  void sleep_for(std::chrono::milliseconds duration) override;
};

/// For tests: time passes as in reality plus every sleep, but sleep_for returns at once and
/// records the duration. Works with real transports (request time still counts) and fakes.
class FakeClock : public Clock {
 public:
  std::chrono::steady_clock::time_point now() const override;
  std::chrono::system_clock::time_point wall_now() const override;
  void sleep_for(std::chrono::milliseconds duration) override;
  /// Moves time forward without recording a sleep (a fake transport "taking" time).
  void advance(std::chrono::milliseconds duration);
  /// Every sleep_for so far, in order.
  std::vector<std::chrono::milliseconds> sleeps() const;

 private:
  mutable std::mutex mutex_;
  std::chrono::milliseconds skipped_{0};
  std::vector<std::chrono::milliseconds> sleeps_;
};

}  // namespace ptxb
