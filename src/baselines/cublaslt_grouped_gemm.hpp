// The grouped GEMM baseline (family gemm_grouped): C[off_g:off_g+1] = A[off_g:off_g+1] * B_g^T for
// every non-empty group g, on the caller's stream. cuBLASLt 13.1 has no grouped GEMM for Hopper;
// the library's two ways are one cuBLASLt bf16 matmul per non-empty group (the loop) and one
// cublasGemmGroupedBatchedEx call with a group per non-empty expert; tune() times both on the
// shape's real inputs and keeps the faster. Both are given the group sizes on the host
// (cuda/host_mirror.hpp, recorded where the harness uploads the offsets): an advantage the
// candidate, which sees the offsets on the device only, does not get (docs/tasks.md).
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <tuple>
#include <vector>

#include "cuda/device.hpp"
#include "timing/implementation.hpp"

namespace ptxb {

class CublasLtGroupedGemm final : public Implementation {
 public:
  /// `heuristic_algos`: algorithms asked of the heuristic per row bucket (the first is used).
  CublasLtGroupedGemm(int heuristic_algos, int64_t workspace_bytes);
  ~CublasLtGroupedGemm() override;
  CublasLtGroupedGemm(const CublasLtGroupedGemm&) = delete;
  CublasLtGroupedGemm& operator=(const CublasLtGroupedGemm&) = delete;

  std::string name() const override { return "cublaslt"; }
  /// Checks the problem (A bf16 [M, K], B bf16 [G, N, K], offsets int32 [G+1], C bf16 or f32
  /// [M, N]) and picks, for every power-of-two bucket of group rows up to M, the heuristic's first
  /// algorithm at that many rows. Non-zero with plan_report()["error"] when unsupported.
  int plan(const ptxb_problem& problem, uint64_t* workspace_bytes) override;
  /// Times both paths on args' buffers (1 warm-up, median of 5 each, synchronizing) and keeps
  /// the faster; a path cuBLAS refuses is reported and never chosen. plan_report() gets "paths"
  /// and "chosen_path". 7 when the offsets have no host record, 100 + status when the loop fails.
  int tune(const ptxb_args& args) override;
  /// The chosen path (the loop until tune() chose): no synchronization; device pointer arrays of
  /// the grouped call are built on the first call with a new set of buffers or group sizes (a
  /// warm-up). 7 when the offsets have no host record, 100 + status when cuBLAS(Lt) fails.
  int run(const ptxb_args& args) override;
  nlohmann::json plan_report() const override { return report_; }

  enum class Path { kLoop, kGroupedBatched };
  /// Forces a path (tests); tune() chooses otherwise.
  void use_path(Path path) { path_ = path; }

 private:
  struct PointerArrays;  // one grouped call's device pointer arrays and host size arrays
  void release();
  int run_loop(const ptxb_args& args, const std::vector<int64_t>& offsets);
  int run_grouped_batched(const ptxb_args& args, const std::vector<int64_t>& offsets);
  /// One group's product: `rows` rows of A and C at `a` and `c`, its weight B_g at `b`.
  cublasStatus_t group_matmul(const void* a, const void* b, void* c, int64_t rows,
                              cudaStream_t stream);

  int heuristic_algos_;
  cublasLtHandle_t handle_ = nullptr;
  cublasHandle_t blas_ = nullptr;  // cublasGemmGroupedBatchedEx
  Path path_ = Path::kLoop;
  /// (A, B, C) -> their pointer arrays; rebuilt when the group sizes change.
  std::map<std::tuple<const void*, const void*, void*>, std::unique_ptr<PointerArrays>> arrays_;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t layout_b_ = nullptr, layout_a_ = nullptr, layout_c_ = nullptr;
  DeviceBuffer workspace_;
  int64_t groups_ = 0, N_ = 0, K_ = 0;
  size_t c_element_bytes_ = 2;
  /// Bucket (a power of two >= the group's rows) -> the heuristic's first algorithm there.
  std::map<int64_t, cublasLtMatmulAlgo_t> algo_by_rows_;
  bool planned_ = false;
  nlohmann::json report_;
};

}  // namespace ptxb
