// HMAC-SHA256 (RFC 2104) over the project's own SHA-256, and random keys. The worker signs each
// protocol message with a per-job key so that lines candidate code writes to the result channel
// are recognised as forged (docs/threat-model.md).
#pragma once

#include <string>
#include <string_view>

namespace ptxb {

/// Lower-case hex HMAC-SHA256 of `message` under `key` (raw bytes).
std::string hmac_sha256_hex(std::string_view key, std::string_view message);

/// `bytes` random bytes from the kernel (getrandom), as lower-case hex. Throws ApiError on failure.
std::string random_hex(size_t bytes);

/// Raw bytes of a hex string; throws InputError on odd length or a non-hex digit.
std::string hex_to_bytes(std::string_view hex);

}  // namespace ptxb
