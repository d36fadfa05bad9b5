// Programmatic dependent launch (sm_90). A kernel launched as a programmatic dependent of the
// kernel before it on its stream (launch_programmatic) may start once every CTA of that kernel
// called griddep_launch_dependents or exited; before it reads what that kernel wrote it calls
// griddep_wait, which returns when that grid has completed and its writes are visible.
#pragma once

#include <cuda_runtime.h>

__device__ __forceinline__ void griddep_launch_dependents() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}
__device__ __forceinline__ void griddep_wait() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
}

// `kernel` on `grid` CTAs of `block` threads with `smem` bytes of dynamic shared memory on
// `stream`: a programmatic dependent of the kernel before it when `dependent`, else an ordinary
// launch.
template <typename... Params, typename... Args>
cudaError_t launch_programmatic(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem,
                                cudaStream_t stream, bool dependent, Args... args) {
  cudaLaunchAttribute attribute = {};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = dependent ? 1 : 0;
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, args...);
}
