#include "llm/gpu_pool.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace ptxb {

GpuPool::GpuPool(std::vector<int> devices) : free_(std::move(devices)), devices_(free_.size()) {
  if (free_.empty()) throw InputError("the judge needs at least one GPU index");
}

int GpuPool::acquire() {
  std::unique_lock<std::mutex> lock(mutex_);
  freed_.wait(lock, [&] { return !free_.empty() || lost_.size() == devices_; });
  if (free_.empty()) {
    std::string why = "every GPU of this judge was lost";
    for (const std::string& r : lost_reasons_) why += "; " + r;
    throw GpuLost(why);
  }
  const int device = free_.back();
  free_.pop_back();
  return device;
}

bool GpuPool::release(int device, std::optional<bool> had_gpu, const std::string& why) {
  bool now_lost = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (had_gpu == true) worked_.insert(device);
    now_lost = had_gpu == false && worked_.count(device) != 0;
    if (now_lost) {
      lost_.push_back(device);
      lost_reasons_.push_back("GPU " + std::to_string(device) + ": " + why);
    } else {
      free_.push_back(device);
    }
  }
  // A lost device may have been the last: waiters must learn that there is none to wait for.
  if (now_lost)
    freed_.notify_all();
  else
    freed_.notify_one();
  return now_lost;
}

std::vector<std::string> GpuPool::lost_reasons() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lost_reasons_;
}

std::vector<int> GpuPool::lost() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lost_;
}

}  // namespace ptxb
