// The worker's outbound side of the protocol (protocol/protocol.hpp), and the error that marks a
// CUDA failure as the candidate's.
#pragma once

#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace ptxb {

/// Writes protocol messages (one signed JSON object per line, protocol/protocol.hpp) to a file
/// descriptor. Safe to call from several threads (the watchdog sends from its own).
class ResultChannel {
 public:
  ResultChannel(int fd, std::string key) : fd_(fd), key_(std::move(key)) {}
  void send(const nlohmann::json& message) const;

 private:
  int fd_;
  std::string key_;
  mutable std::mutex mutex_;
  mutable uint64_t seq_ = 0;
};

/// A CUDA error surfaced after candidate code ran: the process's context is unusable.
class CandidateFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ptxb
