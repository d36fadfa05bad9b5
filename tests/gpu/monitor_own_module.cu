// A translation unit of its own, so a module of its own: its kernel is launched only by
// MonitorGpu.ItsOwnModuleIsNotForeignALoadedOneIs (test_monitor_gpu.cu), so that with the
// runtime's lazy loading (the default) the module loads inside that test's armed window.
#include <cuda_runtime.h>

namespace ptxb {

__global__ void monitor_own_module_kernel(int* out) { out[threadIdx.x] = 2; }

void launch_own_module_kernel(int* out, cudaStream_t stream) {
  monitor_own_module_kernel<<<1, 32, 0, stream>>>(out);
}

}  // namespace ptxb
