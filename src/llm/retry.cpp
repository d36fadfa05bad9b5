// Retry decisions, backoff, Retry-After parsing and the clocks (see retry.hpp).
#include "llm/retry.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <thread>

#include "core/error.hpp"

namespace ptxb {
namespace {

using std::chrono::milliseconds;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

/// A whole token of decimal digits as a number; nullopt for anything else.
std::optional<int> number(std::string_view token) {
  int value = 0;
  if (token.empty() || token.size() > 4) return std::nullopt;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size()) return std::nullopt;
  return value;
}

/// 1..12 for an English three-letter month name (HTTP dates are case-sensitive).
std::optional<unsigned> month_number(std::string_view token) {
  static constexpr std::array<std::string_view, 12> kMonths = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (size_t i = 0; i < kMonths.size(); ++i)
    if (token == kMonths[i]) return static_cast<unsigned>(i + 1);
  return std::nullopt;
}

std::vector<std::string_view> date_tokens(std::string_view text) {
  std::vector<std::string_view> tokens;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    const bool separator =
        i == text.size() || text[i] == ' ' || text[i] == ',' || text[i] == '-' || text[i] == ':';
    if (!separator) continue;
    if (i > start) tokens.push_back(text.substr(start, i - start));
    start = i + 1;
  }
  return tokens;
}

}  // namespace

nlohmann::json RetryPolicy::to_json() const {
  return {{"max_attempts", max_attempts},
          {"base_delay_ms", base_delay.count()},
          {"max_delay_ms", max_delay.count()},
          {"max_retry_after_ms", max_retry_after.count()}};
}

bool is_retryable_status(int status) {
  return status == 408 || status == 409 || status == 429 || (status >= 500 && status <= 599);
}

bool is_retryable(const HttpResponse& response) {
  switch (response.error) {
    case TransportError::kNone:
      return is_retryable_status(response.status);
    case TransportError::kTimeout:
    case TransportError::kConnect:
    case TransportError::kNetwork:
      return true;
    case TransportError::kFatal:
      return false;
  }
  return false;
}

std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view text) {
  const std::vector<std::string_view> t = date_tokens(trim(text));
  // Token positions of day, month, year, hour, minute and second in each form.
  std::array<size_t, 6> at{};
  if (t.size() == 8 && t[7] == "GMT") {
    // IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT" or RFC 850 "Sunday, 06-Nov-94 08:49:37 GMT"
    at = {1, 2, 3, 4, 5, 6};
  } else if (t.size() == 7) {
    at = {2, 1, 6, 3, 4, 5};  // asctime "Sun Nov  6 08:49:37 1994"
  } else {
    return std::nullopt;
  }
  const auto day = number(t[at[0]]), year = number(t[at[2]]);
  const auto month = month_number(t[at[1]]);
  const auto hour = number(t[at[3]]), minute = number(t[at[4]]), second = number(t[at[5]]);
  const size_t year_digits = t[at[2]].size();
  if (!day || !month || !year || !hour || !minute || !second) return std::nullopt;
  if (year_digits != 4 && !(year_digits == 2 && t.size() == 8)) return std::nullopt;
  const int full_year = year_digits == 2 ? *year + (*year < 70 ? 2000 : 1900) : *year;
  if (*hour > 23 || *minute > 59 || *second > 60) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year(full_year), std::chrono::month(*month),
                                         std::chrono::day(static_cast<unsigned>(*day))};
  if (!date.ok()) return std::nullopt;
  return std::chrono::sys_days(date) + std::chrono::hours(*hour) + std::chrono::minutes(*minute) +
         std::chrono::seconds(*second);
}

std::optional<milliseconds> parse_retry_after(std::string_view value,
                                              std::chrono::system_clock::time_point now) {
  value = trim(value);
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    // NOTE: absurd values saturate rather than overflow; the policy's cap applies later.
    constexpr int64_t kMaxSeconds = 1'000'000'000;
    int64_t seconds = kMaxSeconds;
    if (value.size() <= 9) std::from_chars(value.data(), value.data() + value.size(), seconds);
    return milliseconds(std::min(seconds, kMaxSeconds) * 1000);
  }
  const auto date = parse_http_date(value);
  if (!date) return std::nullopt;
  if (*date <= now) return milliseconds(0);
  return std::chrono::ceil<milliseconds>(*date - now);
}

milliseconds backoff_ceiling(const RetryPolicy& policy, int retry) {
  PTXB_ASSERT(retry >= 0, "retry index must be non-negative");
  milliseconds ceiling = std::max(policy.base_delay, milliseconds(0));
  for (int i = 0; i < retry && ceiling < policy.max_delay; ++i) ceiling *= 2;
  return std::min(ceiling, policy.max_delay);
}

milliseconds backoff_delay(const RetryPolicy& policy, int retry, double unit) {
  unit = std::clamp(unit, 0.0, 1.0);
  const double ceiling_ms = static_cast<double>(backoff_ceiling(policy, retry).count());
  return milliseconds(static_cast<int64_t>(std::floor(unit * ceiling_ms)));
}

milliseconds retry_delay(const RetryPolicy& policy, int retry,
                         std::optional<milliseconds> retry_after, double unit) {
  if (retry_after)
    return std::clamp(*retry_after, milliseconds(0),
                      std::max(policy.max_retry_after, milliseconds(0)));
  return backoff_delay(policy, retry, unit);
}

std::chrono::steady_clock::time_point SystemClock::now() const {
  return std::chrono::steady_clock::now();
}

std::chrono::system_clock::time_point SystemClock::wall_now() const {
  return std::chrono::system_clock::now();
}

void SystemClock::sleep_for(milliseconds duration) {
  if (duration.count() > 0) std::this_thread::sleep_for(duration);
}

std::chrono::steady_clock::time_point FakeClock::now() const {
  std::lock_guard lock(mutex_);
  return std::chrono::steady_clock::now() + skipped_;
}

std::chrono::system_clock::time_point FakeClock::wall_now() const {
  std::lock_guard lock(mutex_);
  return std::chrono::system_clock::now() + skipped_;
}

void FakeClock::sleep_for(milliseconds duration) {
  std::lock_guard lock(mutex_);
  sleeps_.push_back(duration);
  skipped_ += std::max(duration, milliseconds(0));
}

void FakeClock::advance(milliseconds duration) {
  std::lock_guard lock(mutex_);
  skipped_ += std::max(duration, milliseconds(0));
}

std::vector<milliseconds> FakeClock::sleeps() const {
  std::lock_guard lock(mutex_);
  return sleeps_;
}

}  // namespace ptxb
