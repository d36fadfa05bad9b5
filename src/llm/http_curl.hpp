// The real HttpTransport: libcurl (HTTP and HTTPS), one easy handle per request in flight, taken
// from a pool of idle handles so that connections, TLS sessions and DNS answers are reused.
// Thread-safe; never uses signals (CURLOPT_NOSIGNAL), so it is safe in a multi-threaded process.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "llm/http.hpp"

namespace ptxb {

struct CurlOptions {
  /// A response body beyond this is cut off and reported as TransportError::kFatal.
  size_t max_response_bytes = size_t{64} << 20;
  /// Limit on establishing the connection (TCP and TLS); never beyond the request's timeout.
  std::chrono::milliseconds connect_timeout{30'000};
  std::string user_agent = "ptxbench/" PTXB_VERSION;
  /// PEM file of the certificate authorities HTTPS servers are verified against, instead of
  /// the system's; empty: the system's. Verification itself is never switched off.
  std::string ca_file;
};

class CurlTransport : public HttpTransport {
 public:
  /// Initialises libcurl once per process (curl_global_init; it is never cleaned up, as the
  /// process may still hold handles at exit). Throws ApiError if libcurl cannot be initialised.
  explicit CurlTransport(CurlOptions options = {});
  ~CurlTransport() override;
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  /// See HttpTransport::post. Only http:// and https:// URLs are allowed; redirects are not
  /// followed (a POST must not silently change its target).
  HttpResponse post(const HttpRequest& request) override;

 private:
  struct HandlePool;
  CurlOptions options_;
  std::unique_ptr<HandlePool> pool_;
};

}  // namespace ptxb
