// The transport-independent parts of the HTTP seam.
#include "llm/http.hpp"

#include <algorithm>

namespace ptxb {

std::string_view transport_error_name(TransportError error) {
  switch (error) {
    case TransportError::kNone:
      return "none";
    case TransportError::kTimeout:
      return "timeout";
    case TransportError::kConnect:
      return "connect";
    case TransportError::kNetwork:
      return "network";
    case TransportError::kFatal:
      return "fatal";
  }
  return "unknown";
}

bool header_name_equal(std::string_view a, std::string_view b) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [&](char x, char y) { return lower(x) == lower(y); });
}

std::optional<std::string> HttpResponse::header(std::string_view name) const {
  for (const auto& [key, value] : headers)
    if (header_name_equal(key, name)) return value;
  return std::nullopt;
}

}  // namespace ptxb
