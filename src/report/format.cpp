#include "report/format.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/error.hpp"

namespace ptxb {

std::string format_fixed(double value, int decimals) {
  if (!std::isfinite(value)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string format_shortest(std::optional<double> value) {
  if (!value || !std::isfinite(*value)) return "";
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, *value);
  PTXB_ASSERT(ec == std::errc(), "to_chars failed on a double");
  return std::string(buf, end);
}

std::string format_rate(const Rate& rate) {
  // NOTE: appended piece by piece; "literal" + std::string trips GCC 12's -Wrestrict (bug 105651).
  const auto f = rate.fraction();
  std::string out = f ? format_fixed(100 * *f, 1) + "%" : std::string("n/a");
  out += " (";
  out += std::to_string(rate.k);
  out += "/";
  out += std::to_string(rate.n);
  out += ")";
  return out;
}

std::string format_label(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", value);
  return buf;
}

std::string format_threshold(double p) {
  std::string s = format_label(p);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

}  // namespace ptxb
