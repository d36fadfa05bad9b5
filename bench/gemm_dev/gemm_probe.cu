// A small GEMM harness for profiling expert variants outside the judge: loads a submission built
// as a shared object (the ABI of include/ptxbench/abi.h), runs one C = A * B^T bf16 shape with
// random inputs, times it and cuBLASLt (the heuristic's first algorithm, no workspace limit of
// the judge) by CUDA events with an L2 flush and a short spin kernel (the host side of the call
// is enqueued while it runs) before every call, interleaved, and checks the submission's C
// against the library's (max abs difference). Not the judge's protocol: a quick look, and a
// process small enough to run under ncu (bench/gemm_dev/probe.sh).
// Usage: gemm_probe KERNEL.so M N K [CALLS=20]; PROBE_NO_LIBRARY=1 runs the kernel only (for ncu).
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "probe_common.hpp"

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s KERNEL.so M N K [CALLS]\n", argv[0]);
    return 2;
  }
  const int64_t M = std::atoll(argv[2]), N = std::atoll(argv[3]), K = std::atoll(argv[4]);
  const int calls = argc > 5 ? std::atoi(argv[5]) : 20;
  const Submission sub = load_submission(argv[1]);
  const GemmCall call(sub, M, N, K);
  void* c_lib = nullptr;
  CHECK(cudaMalloc(&c_lib, M * N * 2));

  // cuBLASLt: column-major C^T (N x M) = B (K x N as stored, transposed) * A (K x M as stored).
  cublasLtHandle_t lt;
  CHECK(cublasLtCreate(&lt));
  cublasLtMatmulDesc_t op;
  CHECK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
  CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof(transa)));
  CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof(transb)));
  cublasLtMatrixLayout_t la, lb, lc;
  CHECK(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, K, N, K));
  CHECK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, K, M, K));
  CHECK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, N, M, N));
  const size_t lt_workspace_bytes = size_t{64} << 20;
  void* lt_workspace = nullptr;
  CHECK(cudaMalloc(&lt_workspace, lt_workspace_bytes));
  cublasLtMatmulPreference_t pref;
  CHECK(cublasLtMatmulPreferenceCreate(&pref));
  CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                             &lt_workspace_bytes, sizeof(lt_workspace_bytes)));
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  CHECK(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &heuristic, &found));
  if (found == 0) {
    std::fprintf(stderr, "cuBLASLt offers no algorithm\n");
    return 1;
  }
  const float alpha = 1.f, beta = 0.f;
  auto library = [&] {
    return cublasLtMatmul(lt, op, &alpha, call.b, la, call.a, lb, &beta, c_lib, lc, c_lib, lc,
                          &heuristic.algo, lt_workspace, lt_workspace_bytes, call.stream);
  };

  const bool with_library = std::getenv("PROBE_NO_LIBRARY") == nullptr;
  ColdTimer timer(call.stream);
  std::vector<double> mine, lib;
  for (int i = 0; i < calls + 3; ++i) {
    const double us = timer.time_us(i, [&] { return sub.run(&call.args); });
    if (i >= 3) mine.push_back(us);
    if (!with_library) continue;
    const double lib_us = timer.time_us(i, library);
    if (i >= 3) lib.push_back(lib_us);
  }
  if (!with_library) {
    std::printf("%lldx%lldx%lld  kernel %.1f us\n", static_cast<long long>(M),
                static_cast<long long>(N), static_cast<long long>(K), median(mine));
    return 0;
  }
  std::vector<__nv_bfloat16> got(static_cast<size_t>(M * N)), want(got.size());
  CHECK(cudaMemcpy(got.data(), call.c, got.size() * 2, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(want.data(), c_lib, want.size() * 2, cudaMemcpyDeviceToHost));
  double max_diff = 0.0;
  for (size_t i = 0; i < got.size(); ++i)
    max_diff = std::max(max_diff, std::fabs(static_cast<double>(__bfloat162float(got[i])) -
                                            static_cast<double>(__bfloat162float(want[i]))));
  const double flop =
      2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  const double us = median(mine), lib_us = median(lib);
  std::printf(
      "%lldx%lldx%lld  kernel %.1f us %.0f TFLOP/s  cublasLt %.1f us %.0f TFLOP/s  "
      "ratio %.3f  max|diff| %.3g\n",
      static_cast<long long>(M), static_cast<long long>(N), static_cast<long long>(K), us,
      flop / us * 1e-6, lib_us, flop / lib_us * 1e-6, lib_us / us, max_diff);
  return 0;
}
