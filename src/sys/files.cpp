#include "sys/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace ptxb {
namespace fs = std::filesystem;

void write_file_atomic(const fs::path& path, std::string_view bytes) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  std::string tmpl = path.string() + ".tmp.XXXXXX";
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw_api("POSIX", "mkstemp", errno, "", std::strerror(errno), __FILE__, __LINE__);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      throw_api("POSIX", "write", err, "", std::strerror(err), __FILE__, __LINE__);
    }
    done += static_cast<size_t>(n);
  }
  ::fchmod(fd, 0644);
  ::close(fd);
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    throw_api("POSIX", "rename", err, "", std::strerror(err), __FILE__, __LINE__);
  }
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string() + ": cannot read file");
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

TempDir::TempDir(std::string_view prefix) {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl =
      std::string(base && *base ? base : "/tmp") + "/" + std::string(prefix) + ".XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr)
    throw_api("POSIX", "mkdtemp", errno, "", std::strerror(errno), __FILE__, __LINE__);
  path_ = tmpl;
}

TempDir::~TempDir() {
  if (keep_) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

// ---- SHA-256 (FIPS 180-4) ----
namespace {
constexpr std::array<uint32_t, 64> kRound{
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void compress(std::array<uint32_t, 8>& h, const uint8_t* block) {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = (uint32_t(block[4 * i]) << 24) | (uint32_t(block[4 * i + 1]) << 16) |
           (uint32_t(block[4 * i + 2]) << 8) | uint32_t(block[4 * i + 3]);
  for (int i = 16; i < 64; ++i) {
    uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (int i = 0; i < 64; ++i) {
    uint32_t s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    uint32_t ch = (e & f) ^ (~e & g);
    uint32_t t1 = hh + s1 + ch + kRound[i] + w[i];
    uint32_t s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    uint32_t t2 = s0 + maj;
    hh = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += hh;
}
}  // namespace

void give_to_user(const fs::path& folder, uint32_t uid) {
  auto give = [uid](const fs::path& p) {
    if (::lchown(p.c_str(), uid, uid) != 0)
      throw_api("POSIX", "lchown(folder handed over)", errno, "", std::strerror(errno), __FILE__,
                __LINE__);
  };
  give(folder);
  for (const auto& entry : fs::recursive_directory_iterator(folder)) give(entry.path());
}

void share_read_only(const fs::path& folder, const fs::path& file, std::optional<uint32_t> group) {
  using fs::perms;
  for (const fs::path& p : {folder, file})
    if (group && ::lchown(p.c_str(), static_cast<uid_t>(-1), *group) != 0)
      throw_api("POSIX", "lchown(folder shared read-only)", errno, "", std::strerror(errno),
                __FILE__, __LINE__);
  fs::permissions(
      file, perms::owner_read | perms::owner_write | (group ? perms::group_read : perms::none));
  fs::permissions(folder,
                  perms::owner_all | (group ? perms::group_read | perms::group_exec : perms::none));
}

std::string sha256_hex(std::string_view bytes) {
  std::array<uint32_t, 8> h{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                            0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  size_t n = bytes.size(), i = 0;
  for (; i + 64 <= n; i += 64) compress(h, data + i);
  uint8_t tail[128] = {};
  size_t rest = n - i;
  std::memcpy(tail, data + i, rest);
  tail[rest] = 0x80;
  size_t tail_len = rest + 1 + 8 <= 64 ? 64 : 128;
  uint64_t bits = uint64_t(n) * 8;
  for (int k = 0; k < 8; ++k) tail[tail_len - 1 - k] = uint8_t(bits >> (8 * k));
  compress(h, tail);
  if (tail_len == 128) compress(h, tail + 64);
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (uint32_t v : h)
    for (int s = 28; s >= 0; s -= 4) out += kHex[(v >> s) & 0xf];
  return out;
}

}  // namespace ptxb
