// libcupti, opened once per process with dlopen (PTXBench never links it): the CUPTI monitor and
// the range profiler of the timing stage share one handle, hence one CUPTI instance.
#pragma once

#include <cuda.h>
#include <cupti.h>

#include <string>

namespace ptxb {

/// The process's libcupti handle, or nullptr with *why_not set (the paths tried). Tries
/// "libcupti.so.13", "libcupti.so", then $CUDA_HOME and /usr/local/cuda under
/// {extras/CUPTI/lib64, lib64, lib}/libcupti.so.13. Opened once, never closed (CUPTI keeps
/// threads).
void* cupti_library(std::string* why_not);

/// cuptiGetResultString's text for `result`, or "CUptiResult N" when the library cannot say.
std::string cupti_result_text(CUptiResult result);

/// Looks `symbol` up in the CUPTI library; nullptr with *why_not = "libcupti lacks SYMBOL".
void* cupti_symbol(const char* symbol, std::string* why_not);

}  // namespace ptxb

namespace ptxb {

/// The calling thread's current CUDA context, through the driver entry point cudart exposes (the
/// worker links no libcuda). Throws ApiError when it cannot be read.
CUcontext current_cuda_context();

}  // namespace ptxb
