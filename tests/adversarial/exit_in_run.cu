// Hostile submission: exit(0) inside ptxb_run.
//
// Attack: the first ptxb_run calls exit(0). The worker ends with status 0, having run its own
// atexit handlers but never sent its remaining case lines or "done"; a harness that trusted the
// exit status (or a missing failure) would see a clean run.
// Caught by: the parent: the worker ended before finishing (no "done" message) whatever its exit
// status: outcome crashed.
// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=crashed
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <cstdint>
#include <cstdlib>
#include <optional>

namespace {

// ==== begin tests/adversarial/blocks/problem_checks.inc (generated: scripts/amalgamate.py) ====
// The problem checks of a hostile GEMM submission: is the problem C = A * B^T in row-major bf16?
// Hostile files hold a copy (scripts/amalgamate.py).
struct GemmDims {
  int M = 0, N = 0, K = 0;
};

bool is_row_major_2d(const ptxb_tensor_desc& t, int64_t rows, int64_t cols) {
  return t.dtype == PTXB_BF16 && t.rank == 2 && t.shape[0] == rows && t.shape[1] == cols &&
         t.strides[0] == cols && t.strides[1] == 1;
}

// The GEMM's dimensions, or nullopt when the problem is not C = A * B^T in row-major bf16 with
// K % 8 == 0 and every dimension in int range.
std::optional<GemmDims> gemm_dims(const ptxb_problem& p) {
  if (p.num_inputs != 2 || p.num_outputs != 1) return std::nullopt;
  const int64_t M = p.inputs[0].shape[0], K = p.inputs[0].shape[1], N = p.inputs[1].shape[0];
  if (M <= 0 || N <= 0 || K <= 0 || K % 8 != 0 || M > INT32_MAX || N > INT32_MAX || K > INT32_MAX)
    return std::nullopt;
  if (!is_row_major_2d(p.inputs[0], M, K) || !is_row_major_2d(p.inputs[1], N, K) ||
      !is_row_major_2d(p.outputs[0], M, N))
    return std::nullopt;
  return GemmDims{static_cast<int>(M), static_cast<int>(N), static_cast<int>(K)};
}

enum Status : int { kBadProblem = 1, kLaunchFailed = 3, kAttackFailed = 7 };
// ==== end tests/adversarial/blocks/problem_checks.inc ====

}  // namespace

extern "C" int ptxb_run(const ptxb_args* args) {
  if (!gemm_dims(*args->problem)) return kBadProblem;
  std::exit(0);
}
