#include "core/error.hpp"

#include <sstream>

namespace ptxb {

void throw_internal(const char* expr, const char* file, int line, const std::string& msg) {
  std::ostringstream os;
  os << "internal error at " << file << ":" << line << ": " << msg << " (failed: " << expr << ")";
  throw InternalError(os.str());
}

void throw_api(const char* api, const char* call, long long code, const std::string& name,
               const std::string& text, const char* file, int line) {
  std::ostringstream os;
  os << api << " call `" << call << "` failed with " << code;
  if (!name.empty()) os << " (" << name << ")";
  if (!text.empty()) os << ": " << text;
  os << " at " << file << ":" << line;
  throw ApiError(os.str());
}

}  // namespace ptxb
