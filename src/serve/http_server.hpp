// A small HTTP/1.1 server for the judging service (docs/serve.md): one request per connection
// (every response says `Connection: close`), Content-Length bodies only, limits on header and
// body size and on the time a client may take to send them. Requests are read and answered by a
// fixed pool of handler threads fed by one accept thread. Enough for a JSON API on a trusted
// network; put a TLS-terminating proxy in front of it for anything else.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace ptxb::serve {

struct HttpRequest {
  std::string method;                          ///< "GET", "POST", ...
  std::string path;                            ///< the target without its query string
  std::map<std::string, std::string> query;    ///< its query parameters, %-decoded
  std::map<std::string, std::string> headers;  ///< names lower-cased
  std::string body;
  /// The header's value, or "" when absent (`name` lower-case).
  std::string header(const std::string& name) const;
};

struct HttpResponse {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;  ///< extra ones (Retry-After, ...)
};

struct HttpLimits {
  size_t max_header_bytes = 16 << 10;             ///< request line and headers; more: 431
  size_t max_body_bytes = 1 << 20;                ///< Content-Length above it: 413, the body unread
  std::chrono::milliseconds read_timeout{10000};  ///< per read; a stalled client is dropped
  /// The whole request (headers and body) within this, however the client paces its bytes.
  std::chrono::milliseconds request_deadline{30000};
  int handler_threads = 8;
  size_t max_pending_connections = 256;  ///< accepted, not yet handled; more are closed at once
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;

  /// Binds `host` (an IPv4 address, e.g. "127.0.0.1") at `port` (0: a free one, see port()) and
  /// listens. `handler` runs on the handler threads; an exception from it is a 500 whose body
  /// names it. Throws ApiError when the socket cannot be bound.
  HttpServer(const std::string& host, int port, HttpLimits limits, Handler handler);
  ~HttpServer();  ///< stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }
  /// Starts the accept and handler threads.
  void start();
  /// Stops accepting, lets the handlers finish the requests they hold, joins every thread.
  void stop();

 private:
  void accept_loop();
  void handler_loop();
  void serve_connection(int fd);

  HttpLimits limits_;
  Handler handler_;
  int listen_fd_ = -1;
  int wake_fd_[2] = {-1, -1};  ///< self-pipe: stop() wakes the accept thread's poll
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<int> pending_;  ///< accepted connections
  std::thread acceptor_;
  std::vector<std::thread> handlers_;
};

/// A JSON response {"error": message} with `status`: every refusal of the server and the service.
HttpResponse error_response(int status, const std::string& message);

/// The reason phrase of an HTTP status code ("Too Many Requests" for 429), "Unknown" otherwise.
const char* reason_phrase(int status);

}  // namespace ptxb::serve
