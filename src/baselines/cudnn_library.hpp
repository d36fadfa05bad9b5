// cuDNN opened at run time: the worker links no libcudnn, so that it starts on machines without
// one. cudnn-frontend is compiled with NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING: it resolves every
// cuDNN call with dlsym on the handle this file opens, and every CUDA runtime call it makes itself
// on a libcudart.so of its own (PTXBench's own code uses the static runtime; both drive the same
// primary context). Only the cuDNN translation units include this header.
#pragma once

#include <cudnn.h>

#include <cudnn_frontend.h>
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.hpp"

namespace ptxb {

/// The process's one cuDNN. The frontend caches symbols in function-local statics, so the library
/// is opened once per process and never closed; the first open() decides which file it is.
class CudnnLibrary {
 public:
  /// Opens `library` (a soname searched the dlopen way, or a path) and the CUDA 13 runtime the
  /// frontend calls. Never throws: a missing library leaves loaded() false and says why in
  /// error(). Thread-safe; later calls return the first call's result whatever they pass.
  static const CudnnLibrary& open(const std::string& library);

  bool loaded() const { return error_.empty(); }
  /// Why the library could not be used (dlopen's text), empty when loaded().
  const std::string& error() const { return error_; }
  /// cudnnGetVersion() of the loaded library (e.g. 91400 for 9.14.0); 0 when not loaded.
  size_t version() const { return version_; }
  /// Versions, the files actually loaded (libcudnn*, libnvrtc*, libcudart*) and the frontend's
  /// own version, for plan reports. Reads the process's loaded-object list at each call.
  nlohmann::json describe() const;

 private:
  CudnnLibrary() = default;
  std::string requested_, path_, cudart_path_, error_;
  size_t version_ = 0;
};

/// "9.14.0" from cudnnGetVersion()'s 91400 (cuDNN 9 numbering: major*10000 + minor*100 + patch).
std::string cudnn_version_string(size_t version);

/// The frontend's error code as its enumerator name ("GRAPH_NOT_SUPPORTED").
const char* frontend_error_name(cudnn_frontend::error_code_t code);

/// A cudnnHandle_t bound to the current device, created through the frontend's loader.
/// Non-copyable.
class CudnnHandle {
 public:
  CudnnHandle();  ///< throws ApiError (through PTXB_CHECK_CUDNN) when cudnnCreate fails
  ~CudnnHandle();
  CudnnHandle(const CudnnHandle&) = delete;
  CudnnHandle& operator=(const CudnnHandle&) = delete;
  cudnnHandle_t get() const { return handle_; }

 private:
  cudnnHandle_t handle_ = nullptr;
};

}  // namespace ptxb

// The cuDNN members of the check-macro family of cuda/cuda_check.hpp (same single throw site,
// ptxb::throw_api). They live here so that only the cuDNN translation units see cuDNN's headers.
#define PTXB_CHECK_CUDNN(call)                                                                   \
  do {                                                                                           \
    const cudnnStatus_t ptxb_st_ = (call);                                                       \
    if (ptxb_st_ != CUDNN_STATUS_SUCCESS)                                                        \
      ::ptxb::throw_api("cuDNN", #call, ptxb_st_,                                                \
                        ::cudnn_frontend::detail::get_error_string(ptxb_st_),                    \
                        ::cudnn_frontend::detail::get_last_error_string_(), __FILE__, __LINE__); \
  } while (0)

#define PTXB_CHECK_CUDNN_FE(call)                                                                 \
  do {                                                                                            \
    ::cudnn_frontend::error_t ptxb_fe_ = (call);                                                  \
    if (ptxb_fe_.is_bad())                                                                        \
      ::ptxb::throw_api("cudnn-frontend", #call, static_cast<long long>(ptxb_fe_.get_code()),     \
                        ::ptxb::frontend_error_name(ptxb_fe_.get_code()), ptxb_fe_.get_message(), \
                        __FILE__, __LINE__);                                                      \
  } while (0)
