#include "worker/monitor_rules.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
// NOTE: CUPTI's generated header gives the runtime's parameter structs its callbacks pass.
#include <generated_cuda_runtime_api_meta.h>

#include <algorithm>
#include <array>

namespace ptxb {
namespace {

// The driver's parameter structs, as generated_cuda_meta.h declares them (that header does not
// compile on its own with CUDA 13.0: it names removed _v1 types).
struct CtxSetLimitParams {
  CUlimit limit;
  size_t value;
};
struct LaunchKernelExParams {
  const CUlaunchConfig* config;
  CUfunction f;
  void** kernel_params;
  void** extra;
};

template <typename Attribute>
bool has_access_policy_window(const Attribute* attrs, unsigned count, int window_id) {
  if (attrs == nullptr) return false;
  return std::any_of(attrs, attrs + count,
                     [&](const Attribute& a) { return static_cast<int>(a.id) == window_id; });
}

}  // namespace

bool has_inspected_parameters(std::string_view base_name) {
  constexpr std::array<std::string_view, 4> kNames = {"cudaDeviceSetLimit", "cuCtxSetLimit",
                                                      "cudaLaunchKernelExC", "cuLaunchKernelEx"};
  return std::find(kNames.begin(), kNames.end(), base_name) != kNames.end();
}

std::string forbidden_parameters(std::string_view base_name, const void* params) {
  if (params == nullptr) return "";
  if (base_name == "cudaDeviceSetLimit") {
    const auto* p = static_cast<const cudaDeviceSetLimit_v3020_params*>(params);
    if (p->limit == cudaLimitPersistingL2CacheSize)
      return "cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize)";
  } else if (base_name == "cuCtxSetLimit") {
    const auto* p = static_cast<const CtxSetLimitParams*>(params);
    if (p->limit == CU_LIMIT_PERSISTING_L2_CACHE_SIZE)
      return "cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE)";
  } else if (base_name == "cudaLaunchKernelExC") {
    const auto* p = static_cast<const cudaLaunchKernelExC_v11060_params*>(params);
    if (p->config != nullptr && has_access_policy_window(p->config->attrs, p->config->numAttrs,
                                                         cudaLaunchAttributeAccessPolicyWindow))
      return "cudaLaunchKernelExC with an L2 access-policy window";
  } else if (base_name == "cuLaunchKernelEx") {
    const auto* p = static_cast<const LaunchKernelExParams*>(params);
    if (p->config != nullptr && has_access_policy_window(p->config->attrs, p->config->numAttrs,
                                                         CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW))
      return "cuLaunchKernelEx with an L2 access-policy window";
  }
  return "";
}

bool is_direct_call_forbidden_api(std::string_view base_name) {
  constexpr std::array<std::string_view, 13> kNames = {
      // what lies where in the process
      "cuPointerGetAttribute", "cuPointerGetAttributes", "cuMemGetAddressRange",
      "cuMemRetainAllocationHandle",
      // device code the static stage never saw: modules and libraries loaded or linked at run
      // time. NOTE: not cuLibraryLoadData, which the runtime itself calls for the candidate's own
      // fat binary at its first launch of one of its kernels, before the launch's API callback
      // (H100, 2026-12-06): what any library load brings is checked by the own-code rule
      // (CandidateMonitor::set_own_device_code).
      "cuModuleLoad", "cuModuleLoadData", "cuModuleLoadDataEx", "cuModuleLoadFatBinary",
      "cuLibraryLoadFromFile", "cuLinkCreate", "cuLinkAddData", "cuLinkAddFile", "cuLinkComplete"};
  return std::find(kNames.begin(), kNames.end(), base_name) != kNames.end();
}

}  // namespace ptxb
