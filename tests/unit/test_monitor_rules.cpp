// The CUPTI monitor's parameter rules (worker/monitor_rules.hpp) on parameter structs built
// the way CUPTI passes them: persisting-L2 limits and L2 access-policy windows are violations,
// other limits and launch attributes are not; pointer queries and module loads count only as direct
// calls.
#include <gtest/gtest.h>

#include <cuda.h>
#include <cuda_runtime.h>
#include <generated_cuda_runtime_api_meta.h>

#include "worker/monitor_rules.hpp"

namespace ptxb {
namespace {

TEST(MonitorRules, PersistingL2LimitsAreViolationsOtherLimitsAreNot) {
  cudaDeviceSetLimit_v3020_params runtime{cudaLimitPersistingL2CacheSize, 1 << 20};
  EXPECT_EQ(forbidden_parameters("cudaDeviceSetLimit", &runtime),
            "cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize)");
  runtime.limit = cudaLimitStackSize;
  EXPECT_EQ(forbidden_parameters("cudaDeviceSetLimit", &runtime), "");
  struct {
    CUlimit limit;
    size_t value;
  } driver{CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 1 << 20};
  EXPECT_NE(forbidden_parameters("cuCtxSetLimit", &driver), "");
  driver.limit = CU_LIMIT_PRINTF_FIFO_SIZE;
  EXPECT_EQ(forbidden_parameters("cuCtxSetLimit", &driver), "");
  EXPECT_EQ(forbidden_parameters("cuCtxSetLimit", nullptr), "");
}

TEST(MonitorRules, AnAccessPolicyWindowAmongLaunchAttributesIsAViolation) {
  cudaLaunchAttribute attrs[2] = {};
  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[1].id = cudaLaunchAttributeAccessPolicyWindow;
  cudaLaunchConfig_t config{};
  config.attrs = attrs;
  config.numAttrs = 1;
  cudaLaunchKernelExC_v11060_params runtime{&config, nullptr, nullptr};
  EXPECT_EQ(forbidden_parameters("cudaLaunchKernelExC", &runtime), "") << "a cluster is fine";
  config.numAttrs = 2;
  EXPECT_NE(forbidden_parameters("cudaLaunchKernelExC", &runtime), "");

  CUlaunchAttribute driver_attrs[1] = {};
  driver_attrs[0].id = CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW;
  CUlaunchConfig driver_config{};
  driver_config.attrs = driver_attrs;
  driver_config.numAttrs = 1;
  struct {
    const CUlaunchConfig* config;
    CUfunction f;
    void** params;
    void** extra;
  } driver{&driver_config, nullptr, nullptr, nullptr};
  EXPECT_NE(forbidden_parameters("cuLaunchKernelEx", &driver), "");
}

TEST(MonitorRules, WhichNamesAreInspectedAndWhichAreDirectOnly) {
  EXPECT_TRUE(has_inspected_parameters("cudaLaunchKernelExC"));
  EXPECT_FALSE(has_inspected_parameters("cudaLaunchKernel"));
  EXPECT_TRUE(is_direct_call_forbidden_api("cuMemGetAddressRange"));
  EXPECT_TRUE(is_direct_call_forbidden_api("cuPointerGetAttributes"));
  EXPECT_FALSE(is_direct_call_forbidden_api("cuMemcpyAsync"));
  // Module loads: code the static stage never listed.
  for (const char* load : {"cuModuleLoad", "cuModuleLoadData", "cuModuleLoadDataEx",
                           "cuModuleLoadFatBinary", "cuLibraryLoadFromFile", "cuLinkCreate",
                           "cuLinkAddData", "cuLinkAddFile", "cuLinkComplete"})
    EXPECT_TRUE(is_direct_call_forbidden_api(load)) << load;
  // The runtime loads the candidate's own fat binary by it, outside its API calls: the own-code
  // rule judges what it brings.
  EXPECT_FALSE(is_direct_call_forbidden_api("cuLibraryLoadData"));
  // Looking up a function of a module already loaded is not a load.
  EXPECT_FALSE(is_direct_call_forbidden_api("cuModuleGetFunction"));
  EXPECT_FALSE(is_direct_call_forbidden_api("cuLibraryGetKernel"));
}

}  // namespace
}  // namespace ptxb
