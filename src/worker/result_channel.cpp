#include <unistd.h>

#include <cerrno>

#include "core/error.hpp"
#include "protocol/protocol.hpp"
#include "worker/result_channel.hpp"

namespace ptxb {

using nlohmann::json;

void ResultChannel::send(const json& message) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  const std::string line = signed_message_line(message, seq_++, key_);
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw_api("POSIX", "write(result fd)", errno, "", "", __FILE__, __LINE__);
    done += static_cast<size_t>(n);
  }
}

}  // namespace ptxb
