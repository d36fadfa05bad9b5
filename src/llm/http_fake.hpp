// A scripted HttpTransport for tests that need neither a network nor a server: it answers each
// POST with the next scripted response (or handler) in order and records every request.
#pragma once

#include <deque>
#include <functional>
#include <mutex>
#include <vector>

#include "llm/http.hpp"

namespace ptxb {

class ScriptedTransport : public HttpTransport {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;

  /// Queues a fixed answer.
  void push(HttpResponse response);
  /// Queues a handler called with the request (to check it, to advance a fake clock, ...).
  void push(Handler handler);

  /// The next scripted answer; when none is left, a kFatal transport error saying so.
  HttpResponse post(const HttpRequest& request) override;

  /// Copies of every request received, in order.
  std::vector<HttpRequest> requests() const;
  /// Scripted answers not yet used.
  size_t remaining() const;

  /// A response with `status`, a JSON content type and `body`.
  static HttpResponse json_response(int status, std::string body, HttpHeaders extra_headers = {});
  /// A transport failure of kind `error`.
  static HttpResponse failure(TransportError error, std::string text);

 private:
  mutable std::mutex mutex_;
  std::deque<Handler> script_;
  std::vector<HttpRequest> requests_;
};

}  // namespace ptxb
