// The CUPTI monitor's rules that need more than a function's name (docs/threat-model.md): calls
// whose parameters break the ABI (a persisting-L2 limit, an L2 access-policy window among launch
// attributes), and calls that are forbidden only when candidate code makes them itself (pointer
// and address-range queries, module loads: the CUDA runtime also makes them inside its own calls).
#pragma once

#include <string>
#include <string_view>

namespace ptxb {

/// True for the base names (no "_v2"/"_ptsz" suffix) whose parameters forbidden_parameters reads:
/// cudaDeviceSetLimit, cuCtxSetLimit, cudaLaunchKernelExC, cuLaunchKernelEx.
bool has_inspected_parameters(std::string_view base_name);

/// Why the call `base_name` with CUPTI's `functionParams` breaks the ABI, "" when it does not:
/// "cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize)", "cuLaunchKernelEx with an L2
/// access-policy window".
std::string forbidden_parameters(std::string_view base_name, const void* params);

/// Pointer and address-range queries (cuPointerGetAttribute(s), cuMemGetAddressRange,
/// cuMemRetainAllocationHandle): a candidate could walk the process's allocations with them. And
/// the driver's module, library-file and JIT-link loads (cuModuleLoad*, cuLibraryLoadFromFile,
/// cuLink*): code loaded at run time is absent from the static listing every static rule reads
/// (the library kernels' names, the other-read selection). Not cuLibraryLoadData, which the
/// runtime calls outside its API calls for the candidate's own fat binary (the monitor's own-code
/// rule judges what it loads). Forbidden when called directly, not when the runtime calls them
/// inside one of its own calls.
bool is_direct_call_forbidden_api(std::string_view base_name);

}  // namespace ptxb
