// Retry decisions, backoff with full jitter, Retry-After parsing and the fake clock: pure
// functions, no sleeping.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "llm/retry.hpp"

namespace ptxb {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using std::chrono::system_clock;

HttpResponse with_status(int status) {
  HttpResponse r;
  r.status = status;
  return r;
}

HttpResponse with_error(TransportError error) {
  HttpResponse r;
  r.error = error;
  return r;
}

// 1994-11-06 08:49:37 UTC, the example date of RFC 9110.
const system_clock::time_point kRfcDate = system_clock::time_point(seconds(784111777));

TEST(LlmRetry, RetryableStatuses) {
  for (int s : {408, 409, 429, 500, 502, 503, 504, 599}) EXPECT_TRUE(is_retryable_status(s)) << s;
  for (int s : {200, 201, 204, 301, 400, 401, 403, 404, 410, 413, 422, 600})
    EXPECT_FALSE(is_retryable_status(s)) << s;
}

TEST(LlmRetry, RetryableResponses) {
  EXPECT_TRUE(is_retryable(with_status(429)));
  EXPECT_FALSE(is_retryable(with_status(200)));
  EXPECT_FALSE(is_retryable(with_status(400)));
  EXPECT_TRUE(is_retryable(with_error(TransportError::kTimeout)));
  EXPECT_TRUE(is_retryable(with_error(TransportError::kConnect)));
  EXPECT_TRUE(is_retryable(with_error(TransportError::kNetwork)));
  EXPECT_FALSE(is_retryable(with_error(TransportError::kFatal)));
}

TEST(LlmRetry, BackoffCeilingDoublesUpToTheCap) {
  RetryPolicy p;
  p.base_delay = milliseconds(1000);
  p.max_delay = milliseconds(60'000);
  EXPECT_EQ(backoff_ceiling(p, 0), milliseconds(1000));
  EXPECT_EQ(backoff_ceiling(p, 1), milliseconds(2000));
  EXPECT_EQ(backoff_ceiling(p, 5), milliseconds(32'000));
  EXPECT_EQ(backoff_ceiling(p, 6), milliseconds(60'000));
  EXPECT_EQ(backoff_ceiling(p, 1000), milliseconds(60'000));  // no overflow
  EXPECT_THROW(backoff_ceiling(p, -1), InternalError);
}

TEST(LlmRetry, FullJitterStaysWithinTheCeiling) {
  RetryPolicy p;
  p.base_delay = milliseconds(250);
  p.max_delay = milliseconds(8000);
  for (int retry = 0; retry < 12; ++retry) {
    const milliseconds ceiling = backoff_ceiling(p, retry);
    EXPECT_EQ(backoff_delay(p, retry, 0.0), milliseconds(0));
    EXPECT_EQ(backoff_delay(p, retry, 0.5), ceiling / 2);
    for (double unit : {0.1, 0.37, 0.9, 0.999999, 1.0, 7.0, -3.0}) {
      const milliseconds d = backoff_delay(p, retry, unit);
      EXPECT_GE(d.count(), 0);
      EXPECT_LE(d, ceiling) << "retry " << retry << " unit " << unit;
    }
  }
}

TEST(LlmRetry, RetryAfterWinsOverBackoffAndIsCapped) {
  RetryPolicy p;
  p.base_delay = milliseconds(1000);
  p.max_retry_after = milliseconds(30'000);
  EXPECT_EQ(retry_delay(p, 3, milliseconds(2000), 0.99), milliseconds(2000));
  EXPECT_EQ(retry_delay(p, 0, milliseconds(0), 0.99), milliseconds(0));
  EXPECT_EQ(retry_delay(p, 0, milliseconds(3'600'000), 0.5), milliseconds(30'000));
  EXPECT_EQ(retry_delay(p, 1, std::nullopt, 0.5), milliseconds(1000));
}

TEST(LlmRetry, RetryAfterDeltaSeconds) {
  const auto now = system_clock::now();
  EXPECT_EQ(parse_retry_after("0", now), milliseconds(0));
  EXPECT_EQ(parse_retry_after("1", now), milliseconds(1000));
  EXPECT_EQ(parse_retry_after(" 120 ", now), milliseconds(120'000));
  EXPECT_EQ(parse_retry_after("99999999999999999999", now), seconds(1'000'000'000));
  for (const char* bad : {"", " ", "-1", "1.5", "abc", "1s", "+3"})
    EXPECT_EQ(parse_retry_after(bad, now), std::nullopt) << bad;
}

TEST(LlmRetry, HttpDateInAllThreeForms) {
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), kRfcDate);
  EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), kRfcDate);
  EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994"), kRfcDate);
  EXPECT_EQ(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"), system_clock::time_point{});
  EXPECT_EQ(parse_http_date("Tue, 29 Feb 2028 23:59:59 GMT"),
            system_clock::time_point(seconds(1835481599)));
}

TEST(LlmRetry, MalformedHttpDatesAreRejected) {
  for (const char* bad :
       {"Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 25:00:00 GMT", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 06 Nov 1994",
        "Thu, 29 Feb 2029 00:00:00 GMT", "Sun, 06 nov 1994 08:49:37 GMT", "tomorrow", ""})
    EXPECT_EQ(parse_http_date(bad), std::nullopt) << bad;
}

TEST(LlmRetry, RetryAfterHttpDate) {
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", kRfcDate - seconds(30)),
            milliseconds(30'000));
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", kRfcDate - milliseconds(1500)),
            milliseconds(1500));
  // A date in the past asks for no wait.
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", kRfcDate + seconds(5)),
            milliseconds(0));
}

TEST(LlmRetry, FakeClockRecordsSleepsAndMovesTime) {
  FakeClock clock;
  const auto t0 = clock.now();
  const auto w0 = clock.wall_now();
  clock.sleep_for(milliseconds(5000));
  clock.advance(milliseconds(2000));
  clock.sleep_for(milliseconds(250));
  EXPECT_EQ(clock.sleeps(), (std::vector<milliseconds>{milliseconds(5000), milliseconds(250)}));
  EXPECT_GE(clock.now() - t0, milliseconds(7250));
  EXPECT_LT(clock.now() - t0, milliseconds(9000));  // no real sleeping happened
  EXPECT_GE(clock.wall_now() - w0, milliseconds(7250));
}

TEST(LlmRetry, PolicyIsRecordedAsJson) {
  RetryPolicy p;
  p.max_attempts = 3;
  const nlohmann::json j = p.to_json();
  EXPECT_EQ(j.at("max_attempts"), 3);
  EXPECT_EQ(j.at("base_delay_ms"), p.base_delay.count());
  EXPECT_EQ(j.at("max_retry_after_ms"), p.max_retry_after.count());
}

}  // namespace
}  // namespace ptxb
