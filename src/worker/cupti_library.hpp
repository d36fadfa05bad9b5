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

/// `*out` bound to `symbol` of the CUPTI library (cupti_symbol); false with *why_not when it is
/// missing.
template <typename Fn>
bool bind_cupti(const char* symbol, Fn* out, std::string* why_not) {
  *out = reinterpret_cast<Fn>(cupti_symbol(symbol, why_not));
  return *out != nullptr;
}

/// A CUPTI parameter struct, zeroed, with its size set (the API checks it).
template <typename Params>
Params cupti_params(size_t struct_size) {
  Params p{};
  p.structSize = struct_size;
  return p;
}

/// Throws ApiError for CUPTI call `call` that returned `result` (its text from
/// cupti_result_text): the one throw site of PTXB_CHECK_CUPTI.
[[noreturn]] void throw_cupti(CUptiResult result, const char* call, const char* file, int line);

}  // namespace ptxb

/// The one check for CUPTI calls: a result other than CUPTI_SUCCESS throws ApiError.
#define PTXB_CHECK_CUPTI(call)                                                                     \
  do {                                                                                             \
    const CUptiResult ptxb_cupti_ = (call);                                                        \
    if (ptxb_cupti_ != CUPTI_SUCCESS) ::ptxb::throw_cupti(ptxb_cupti_, #call, __FILE__, __LINE__); \
  } while (0)

namespace ptxb {

/// The calling thread's current CUDA context, through the driver entry point cudart exposes (the
/// worker links no libcuda). Throws ApiError when it cannot be read.
CUcontext current_cuda_context();

}  // namespace ptxb
