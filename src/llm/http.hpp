// The HTTP seam of the model client: one POST with a deadline, answered by a status, headers and
// a body, or by a transport error. A failed request is a value the retry logic inspects, never an
// exception; only a broken transport (libcurl cannot be set up) throws ApiError.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptxb {

/// Header fields in the order sent or received; names as written by the sender.
using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string url;
  HttpHeaders headers;  ///< e.g. {"Content-Type", "application/json"}
  std::string body;
  /// Total limit of the exchange: connect, send and the whole response.
  std::chrono::milliseconds timeout{60'000};
};

/// Why no HTTP response came back. Timeouts, refused connections and broken transfers are worth
/// retrying; kFatal (bad URL, failed TLS verification, oversized response) is not.
enum class TransportError {
  kNone,     ///< a response (any status) was received
  kTimeout,  ///< the request's timeout passed
  kConnect,  ///< no connection: refused, unreachable, name not resolved
  kNetwork,  ///< the connection broke: nothing or part of a response received
  kFatal,    ///< retrying cannot help
};

/// "none", "timeout", "connect", "network", "fatal".
std::string_view transport_error_name(TransportError error);

struct HttpResponse {
  TransportError error = TransportError::kNone;
  std::string error_text;  ///< the transport's own words when error != kNone
  int status = 0;          ///< HTTP status; 0 when error != kNone
  HttpHeaders headers;     ///< of the final response
  std::string body;
  double elapsed_s = 0;  ///< wall time of the exchange as the transport measured it

  bool transport_ok() const { return error == TransportError::kNone; }
  /// Value of the first header named `name` (case-insensitive), if any.
  std::optional<std::string> header(std::string_view name) const;
};

/// The seam: implementations must be safe to call from several threads at once.
class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  /// Sends a POST. Never throws for a failing request (see HttpResponse::error); throws ApiError
  /// only when the transport itself cannot be used.
  virtual HttpResponse post(const HttpRequest& request) = 0;
};

/// ASCII case-insensitive comparison of header names.
bool header_name_equal(std::string_view a, std::string_view b);

}  // namespace ptxb
