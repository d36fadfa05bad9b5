// The chat-completions client (see chat_client.hpp): request body, the retry loop under one
// deadline, and the reading of answers, with a precise message for every way a server fails.
#include "llm/chat_client.hpp"

#include <cstdio>

#include "core/error.hpp"

namespace ptxb {
namespace {

using std::chrono::milliseconds;
using json = nlohmann::json;

std::string seconds_text(std::chrono::duration<double> d) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", d.count());
  return text;
}

/// `text` with every invalid UTF-8 sequence replaced by U+FFFD, so that results always dump.
std::string valid_utf8(std::string_view text) {
  const std::string quoted = json(text).dump(-1, ' ', false, json::error_handler_t::replace);
  return json::parse(quoted).get<std::string>();
}

/// At most `limit` bytes of `text`, with a note when cut.
std::string excerpt(std::string_view text, size_t limit = 300) {
  if (text.size() <= limit) return std::string(text);
  return std::string(text.substr(0, limit)) + "... (" + std::to_string(text.size()) + " bytes)";
}

/// Why `body` is not JSON, in the parser's words ("syntax error while parsing ...").
std::string parse_error_text(const std::string& body) {
  try {
    const json parsed = json::parse(body);
    (void)parsed;
  } catch (const json::parse_error& e) {  // a bad server is a value, not an exception
    return e.what();
  }
  return "no error";
}

/// The server's own words in an error body: OpenAI's {"error": {"message"}}, {"error": "..."},
/// FastAPI's {"detail": ...}, {"message": ...}; else the start of the body.
std::string server_message(const std::string& body) {
  const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_object()) {
    const auto text_of = [](const json& j) {
      return j.is_string() ? j.get<std::string>() : j.dump();
    };
    if (auto e = parsed.find("error"); e != parsed.end()) {
      if (e->is_object() && e->contains("message")) return excerpt(text_of((*e)["message"]));
      return excerpt(text_of(*e));
    }
    for (const char* key : {"detail", "message"})
      if (auto m = parsed.find(key); m != parsed.end()) return excerpt(text_of(*m));
  }
  return body.empty() ? "(empty body)" : excerpt(body);
}

/// One line on why an attempt failed: "HTTP 503: overloaded" or "timeout: curl error 28 ...".
std::string describe_failure(const HttpResponse& response) {
  if (!response.transport_ok())
    return std::string(transport_error_name(response.error)) + ": " + response.error_text;
  return "HTTP " + std::to_string(response.status) + ": " + server_message(response.body);
}

std::string type_name(const json& j) { return j.type_name(); }

/// Message content as text: a string, null (""), or a list of {"type": "text", "text": ...}.
std::optional<std::string> content_text(const json& content) {
  if (content.is_null()) return std::string();
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array()) return std::nullopt;
  std::string text;
  for (const json& part : content) {
    if (!part.is_object()) return std::nullopt;
    if (auto t = part.find("text"); t != part.end() && t->is_string())
      text += t->get<std::string>();
  }
  return text;
}

int64_t token_count(const json& usage, const char* key) {
  if (!usage.is_object()) return 0;
  const auto it = usage.find(key);
  return it != usage.end() && it->is_number() ? it->get<int64_t>() : 0;
}

/// Keeps the last response in `result` (status, body as JSON or as raw text); true when the
/// body is JSON.
bool record_response(const HttpResponse& response, ChatResult& result) {
  result.http_status.reset();
  result.response = json();
  if (!response.transport_ok()) return false;
  result.http_status = response.status;
  result.response = json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (!result.response.is_discarded()) return true;
  result.response = valid_utf8(response.body);  // kept as raw text
  return false;
}

/// Reads a 2xx answer into `result`: kOk with the answer, or the precise reason it is unusable.
void take_answer(const HttpResponse& response, bool is_json, std::chrono::duration<double> latency,
                 ChatResult& result) {
  if (!is_json) {
    result.error = "malformed JSON in the HTTP " + std::to_string(response.status) + " response (" +
                   parse_error_text(response.body) + "); body: " + excerpt(response.body);
    return;
  }
  ParsedChat parsed = parse_chat_response(result.response);
  if (!parsed.answer) {
    result.error = parsed.error;
    return;
  }
  result.status = ChatStatus::kOk;
  result.error.clear();
  result.content = std::move(parsed.answer->content);
  result.reasoning = std::move(parsed.answer->reasoning);
  result.finish_reason = std::move(parsed.answer->finish_reason);
  result.prompt_tokens = parsed.answer->prompt_tokens;
  result.completion_tokens = parsed.answer->completion_tokens;
  result.latency_s = latency.count();
}

}  // namespace

std::string_view chat_role_name(ChatRole role) {
  switch (role) {
    case ChatRole::kSystem:
      return "system";
    case ChatRole::kUser:
      return "user";
    case ChatRole::kAssistant:
      return "assistant";
  }
  return "user";
}

json ChatConfig::to_json() const {
  json j = {{"base_url", base_url},
            {"model", model},
            {"api_key_set", !api_key.empty()},
            {"attempt_timeout_ms", attempt_timeout.count()},
            {"deadline_ms", deadline.count()},
            {"retry", retry.to_json()},
            {"extra_body", extra_body}};
  if (temperature) j["temperature"] = *temperature;
  if (top_p) j["top_p"] = *top_p;
  if (max_tokens) j["max_tokens"] = *max_tokens;
  if (seed) j["seed"] = *seed;
  return j;
}

json build_chat_request(const ChatConfig& config, const std::vector<ChatMessage>& messages) {
  json body = {{"model", config.model}, {"messages", json::array()}, {"stream", false}};
  for (const ChatMessage& m : messages)
    body["messages"].push_back({{"role", chat_role_name(m.role)}, {"content", m.content}});
  if (config.temperature) body["temperature"] = *config.temperature;
  if (config.top_p) body["top_p"] = *config.top_p;
  if (config.max_tokens) body["max_tokens"] = *config.max_tokens;
  if (config.seed) body["seed"] = *config.seed;
  if (config.extra_body.is_object()) body.update(config.extra_body);
  return body;
}

ParsedChat parse_chat_response(const json& body) {
  const auto fail = [](std::string why) { return ParsedChat{std::nullopt, std::move(why)}; };
  if (!body.is_object()) return fail("response is a JSON " + type_name(body) + ", not an object");
  const auto choices = body.find("choices");
  if (choices == body.end()) {
    if (body.contains("error"))
      return fail("response has no \"choices\"; server error: " + server_message(body.dump()));
    return fail("response has no \"choices\"");
  }
  if (!choices->is_array()) return fail("\"choices\" is a " + type_name(*choices) + ", not a list");
  if (choices->empty()) return fail("\"choices\" is empty");
  const json& choice = (*choices)[0];
  const auto message = choice.is_object() ? choice.find("message") : choice.end();
  if (!choice.is_object() || message == choice.end() || !message->is_object())
    return fail("choices[0] has no \"message\" object");

  ChatAnswer answer;
  const auto content = message->find("content");
  const auto text = content_text(content == message->end() ? json() : *content);
  if (!text) return fail("choices[0].message.content is a " + type_name(*content) + ", not text");
  answer.content = *text;
  for (const char* key : {"reasoning_content", "reasoning"}) {
    if (auto r = message->find(key); r != message->end() && r->is_string()) {
      answer.reasoning = r->get<std::string>();
      break;
    }
  }
  if (auto f = choice.find("finish_reason"); f != choice.end() && f->is_string())
    answer.finish_reason = f->get<std::string>();
  const auto usage = body.find("usage");
  if (usage != body.end()) {
    answer.prompt_tokens = token_count(*usage, "prompt_tokens");
    answer.completion_tokens = token_count(*usage, "completion_tokens");
  }
  return ParsedChat{std::move(answer), ""};
}

ChatClient::ChatClient(ChatConfig config, HttpTransport& transport, Clock& clock)
    : config_(std::move(config)), transport_(transport), clock_(clock) {
  if (config_.base_url.empty()) throw InputError("model client: no base URL");
  if (config_.model.empty()) throw InputError("model client: no model name");
  if (config_.deadline.count() <= 0 || config_.attempt_timeout.count() <= 0)
    throw InputError("model client: the deadline and attempt timeout must be positive");
  if (config_.retry.max_attempts < 1)
    throw InputError("model client: retry.max_attempts must be at least 1");
  if (!config_.extra_body.is_object() && !config_.extra_body.is_null())
    throw InputError("model client: extra_body must be a JSON object, not a " +
                     std::string(config_.extra_body.type_name()));
  std::string base = config_.base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  url_ = base + "/chat/completions";
  headers_ = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
  if (!config_.api_key.empty()) headers_.emplace_back("Authorization", "Bearer " + config_.api_key);
  headers_.insert(headers_.end(), config_.extra_headers.begin(), config_.extra_headers.end());
  rng_.seed(config_.jitter_seed ? *config_.jitter_seed : std::random_device{}());
}

double ChatClient::next_unit() {
  std::lock_guard lock(rng_mutex_);
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
}

ChatResult ChatClient::complete(const std::vector<ChatMessage>& messages) {
  ChatResult result;
  result.request = build_chat_request(config_, messages);
  // NOTE: prompts may carry compiler logs with stray bytes; send U+FFFD rather than throw.
  HttpRequest request{url_, headers_,
                      result.request.dump(-1, ' ', false, json::error_handler_t::replace),
                      config_.attempt_timeout};
  attempt_until_done(request, result);
  result.error = valid_utf8(result.error);  // it may quote a server's bytes
  return result;
}

void ChatClient::attempt_until_done(HttpRequest& request, ChatResult& result) {
  const auto start = clock_.now();
  const auto deadline_at = start + config_.deadline;
  const std::string deadline_text = "deadline of " + seconds_text(config_.deadline);
  for (int attempt = 0;; ++attempt) {
    const auto remaining = std::chrono::ceil<milliseconds>(deadline_at - clock_.now());
    if (remaining.count() <= 0) {
      result.error = deadline_text + " passed after " + std::to_string(attempt) + " attempt(s)" +
                     (result.error.empty() ? "" : "; last: " + result.error);
      return;
    }
    result.retries = attempt;
    request.timeout = std::min(config_.attempt_timeout, remaining);
    const auto sent = clock_.now();
    const HttpResponse response = transport_.post(request);
    const auto received = clock_.now();
    const bool is_json = record_response(response, result);
    if (response.transport_ok() && response.status >= 200 && response.status <= 299) {
      take_answer(response, is_json, std::chrono::duration<double>(received - sent), result);
      return;  // a 2xx answer is final, usable or not
    }

    result.error = describe_failure(response);
    if (!is_retryable(response)) return;
    const int attempts = attempt + 1;
    if (attempts >= config_.retry.max_attempts) {
      result.error =
          "gave up after " + std::to_string(attempts) + " attempt(s); last: " + result.error;
      return;
    }
    std::optional<milliseconds> retry_after;
    if (const auto value = response.header("Retry-After"))
      retry_after = parse_retry_after(*value, clock_.wall_now());
    const milliseconds wait = retry_delay(config_.retry, attempt, retry_after, next_unit());
    if (clock_.now() + wait >= deadline_at) {
      result.error = deadline_text + " leaves no time for a retry after " +
                     std::to_string(attempts) + " attempt(s) (wait of " + seconds_text(wait) +
                     "); last: " + result.error;
      return;
    }
    clock_.sleep_for(wait);
  }
}

}  // namespace ptxb
