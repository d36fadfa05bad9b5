// The chat client against a real OpenAI-compatible server on 127.0.0.1 (tests/llm) that answers
// from a script: good, broken and missing code, reasoning, 429 with Retry-After, 5xx, slow and
// dropped responses, malformed JSON. Backoffs go through FakeClock, so nothing really waits
// except one test that honours a real one-second Retry-After.
#include <gtest/gtest.h>

#include <ctime>

#include "../llm/fake_server.hpp"
#include "llm/chat_client.hpp"
#include "llm/code_extract.hpp"
#include "llm/http_curl.hpp"

namespace ptxb {
namespace {

using json = nlohmann::json;
using std::chrono::milliseconds;
using testing::FakeOpenAiServer;

const std::string kGoodAnswer =
    "Here is the kernel.\n```cuda\n#include <ptxbench/abi.h>\n"
    "extern \"C\" int ptxb_run(const ptxb_args* args) { return 0; }\n```\nDone.";
const std::string kBrokenAnswer =
    "```cuda\nextern \"C\" int ptxb_run(const ptxb_args* a) { oops\n```";

ChatConfig config_for(const std::string& base_url) {
  ChatConfig c;
  c.base_url = base_url;
  c.model = "qwen-test";
  c.api_key = "sk-test-123";
  c.temperature = 0.2;
  c.top_p = 0.95;
  c.max_tokens = 4096;
  c.seed = 7;
  c.attempt_timeout = milliseconds(5000);
  c.deadline = milliseconds(15'000);
  c.retry.max_attempts = 4;
  c.retry.base_delay = milliseconds(1000);
  c.retry.max_delay = milliseconds(8000);
  c.jitter_seed = 1;
  return c;
}

const std::vector<ChatMessage> kConversation = {
    {ChatRole::kSystem, "You write CUDA."},
    {ChatRole::kUser, "Write a GEMM."},
    {ChatRole::kAssistant, "```cuda\nint broken;\n```"},
    {ChatRole::kUser, "It did not compile. Fix it."},
};

/// A client on the real transport and a fake clock against `server`.
struct Harness {
  explicit Harness(const json& script) : server(script) {}
  ChatResult complete(ChatConfig config) {
    ChatClient client(std::move(config), transport, clock);
    return client.complete(kConversation);
  }
  ChatResult complete() { return complete(config_for(server.base_url())); }

  FakeOpenAiServer server;
  CurlTransport transport;
  FakeClock clock;
};

json responses(std::initializer_list<json> entries) { return {{"responses", json(entries)}}; }

TEST(LlmClient, GoodAnswerWithUsageAndTheFullRequest) {
  Harness h(responses({{{"content", kGoodAnswer},
                        {"usage", {{"prompt_tokens", 1234}, {"completion_tokens", 567}}}}}));
  const ChatResult r = h.complete();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.content, kGoodAnswer);
  EXPECT_EQ(r.reasoning, "");
  EXPECT_EQ(r.finish_reason, "stop");
  EXPECT_EQ(r.prompt_tokens, 1234);
  EXPECT_EQ(r.completion_tokens, 567);
  EXPECT_EQ(r.retries, 0);
  EXPECT_EQ(r.http_status, 200);
  EXPECT_GT(r.latency_s, 0.0);
  EXPECT_LT(r.latency_s, 5.0);
  EXPECT_EQ(r.response.at("choices")[0].at("message").at("content"), kGoodAnswer);
  ASSERT_TRUE(extract_code(r.content).has_value());
  EXPECT_TRUE(defines_ptxb_run(*extract_code(r.content)));

  // What the server received is what the result records, and the key went in a header only.
  const auto requests = h.server.requests();
  ASSERT_EQ(requests.size(), 1u);
  const json& sent = requests[0].at("body");
  EXPECT_EQ(sent, r.request);
  EXPECT_EQ(sent.at("model"), "qwen-test");
  EXPECT_EQ(sent.at("temperature"), 0.2);
  EXPECT_EQ(sent.at("top_p"), 0.95);
  EXPECT_EQ(sent.at("max_tokens"), 4096);
  EXPECT_EQ(sent.at("seed"), 7);
  EXPECT_EQ(sent.at("stream"), false);
  ASSERT_EQ(sent.at("messages").size(), 4u);
  EXPECT_EQ(sent.at("messages")[0], json({{"role", "system"}, {"content", "You write CUDA."}}));
  EXPECT_EQ(sent.at("messages")[2].at("role"), "assistant");
  EXPECT_EQ(requests[0].at("headers").at("Authorization"), "Bearer sk-test-123");
  EXPECT_EQ(requests[0].at("path"), "/v1/chat/completions");
  EXPECT_EQ(r.request.dump().find("sk-test"), std::string::npos);
}

TEST(LlmClient, BrokenCodeIsStillAnAnswer) {
  Harness h(responses({{{"content", kBrokenAnswer}}}));
  const ChatResult r = h.complete();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(extract_code(r.content).has_value());  // judging it is not the client's business
}

TEST(LlmClient, NoCodeAndNullContent) {
  Harness h(responses({{{"content", "I would rather not."}}, {{"finish_reason", "length"}}}));
  const ChatResult prose = h.complete();
  ASSERT_TRUE(prose.ok()) << prose.error;
  EXPECT_EQ(extract_code(prose.content), std::nullopt);
  const ChatResult null_content = h.complete();  // "content": null, cut off by max_tokens
  ASSERT_TRUE(null_content.ok()) << null_content.error;
  EXPECT_EQ(null_content.content, "");
  EXPECT_EQ(null_content.finish_reason, "length");
}

TEST(LlmClient, ReasoningIsKeptInBothSpellings) {
  Harness h(responses({{{"content", kGoodAnswer}, {"reasoning_content", "first, tiles"}},
                       {{"content", kGoodAnswer}, {"reasoning", "then, pipelines"}}}));
  EXPECT_EQ(h.complete().reasoning, "first, tiles");
  EXPECT_EQ(h.complete().reasoning, "then, pipelines");
}

TEST(LlmClient, RetryAfterIsHonoured) {
  Harness h(
      responses({{{"status", 429}, {"headers", {{"Retry-After", "3"}}}, {"error", "slow down"}},
                 {{"content", kGoodAnswer}}}));
  const ChatResult r = h.complete();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.retries, 1);
  EXPECT_EQ(h.clock.sleeps(), std::vector<milliseconds>{milliseconds(3000)});
  EXPECT_EQ(h.server.requests().size(), 2u);
}

TEST(LlmClient, RetryAfterAsHttpDate) {
  const std::time_t in_5_s = std::time(nullptr) + 5;
  char date[64];
  std::tm tm{};
  gmtime_r(&in_5_s, &tm);
  std::strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  Harness h(responses({{{"status", 503}, {"headers", {{"Retry-After", date}}}, {"error", "later"}},
                       {{"content", kGoodAnswer}}}));
  const ChatResult r = h.complete();
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(h.clock.sleeps().size(), 1u);
  EXPECT_GE(h.clock.sleeps()[0], milliseconds(3000));
  EXPECT_LE(h.clock.sleeps()[0], milliseconds(5000));
}

TEST(LlmClient, ServerErrorsBackOffWithJitterThenSucceed) {
  Harness h(responses({{{"status", 500}, {"error", "boom"}},
                       {{"status", 502}, {"raw", "<html>bad gateway</html>"}},
                       {{"status", 408}, {"error", "timeout"}},
                       {{"content", kGoodAnswer}}}));
  const ChatResult r = h.complete();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.retries, 3);
  const auto sleeps = h.clock.sleeps();
  ASSERT_EQ(sleeps.size(), 3u);
  for (size_t i = 0; i < sleeps.size(); ++i) EXPECT_LE(sleeps[i], milliseconds(1000 << i)) << i;
}

TEST(LlmClient, GivesUpAfterMaxAttempts) {
  Harness h(json{{"default", {{"status", 500}, {"error", "still broken"}}}});
  ChatConfig c = config_for(h.server.base_url());
  c.retry.max_attempts = 3;
  const ChatResult r = h.complete(c);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error, "gave up after 3 attempt(s); last: HTTP 500: still broken");
  EXPECT_EQ(r.retries, 2);
  EXPECT_EQ(r.http_status, 500);
  EXPECT_EQ(r.response.at("error").at("message"), "still broken");
  EXPECT_EQ(h.server.requests().size(), 3u);
}

TEST(LlmClient, ClientErrorsAreNotRetried) {
  Harness h(responses({{{"status", 400}, {"error", "max_tokens is too large"}},
                       {{"status", 401}, {"error", "bad key"}},
                       {{"status", 404}, {"json", {{"detail", "Not Found"}}}}}));
  const ChatResult bad = h.complete();
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.error, "HTTP 400: max_tokens is too large");
  EXPECT_EQ(bad.retries, 0);
  EXPECT_EQ(h.complete().error, "HTTP 401: bad key");
  EXPECT_EQ(h.complete().error, "HTTP 404: Not Found");
  EXPECT_TRUE(h.clock.sleeps().empty());
  EXPECT_EQ(h.server.requests().size(), 3u);
}

TEST(LlmClient, MalformedJsonIsAPreciseFailure) {
  Harness h(responses({{{"raw", "{\"choices\": [ {\"message\": "}}}));
  const ChatResult r = h.complete();
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("malformed JSON in the HTTP 200 response"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("{\"choices\": [ {\"message\": "), std::string::npos) << r.error;
  EXPECT_EQ(r.response, json("{\"choices\": [ {\"message\": "));  // the raw text is kept
  EXPECT_EQ(h.server.requests().size(), 1u);
}

TEST(LlmClient, WellFormedJsonThatIsNotACompletion) {
  Harness h(responses({{{"json", {{"object", "chat.completion"}}}},
                       {{"json", {{"choices", json::array()}}}},
                       {{"json", {{"choices", {{{"index", 0}}}}}}},
                       {{"json", {{"choices", {{{"message", {{"content", 42}}}}}}}}},
                       {{"json", {{"error", {{"message", "overloaded"}}}}}},
                       {{"json", json::array()}}}));
  EXPECT_EQ(h.complete().error, "response has no \"choices\"");
  EXPECT_EQ(h.complete().error, "\"choices\" is empty");
  EXPECT_EQ(h.complete().error, "choices[0] has no \"message\" object");
  EXPECT_EQ(h.complete().error, "choices[0].message.content is a number, not text");
  EXPECT_EQ(h.complete().error, "response has no \"choices\"; server error: overloaded");
  EXPECT_EQ(h.complete().error, "response is a JSON array, not an object");
}

TEST(LlmClient, SlowAttemptTimesOutAndTheRetrySucceeds) {
  Harness h(responses({{{"delay_s", 3}, {"content", "too late"}}, {{"content", kGoodAnswer}}}));
  ChatConfig c = config_for(h.server.base_url());
  c.attempt_timeout = milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  const ChatResult r = h.complete(c);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.content, kGoodAnswer);
  EXPECT_EQ(r.retries, 1);
  EXPECT_LT(r.latency_s, 1.0);  // of the successful attempt only
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(2500));
}

TEST(LlmClient, TheDeadlineBoundsAttemptsAndWaits) {
  Harness h(json{{"default", {{"delay_s", 5}, {"content", "never in time"}}}});
  ChatConfig c = config_for(h.server.base_url());
  c.attempt_timeout = milliseconds(400);
  c.deadline = milliseconds(1000);
  c.retry.max_attempts = 100;
  c.retry.base_delay = milliseconds(50);
  c.retry.max_delay = milliseconds(50);
  const auto start = std::chrono::steady_clock::now();
  const ChatResult r = h.complete(c);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("deadline of 1.0 s"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("timeout: curl error 28"), std::string::npos) << r.error;
  EXPECT_LT(elapsed, milliseconds(1600));
  EXPECT_GE(r.retries, 1);
  EXPECT_LE(r.retries, 3);
  EXPECT_EQ(r.response, json());  // no response ever came back
  EXPECT_EQ(r.http_status, std::nullopt);
}

TEST(LlmClient, RetryAfterBeyondTheDeadlineFailsAtOnce) {
  Harness h(
      responses({{{"status", 429}, {"headers", {{"Retry-After", "60"}}}, {"error", "quota"}}}));
  ChatConfig c = config_for(h.server.base_url());
  c.deadline = milliseconds(10'000);
  const ChatResult r = h.complete(c);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error,
            "deadline of 10.0 s leaves no time for a retry after 1 attempt(s) (wait of 60.0 s); "
            "last: HTTP 429: quota");
  EXPECT_TRUE(h.clock.sleeps().empty());
}

TEST(LlmClient, DroppedConnectionIsRetried) {
  Harness h(responses({{{"action", "close"}}, {{"content", kGoodAnswer}}}));
  const ChatResult r = h.complete();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.retries, 1);
}

TEST(LlmClient, RefusedConnectionIsRetriedThenFails) {
  FakeClock clock;
  CurlTransport transport;
  ChatConfig c = config_for("http://127.0.0.1:" + std::to_string(testing::closed_port()) + "/v1/");
  c.retry.max_attempts = 2;
  ChatClient client(c, transport, clock);
  const ChatResult r = client.complete(kConversation);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.retries, 1);
  EXPECT_EQ(r.error.rfind("gave up after 2 attempt(s); last: connect: curl error 7", 0), 0u)
      << r.error;
  EXPECT_EQ(clock.sleeps().size(), 1u);
}

TEST(LlmClient, RealRetryAfterWaitIsHonoured) {
  FakeOpenAiServer server(
      responses({{{"status", 429}, {"headers", {{"Retry-After", "1"}}}, {"error", "wait"}},
                 {{"content", kGoodAnswer}}}));
  CurlTransport transport;
  SystemClock clock;
  ChatClient client(config_for(server.base_url()), transport, clock);
  const auto start = std::chrono::steady_clock::now();
  const ChatResult r = client.complete(kConversation);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.retries, 1);
  EXPECT_GE(elapsed, milliseconds(1000));
  EXPECT_LT(elapsed, milliseconds(3000));
}

}  // namespace
}  // namespace ptxb
