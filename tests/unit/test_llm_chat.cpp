// The chat client over the scripted transport (no network): request building, configuration
// checks, simulated time, answer parsing corner cases.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "llm/chat_client.hpp"
#include "llm/http_fake.hpp"

namespace ptxb {
namespace {

using json = nlohmann::json;
using std::chrono::milliseconds;

ChatConfig minimal_config() {
  ChatConfig c;
  c.base_url = "https://api.example.com/v1/";
  c.model = "m";
  c.jitter_seed = 3;
  return c;
}

std::string completion(const json& message, const json& extra = json::object()) {
  json body = {{"choices", {{{"index", 0}, {"message", message}, {"finish_reason", "stop"}}}}};
  body.update(extra);
  return body.dump();
}

TEST(LlmChat, RequestBodyHasOnlyWhatWasSet) {
  const json body = build_chat_request(minimal_config(), {{ChatRole::kUser, "hi"}});
  EXPECT_EQ(body, json({{"model", "m"},
                        {"messages", {{{"role", "user"}, {"content", "hi"}}}},
                        {"stream", false}}));
}

TEST(LlmChat, ExtraBodyIsMergedLast) {
  ChatConfig c = minimal_config();
  c.max_tokens = 100;
  c.extra_body = {{"chat_template_kwargs", {{"enable_thinking", true}}}, {"max_tokens", 200}};
  const json body = build_chat_request(c, {});
  EXPECT_EQ(body.at("max_tokens"), 200);
  EXPECT_EQ(body.at("chat_template_kwargs").at("enable_thinking"), true);
  EXPECT_TRUE(body.at("messages").empty());
}

TEST(LlmChat, UrlHeadersAndExtraHeaders) {
  ScriptedTransport transport;
  FakeClock clock;
  transport.push(ScriptedTransport::json_response(200, completion({{"content", "ok"}})));
  ChatConfig c = minimal_config();
  c.extra_headers = {{"X-Org", "lab"}};
  ChatClient client(c, transport, clock);
  ASSERT_TRUE(client.complete({{ChatRole::kUser, "hi"}}).ok());
  const auto requests = transport.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].url, "https://api.example.com/v1/chat/completions");
  EXPECT_EQ(requests[0].timeout, c.attempt_timeout);
  const HttpHeaders expected = {
      {"Content-Type", "application/json"}, {"Accept", "application/json"}, {"X-Org", "lab"}};
  EXPECT_EQ(requests[0].headers, expected);  // no Authorization without a key
}

TEST(LlmChat, ConfigurationIsChecked) {
  ScriptedTransport transport;
  FakeClock clock;
  const auto make = [&](auto change) {
    ChatConfig c = minimal_config();
    change(c);
    return ChatClient(c, transport, clock);
  };
  EXPECT_THROW(make([](ChatConfig& c) { c.base_url.clear(); }), InputError);
  EXPECT_THROW(make([](ChatConfig& c) { c.model.clear(); }), InputError);
  EXPECT_THROW(make([](ChatConfig& c) { c.deadline = milliseconds(0); }), InputError);
  EXPECT_THROW(make([](ChatConfig& c) { c.attempt_timeout = milliseconds(-1); }), InputError);
  EXPECT_THROW(make([](ChatConfig& c) { c.retry.max_attempts = 0; }), InputError);
  EXPECT_THROW(make([](ChatConfig& c) { c.extra_body = json::array(); }), InputError);
  EXPECT_NO_THROW(make([](ChatConfig& c) { c.extra_body = nullptr; }));
}

TEST(LlmChat, SettingsJsonNeverHoldsTheKey) {
  ChatConfig c = minimal_config();
  c.api_key = "sk-secret";
  c.temperature = 0.6;
  const json j = c.to_json();
  EXPECT_EQ(j.dump().find("sk-secret"), std::string::npos);
  EXPECT_EQ(j.at("api_key_set"), true);
  EXPECT_EQ(j.at("temperature"), 0.6);
  EXPECT_FALSE(j.contains("seed"));
  EXPECT_EQ(j.at("retry").at("max_attempts"), c.retry.max_attempts);
}

TEST(LlmChat, LatencyAndDeadlineFollowTheClock) {
  ScriptedTransport transport;
  FakeClock clock;
  // The first attempt "takes" 40 s and times out; the retry takes 1.5 s and succeeds.
  transport.push([&](const HttpRequest& r) {
    EXPECT_EQ(r.timeout, milliseconds(40'000));
    clock.advance(milliseconds(40'000));
    return ScriptedTransport::failure(TransportError::kTimeout, "simulated");
  });
  transport.push([&](const HttpRequest& r) {
    EXPECT_LE(r.timeout, milliseconds(20'000));  // what is left of the 60 s deadline
    EXPECT_GT(r.timeout, milliseconds(15'000));
    clock.advance(milliseconds(1500));
    return ScriptedTransport::json_response(200, completion({{"content", "ok"}}));
  });
  ChatConfig c = minimal_config();
  c.attempt_timeout = milliseconds(40'000);
  c.deadline = milliseconds(60'000);
  ChatClient client(c, transport, clock);
  const ChatResult r = client.complete({{ChatRole::kUser, "hi"}});
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.retries, 1);
  EXPECT_NEAR(r.latency_s, 1.5, 0.2);
  ASSERT_EQ(clock.sleeps().size(), 1u);
  EXPECT_LE(clock.sleeps()[0], c.retry.base_delay);
}

TEST(LlmChat, JitterIsReproducibleWithASeed) {
  const auto sleeps_with_seed = [](uint64_t seed) {
    ScriptedTransport transport;
    FakeClock clock;
    for (int i = 0; i < 4; ++i)
      transport.push(ScriptedTransport::json_response(503, R"({"error":"busy"})"));
    ChatConfig c = minimal_config();
    c.jitter_seed = seed;
    ChatClient client(c, transport, clock);
    EXPECT_FALSE(client.complete({}).ok());
    return clock.sleeps();
  };
  EXPECT_EQ(sleeps_with_seed(11), sleeps_with_seed(11));
  EXPECT_NE(sleeps_with_seed(11), sleeps_with_seed(12));
}

TEST(LlmChat, FatalTransportErrorIsNotRetried) {
  ScriptedTransport transport;
  FakeClock clock;
  transport.push(ScriptedTransport::failure(TransportError::kFatal, "SSL certificate problem"));
  ChatClient client(minimal_config(), transport, clock);
  const ChatResult r = client.complete({});
  EXPECT_EQ(r.error, "fatal: SSL certificate problem");
  EXPECT_EQ(transport.requests().size(), 1u);
}

TEST(LlmChat, ContentAsAListOfParts) {
  ScriptedTransport transport;
  FakeClock clock;
  const json parts =
      json::array({{{"type", "text"}, {"text", "a"}}, {{"type", "text"}, {"text", "b"}}});
  transport.push(ScriptedTransport::json_response(200, completion({{"content", parts}})));
  ChatClient client(minimal_config(), transport, clock);
  EXPECT_EQ(client.complete({}).content, "ab");
}

TEST(LlmChat, InvalidUtf8NeitherThrowsNorLeaks) {
  ScriptedTransport transport;
  FakeClock clock;
  transport.push(ScriptedTransport::json_response(500, "bad \xff\xfe bytes"));
  ChatConfig c = minimal_config();
  c.retry.max_attempts = 1;
  ChatClient client(c, transport, clock);
  // A prompt with a stray byte (a compiler log) is sent with U+FFFD in its place.
  const ChatResult r = client.complete({{ChatRole::kUser, "error at \xc3("}});
  EXPECT_FALSE(r.ok());
  EXPECT_NO_THROW((void)r.response.dump());
  EXPECT_NO_THROW((void)json(r.error).dump());
  EXPECT_NE(transport.requests().at(0).body.find("\xef\xbf\xbd"), std::string::npos);
}

TEST(LlmChat, ParseOfAnswerFields) {
  const ParsedChat p = parse_chat_response(
      json::parse(completion({{"content", "x"}, {"reasoning_content", nullptr}, {"reasoning", "r"}},
                             {{"usage",
                               {{"prompt_tokens", 5},
                                {"completion_tokens", 6},
                                {"completion_tokens_details", {{"reasoning_tokens", 4}}}}}})));
  ASSERT_TRUE(p.answer.has_value()) << p.error;
  EXPECT_EQ(p.answer->content, "x");
  EXPECT_EQ(p.answer->reasoning, "r");  // a null reasoning_content falls through to "reasoning"
  EXPECT_EQ(p.answer->finish_reason, "stop");
  EXPECT_EQ(p.answer->prompt_tokens, 5);
  EXPECT_EQ(p.answer->completion_tokens, 6);
  const ParsedChat no_usage = parse_chat_response(json::parse(completion({{"content", "x"}})));
  ASSERT_TRUE(no_usage.answer.has_value());
  EXPECT_EQ(no_usage.answer->prompt_tokens, 0);
}

}  // namespace
}  // namespace ptxb
