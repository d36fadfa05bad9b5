// The one check-macro family for GPU APIs (CUDA runtime, cuBLASLt). Every failure goes through
// ptxb::throw_api with API, call, code, name and text.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include "core/error.hpp"

#define PTXB_CHECK_CUDA(call)                                                  \
  do {                                                                         \
    cudaError_t ptxb_err_ = (call);                                            \
    if (ptxb_err_ != cudaSuccess)                                              \
      ::ptxb::throw_api("CUDA", #call, ptxb_err_, cudaGetErrorName(ptxb_err_), \
                        cudaGetErrorString(ptxb_err_), __FILE__, __LINE__);    \
  } while (0)

#define PTXB_CHECK_CUBLAS(call)                                                       \
  do {                                                                                \
    cublasStatus_t ptxb_st_ = (call);                                                 \
    if (ptxb_st_ != CUBLAS_STATUS_SUCCESS)                                            \
      ::ptxb::throw_api("cuBLASLt", #call, ptxb_st_, cublasLtGetStatusName(ptxb_st_), \
                        cublasLtGetStatusString(ptxb_st_), __FILE__, __LINE__);       \
  } while (0)
