// libcurl transport (see http_curl.hpp). Set-up calls go through PTXB_CHECK_CURL; the result of a
// transfer becomes HttpResponse::error.
#include "llm/http_curl.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

#include "llm/http_check.hpp"

namespace ptxb {
namespace {

struct EasyDeleter {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
using EasyHandle = std::unique_ptr<CURL, EasyDeleter>;

struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using Slist = std::unique_ptr<curl_slist, SlistDeleter>;

void global_init_once() {
  static std::once_flag once;
  std::call_once(once, [] { PTXB_CHECK_CURL(curl_global_init(CURL_GLOBAL_DEFAULT)); });
}

/// What the write and header callbacks fill during one transfer.
struct Sink {
  size_t max_body_bytes = 0;
  bool body_overflow = false;
  std::string body;
  HttpHeaders headers;
};

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const size_t bytes = size * count;
  if (sink->body.size() + bytes > sink->max_body_bytes) {
    sink->body_overflow = true;
    return 0;  // makes libcurl stop with CURLE_WRITE_ERROR
  }
  sink->body.append(data, bytes);
  return bytes;
}

std::string_view trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const std::string_view line(data, size * count);
  // NOTE: a status line starts each response (an interim "100 Continue" has its own); keep only
  // the headers of the last one.
  if (line.starts_with("HTTP/")) {
    sink->headers.clear();
  } else if (const size_t colon = line.find(':'); colon != std::string_view::npos) {
    sink->headers.emplace_back(std::string(trim(line.substr(0, colon))),
                               std::string(trim(line.substr(colon + 1))));
  }
  return size * count;
}

TransportError classify(CURLcode code) {
  switch (code) {
    case CURLE_OK:
      return TransportError::kNone;
    case CURLE_OPERATION_TIMEDOUT:
      return TransportError::kTimeout;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return TransportError::kConnect;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return TransportError::kNetwork;
    default:
      return TransportError::kFatal;  // bad URL, TLS verification, our own write abort, ...
  }
}

}  // namespace

/// Idle easy handles; a request takes one (or makes one) and gives it back when done.
struct CurlTransport::HandlePool {
  std::mutex mutex;
  std::vector<EasyHandle> idle;

  EasyHandle take() {
    {
      std::lock_guard lock(mutex);
      if (!idle.empty()) {
        EasyHandle handle = std::move(idle.back());
        idle.pop_back();
        return handle;
      }
    }
    EasyHandle handle(curl_easy_init());
    PTXB_CHECK_CURL(handle ? CURLE_OK : CURLE_FAILED_INIT);  // curl_easy_init() returned null
    return handle;
  }

  void give_back(EasyHandle handle) {
    // Drops every option (they point at the finished request's buffers) but keeps the
    // connection, DNS and TLS session caches.
    curl_easy_reset(handle.get());
    std::lock_guard lock(mutex);
    idle.push_back(std::move(handle));
  }
};

CurlTransport::CurlTransport(CurlOptions options)
    : options_(std::move(options)), pool_(std::make_unique<HandlePool>()) {
  global_init_once();
}

CurlTransport::~CurlTransport() = default;

HttpResponse CurlTransport::post(const HttpRequest& request) {
  HttpResponse response;
  if (request.timeout.count() <= 0) {  // NOTE: libcurl reads a zero timeout as "none"
    response.error = TransportError::kTimeout;
    response.error_text = "no time left for the request";
    return response;
  }
  EasyHandle handle = pool_->take();
  CURL* h = handle.get();

  Slist headers;
  const auto append = [&](const std::string& line) {
    curl_slist* grown = curl_slist_append(headers.get(), line.c_str());
    PTXB_CHECK_CURL(grown ? CURLE_OK : CURLE_OUT_OF_MEMORY);  // curl_slist_append() returned null
    (void)headers.release();
    headers.reset(grown);
  };
  for (const auto& [name, value] : request.headers) append(name + ": " + value);
  append("Expect:");  // no "100-continue" round trip for large bodies

  Sink sink;
  sink.max_body_bytes = options_.max_response_bytes;
  char error_buffer[CURL_ERROR_SIZE] = {};
  const long timeout_ms = static_cast<long>(request.timeout.count());
  const long connect_ms = std::min(timeout_ms, static_cast<long>(options_.connect_timeout.count()));

  PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_URL, request.url.c_str()));
#if LIBCURL_VERSION_NUM >= 0x075500  // 7.85: the string form; the bitmask is deprecated there
  PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https"));
#else
  PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_PROTOCOLS, long{CURLPROTO_HTTP | CURLPROTO_HTTPS}));
#endif
  PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L));
  PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_POST, 1L));
  PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data()));
  PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                                   static_cast<curl_off_t>(request.body.size())));
  PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get()));
  PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_USERAGENT, options_.user_agent.c_str()));
  if (!options_.ca_file.empty())
    PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_CAINFO, options_.ca_file.c_str()));
  PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, ""));  // whatever libcurl decodes
  PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms));
  PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, connect_ms));
  // NOTE: a long generation keeps the connection silent for minutes; keep-alive probes stop
  // middleboxes from dropping it.
  PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L));
  PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_TCP_KEEPIDLE, 30L));
  PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_TCP_KEEPINTVL, 15L));
  PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer));
  PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body));
  PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink));
  PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header));
  PTXB_CHECK_CURL(curl_easy_setopt(h, CURLOPT_HEADERDATA, &sink));

  const auto start = std::chrono::steady_clock::now();
  const CURLcode code = curl_easy_perform(h);
  response.elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (code == CURLE_OK) {
    long status = 0;
    PTXB_CHECK_CURL(curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status));
    response.status = static_cast<int>(status);
    response.headers = std::move(sink.headers);
    response.body = std::move(sink.body);
  } else if (sink.body_overflow) {
    response.error = TransportError::kFatal;
    response.error_text =
        "response body larger than " + std::to_string(options_.max_response_bytes) + " bytes";
  } else {
    response.error = classify(code);
    response.error_text = "curl error " + std::to_string(code) + " (" + curl_easy_strerror(code) +
                          ")" + (error_buffer[0] ? std::string(": ") + error_buffer : "");
  }
  pool_->give_back(std::move(handle));
  return response;
}

}  // namespace ptxb
