// The client of OpenAI-compatible chat completions (POST {base_url}/chat/completions: vLLM,
// SGLang, hosted APIs). One call sends a conversation and returns a ChatResult: the answer, or a
// failure with a precise reason after the retries the policy allows. A bad server, a bad answer
// or a network failure is a value in the result, never an exception.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "llm/http.hpp"
#include "llm/retry.hpp"

namespace ptxb {

enum class ChatRole { kSystem, kUser, kAssistant };

/// "system", "user", "assistant".
std::string_view chat_role_name(ChatRole role);

struct ChatMessage {
  ChatRole role = ChatRole::kUser;
  std::string content;
};

/// Everything a client needs; filled by the caller's configuration code (the client itself reads
/// no environment variable or file).
struct ChatConfig {
  std::string base_url;  ///< e.g. "http://127.0.0.1:8000/v1"; "/chat/completions" is appended
  std::string model;     ///< the "model" field of every request
  std::string api_key;   ///< sent as "Authorization: Bearer ..." when not empty; never logged
  std::optional<double> temperature;
  std::optional<double> top_p;
  std::optional<int64_t> max_tokens;
  std::optional<int64_t> seed;
  /// Merged last into every request body at the top level (nlohmann::json::update), so it may
  /// add fields ("chat_template_kwargs", "reasoning_effort", ...) or replace the ones above.
  nlohmann::json extra_body = nlohmann::json::object();
  HttpHeaders extra_headers;  ///< sent with every request (after the standard ones)
  /// Limit of one HTTP attempt (the whole exchange).
  std::chrono::milliseconds attempt_timeout{600'000};
  /// Limit of the whole call: every attempt and every wait between them.
  std::chrono::milliseconds deadline{1'800'000};
  RetryPolicy retry;
  /// Seed of the jitter of backoffs; nullopt: from std::random_device.
  std::optional<uint64_t> jitter_seed;

  /// The settings to record with a run (model, sampling, limits, retry policy); no API key.
  nlohmann::json to_json() const;
};

enum class ChatStatus {
  kOk,      ///< a 2xx answer with a well-formed choices[0].message
  kFailed,  ///< no usable answer: see ChatResult::error
};

struct ChatResult {
  ChatStatus status = ChatStatus::kFailed;
  std::string error;          ///< why the call failed (kFailed), else ""
  std::string content;        ///< choices[0].message.content ("" when null)
  std::string reasoning;      ///< choices[0].message.reasoning_content or .reasoning, if any
  std::string finish_reason;  ///< choices[0].finish_reason ("stop", "length", ...), if any
  int64_t prompt_tokens = 0;  ///< usage.prompt_tokens, 0 when the server sent no usage
  int64_t completion_tokens = 0;
  double latency_s = 0;            ///< wall time of the successful attempt (0 when failed)
  int retries = 0;                 ///< attempts repeated before the last one
  std::optional<int> http_status;  ///< status of the last response, if one came back
  nlohmann::json request;          ///< the full request body sent (messages included)
  /// The last response body: parsed JSON, or the raw text as a JSON string when it is not
  /// JSON; null when no response came back at all.
  nlohmann::json response;

  bool ok() const { return status == ChatStatus::kOk; }
};

/// The request body for `messages` under `config` (model, messages, sampling, extra_body).
nlohmann::json build_chat_request(const ChatConfig& config,
                                  const std::vector<ChatMessage>& messages);

/// What a well-formed chat completion holds.
struct ChatAnswer {
  std::string content;
  std::string reasoning;
  std::string finish_reason;
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
};

/// The answer in a parsed 2xx body, or (answer empty) the precise reason the body is not a chat
/// completion: no "choices", an empty list, no message, a content that is not text, ...
struct ParsedChat {
  std::optional<ChatAnswer> answer;
  std::string error;
};
ParsedChat parse_chat_response(const nlohmann::json& body);

class ChatClient {
 public:
  /// `transport` and `clock` must outlive the client. Throws InputError when the config lacks a
  /// base URL or a model, has a non-positive deadline, timeout or max_attempts, or an extra_body
  /// that is not an object.
  ChatClient(ChatConfig config, HttpTransport& transport, Clock& clock);

  /// Sends `messages`, retrying as the policy allows within the deadline. Thread-safe: several
  /// threads may call it at once (the transport and clock are thread-safe).
  ChatResult complete(const std::vector<ChatMessage>& messages);

  const ChatConfig& config() const { return config_; }

 private:
  /// The retry loop of complete(): fills `result` and returns when it succeeded or failed.
  void attempt_until_done(HttpRequest& request, ChatResult& result);
  double next_unit();

  ChatConfig config_;
  std::string url_;
  HttpHeaders headers_;
  HttpTransport& transport_;
  Clock& clock_;
  std::mutex rng_mutex_;
  std::mt19937_64 rng_;
};

}  // namespace ptxb
