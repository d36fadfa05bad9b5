// The GPUs a judge hands out, one evaluation at a time each, and the ones it lost. A device whose
// worker judged with a GPU before and then found no CUDA device at all is lost: it is never
// handed out again, so a GPU that dies in a long run (or that a hostile kernel took down) turns
// into a stop, not into a row of `unavailable` verdicts. A device that never had a GPU (a machine
// without one: the static stage) is not lost; its verdicts say `unavailable` as before.
#pragma once

#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace ptxb {

/// Every device of a judge was lost: nothing more can be judged until it is restarted.
class GpuLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class GpuPool {
 public:
  /// `devices`: device indices, at least one (InputError otherwise).
  explicit GpuPool(std::vector<int> devices);

  /// A free device; blocks while all are busy. Throws GpuLost once every device is lost (also to
  /// callers already waiting).
  int acquire();

  /// Gives `device` back after an evaluation. `had_gpu`: whether its worker found a CUDA device
  /// (nullopt: the evaluation did not get that far). Returns true when this made the device lost
  /// (it had a GPU in an earlier evaluation and none now); a lost device is not given back, and
  /// `why` is kept for lost_reasons().
  bool release(int device, std::optional<bool> had_gpu, const std::string& why = "");

  /// The lost devices and why, "GPU 1: <worker message>", in the order they were lost.
  std::vector<std::string> lost_reasons() const;
  std::vector<int> lost() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<int> free_;
  size_t devices_ = 0;
  std::set<int> worked_;  ///< devices whose worker found a GPU at least once
  std::vector<int> lost_;
  std::vector<std::string> lost_reasons_;
};

}  // namespace ptxb
