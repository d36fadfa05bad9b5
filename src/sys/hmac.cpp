#include "sys/hmac.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"
#include "sys/files.hpp"

namespace ptxb {
namespace {

constexpr size_t kBlock = 64;

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string hex_to_bytes(std::string_view hex) {
  if (hex.size() % 2 != 0) throw InputError("hex string of odd length");
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) throw InputError("not a hex digit in '" + std::string(hex) + "'");
    out[i] = static_cast<char>(hi * 16 + lo);
  }
  return out;
}

std::string hmac_sha256_hex(std::string_view key, std::string_view message) {
  std::string k = key.size() > kBlock ? hex_to_bytes(sha256_hex(key)) : std::string(key);
  k.resize(kBlock, '\0');
  std::string inner(kBlock, '\0'), outer(kBlock, '\0');
  for (size_t i = 0; i < kBlock; ++i) {
    inner[i] = static_cast<char>(k[i] ^ 0x36);
    outer[i] = static_cast<char>(k[i] ^ 0x5c);
  }
  inner.append(message);
  outer.append(hex_to_bytes(sha256_hex(inner)));
  return sha256_hex(outer);
}

std::string random_hex(size_t bytes) {
  std::string raw(bytes, '\0');
  size_t got = 0;
  while (got < bytes) {
    const ssize_t n = ::getrandom(raw.data() + got, bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw_api("POSIX", "getrandom", errno, "", std::strerror(errno), __FILE__, __LINE__);
    got += static_cast<size_t>(n);
  }
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

}  // namespace ptxb
