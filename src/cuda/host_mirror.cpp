#include "cuda/host_mirror.hpp"

#include <map>
#include <utility>

namespace ptxb {
namespace {

std::map<const void*, std::vector<int64_t>>& mirrors() {
  static std::map<const void*, std::vector<int64_t>> kMirrors;
  return kMirrors;
}

}  // namespace

void mirror_host_integers(const void* device, std::vector<int64_t> values) {
  mirrors()[device] = std::move(values);
}

const std::vector<int64_t>* mirrored_host_integers(const void* device) {
  const auto it = mirrors().find(device);
  return it == mirrors().end() ? nullptr : &it->second;
}

void forget_mirror(const void* device) { mirrors().erase(device); }

}  // namespace ptxb
