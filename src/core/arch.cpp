#include "core/arch.hpp"

namespace ptxb {

const std::vector<Arch>& known_arch_list() {
  // NOTE: per-SM rates from NVIDIA's H100 SXM and B200 datasheets (dense, without sparsity):
  // 989 TFLOP/s bf16 over 132 SMs at 1.83 GHz is 4096 per SM per clock; B200 twice that per SM.
  static const std::vector<Arch> kArchs = {
      {"sm_90a", "sm90", "arch=compute_90a,code=sm_90a", 90, true, 4096, 8192},
      {"sm_100a", "sm100", "arch=compute_100a,code=sm_100a", 100, false, 8192, 16384}};
  return kArchs;
}

const std::vector<std::string>& known_archs() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const Arch& a : known_arch_list()) names.push_back(a.name);
    return names;
  }();
  return kNames;
}

const Arch* find_arch(std::string_view name) {
  for (const Arch& a : known_arch_list())
    if (a.name == name) return &a;
  return nullptr;
}

const Arch* arch_for_device(int major, int minor) {
  for (const Arch& a : known_arch_list())
    if (a.compute_capability == major * 10 + minor) return &a;
  return nullptr;
}

}  // namespace ptxb
