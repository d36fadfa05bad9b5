#include "serve/http_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <exception>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/error.hpp"

namespace ptxb::serve {
namespace {

[[noreturn]] void throw_errno(const char* call, const std::string& what) {
  throw_api("POSIX", call, errno, what, std::strerror(errno), __FILE__, __LINE__);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool wait_readable(int fd, std::chrono::milliseconds timeout) {
  pollfd p{fd, POLLIN, 0};
  int rc = 0;
  do {
    rc = ::poll(&p, 1, static_cast<int>(timeout.count()));
  } while (rc < 0 && errno == EINTR);
  return rc > 0;
}

// Appends what the peer sends next to `buf`; false when it closed, failed or stalled.
bool read_more(int fd, std::string& buf, std::chrono::milliseconds timeout) {
  if (!wait_readable(fd, timeout)) return false;
  char chunk[8192];
  ssize_t n = 0;
  do {
    n = ::recv(fd, chunk, sizeof chunk, 0);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return false;
  buf.append(chunk, static_cast<size_t>(n));
  return true;
}

void send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the peer went away: nothing left to tell it
    data.remove_prefix(static_cast<size_t>(n));
  }
}

std::string serialize(const HttpResponse& r) {
  std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + reason_phrase(r.status) + "\r\n";
  out += "Content-Type: " + r.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
  for (const auto& [name, value] : r.headers) out += name + ": " + value + "\r\n";
  out += "Connection: close\r\n\r\n";
  out += r.body;
  return out;
}

// Sends `r`, then stops writing and discards what the peer still sends for a moment, so that a
// client still sending an unread body reads the answer instead of a reset connection.
void answer_and_close(int fd, const HttpResponse& r) {
  send_all(fd, serialize(r));
  ::shutdown(fd, SHUT_WR);
  std::string sink;
  for (int i = 0; i < 64 && read_more(fd, sink, std::chrono::milliseconds(100)); ++i) sink.clear();
  ::close(fd);
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// "%41" -> "A", "+" -> " "; a malformed escape stays as written.
std::string percent_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() && hex_value(s[i + 1]) >= 0 &&
               hex_value(s[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// "a=1&b=x%20y" -> {a: 1, b: "x y"}; a name without '=' gets "".
std::map<std::string, std::string> parse_query(std::string_view q) {
  std::map<std::string, std::string> out;
  while (!q.empty()) {
    const size_t amp = q.find('&');
    const std::string_view pair = q.substr(0, amp);
    const size_t eq = pair.find('=');
    if (!pair.empty())
      out[percent_decode(pair.substr(0, eq))] =
          eq == std::string_view::npos ? "" : percent_decode(pair.substr(eq + 1));
    if (amp == std::string_view::npos) break;
    q.remove_prefix(amp + 1);
  }
  return out;
}

}  // namespace

HttpResponse error_response(int status, const std::string& message) {
  HttpResponse r;
  r.status = status;
  r.body = nlohmann::json{{"error", message}}.dump(-1, ' ', false,
                                                   nlohmann::json::error_handler_t::replace);
  return r;
}

std::string HttpRequest::header(const std::string& name) const {
  const auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

const char* reason_phrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 202:
      return "Accepted";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 409:
      return "Conflict";
    case 411:
      return "Length Required";
    case 413:
      return "Content Too Large";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

HttpServer::HttpServer(const std::string& host, int port, HttpLimits limits, Handler handler)
    : limits_(limits), handler_(std::move(handler)) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1)
    throw InputError("serve: not an IPv4 address: " + host);
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw_errno("socket", "the service's listening socket");
  const int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 128) != 0) {
    const int saved = errno;
    ::close(listen_fd_);
    errno = saved;
    throw_errno("bind/listen", host + ":" + std::to_string(port));
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  if (::pipe2(wake_fd_, O_CLOEXEC) != 0) throw_errno("pipe2", "the service's wake-up pipe");
}

HttpServer::~HttpServer() {
  stop();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  for (int fd : wake_fd_)
    if (fd >= 0) ::close(fd);
}

void HttpServer::start() {
  stopping_ = false;
  acceptor_ = std::thread([this] { accept_loop(); });
  for (int i = 0; i < limits_.handler_threads; ++i)
    handlers_.emplace_back([this] { handler_loop(); });
}

void HttpServer::stop() {
  if (stopping_.exchange(true)) return;
  const char byte = 1;
  (void)!::write(wake_fd_[1], &byte, 1);
  if (acceptor_.joinable()) acceptor_.join();
  ready_.notify_all();
  for (std::thread& t : handlers_)
    if (t.joinable()) t.join();
  handlers_.clear();
  for (int fd : pending_) ::close(fd);
  pending_.clear();
}

void HttpServer::accept_loop() {
  while (!stopping_) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_[0], POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) continue;  // EINTR
    if (fds[1].revents != 0) break;
    if ((fds[0].revents & POLLIN) == 0) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::lock_guard lock(mutex_);
    if (pending_.size() >= limits_.max_pending_connections) {
      ::close(fd);  // overloaded: the client sees a closed connection and retries
      continue;
    }
    pending_.push_back(fd);
    ready_.notify_one();
  }
}

void HttpServer::handler_loop() {
  for (;;) {
    int fd = -1;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
      if (pending_.empty()) return;  // stopping, nothing left
      fd = pending_.front();
      pending_.pop_front();
    }
    serve_connection(fd);
  }
}

void HttpServer::serve_connection(int fd) {
  const auto deadline = std::chrono::steady_clock::now() + limits_.request_deadline;
  // The next read's wait: the per-read timeout, or what is left of the request's deadline.
  auto wait = [&] {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    return std::max(std::chrono::milliseconds(0), std::min(left, limits_.read_timeout));
  };
  std::string buf;
  size_t header_end = std::string::npos;
  while ((header_end = buf.find("\r\n\r\n")) == std::string::npos) {
    if (buf.size() > limits_.max_header_bytes)
      return answer_and_close(fd, error_response(431, "request line and headers too large"));
    if (!read_more(fd, buf, wait())) {
      ::close(fd);
      return;
    }
  }
  if (header_end > limits_.max_header_bytes)
    return answer_and_close(fd, error_response(431, "request line and headers too large"));

  HttpRequest req;
  const std::string_view head(buf.data(), header_end);
  const size_t line_end = head.find("\r\n");
  const std::string_view request_line = head.substr(0, line_end);
  const size_t sp1 = request_line.find(' '), sp2 = request_line.rfind(' ');
  if (sp1 == std::string_view::npos || sp2 == sp1 || request_line.substr(sp2 + 1, 5) != "HTTP/")
    return answer_and_close(fd, error_response(400, "malformed request line"));
  req.method = std::string(request_line.substr(0, sp1));
  const std::string_view target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
  const size_t question = target.find('?');
  req.path = std::string(target.substr(0, question));
  if (question != std::string_view::npos) req.query = parse_query(target.substr(question + 1));
  size_t pos = line_end == std::string_view::npos ? head.size() : line_end + 2;
  while (pos < head.size()) {
    size_t end = head.find("\r\n", pos);
    if (end == std::string_view::npos) end = head.size();
    const std::string_view line = head.substr(pos, end - pos);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0)
      return answer_and_close(fd, error_response(400, "malformed header line"));
    req.headers[lower(std::string(line.substr(0, colon)))] =
        std::string(trim(line.substr(colon + 1)));
    pos = end + 2;
  }

  if (!req.header("transfer-encoding").empty())
    return answer_and_close(
        fd, error_response(501, "chunked request bodies are not supported: send Content-Length"));
  size_t length = 0;
  if (const std::string cl = req.header("content-length"); !cl.empty()) {
    if (cl.size() > 18 || cl.find_first_not_of("0123456789") != std::string::npos)
      return answer_and_close(fd, error_response(400, "Content-Length is not a number"));
    length = std::stoull(cl);
  } else if (req.method == "POST" || req.method == "PUT") {
    return answer_and_close(fd, error_response(411, "a request body needs Content-Length"));
  }
  if (length > limits_.max_body_bytes)
    return answer_and_close(fd, error_response(413, "request body of " + std::to_string(length) +
                                                        " bytes, the limit is " +
                                                        std::to_string(limits_.max_body_bytes)));
  if (lower(req.header("expect")) == "100-continue") send_all(fd, "HTTP/1.1 100 Continue\r\n\r\n");
  req.body = buf.substr(header_end + 4);
  while (req.body.size() < length) {
    if (!read_more(fd, req.body, wait())) {
      ::close(fd);
      return;
    }
  }
  req.body.resize(length);  // one request per connection: anything after it is dropped

  HttpResponse response;
  try {
    response = handler_(req);
  } catch (const std::exception& e) {
    response = error_response(500, e.what());
  }
  answer_and_close(fd, response);
}

}  // namespace ptxb::serve
