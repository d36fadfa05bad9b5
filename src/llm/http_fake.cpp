// The scripted transport (see http_fake.hpp).
#include "llm/http_fake.hpp"

namespace ptxb {

void ScriptedTransport::push(HttpResponse response) {
  push(Handler([response = std::move(response)](const HttpRequest&) { return response; }));
}

void ScriptedTransport::push(Handler handler) {
  std::lock_guard lock(mutex_);
  script_.push_back(std::move(handler));
}

HttpResponse ScriptedTransport::post(const HttpRequest& request) {
  Handler next;
  {
    std::lock_guard lock(mutex_);
    requests_.push_back(request);
    if (script_.empty())
      return failure(TransportError::kFatal, "ScriptedTransport: no scripted response left");
    next = std::move(script_.front());
    script_.pop_front();
  }
  // NOTE: called outside the lock so that a handler may block (concurrency tests).
  return next(request);
}

std::vector<HttpRequest> ScriptedTransport::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

size_t ScriptedTransport::remaining() const {
  std::lock_guard lock(mutex_);
  return script_.size();
}

HttpResponse ScriptedTransport::json_response(int status, std::string body,
                                              HttpHeaders extra_headers) {
  HttpResponse r;
  r.status = status;
  r.headers = {{"Content-Type", "application/json"}};
  r.headers.insert(r.headers.end(), extra_headers.begin(), extra_headers.end());
  r.body = std::move(body);
  return r;
}

HttpResponse ScriptedTransport::failure(TransportError error, std::string text) {
  HttpResponse r;
  r.error = error;
  r.error_text = std::move(text);
  return r;
}

}  // namespace ptxb
