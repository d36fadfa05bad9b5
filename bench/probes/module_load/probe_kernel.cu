// The probe's stand-in for a candidate (module_load_probe.cpp): one kernel, launched by an
// exported function after raising its shared-memory limit, as candidates do in ptxb_plan/ptxb_run.
#include <cuda_runtime.h>

__global__ void probe_kernel(int* out) {
  extern __shared__ int scratch[];
  scratch[threadIdx.x] = threadIdx.x;
  if (out != nullptr) out[threadIdx.x] = scratch[threadIdx.x];
}

extern "C" int probe_run(void* stream) {
  if (cudaFuncSetAttribute(probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024) !=
      cudaSuccess)
    return 1;
  probe_kernel<<<1, 32, 32 * sizeof(int), static_cast<cudaStream_t>(stream)>>>(nullptr);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
