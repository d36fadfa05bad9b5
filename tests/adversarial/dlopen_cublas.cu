// Hostile submission: cuBLAS loaded at run time (reward hack 8, hidden from the import scan).
//
// Attack: nothing from cuBLAS is imported at link time (the static stage flags DT_NEEDED entries
// and undefined symbols naming cublas, not strings). At the first ptxb_run the file dlopen()s
// libcublas.so.13 (then .so.12, .so), resolves cublasCreate_v2 / cublasSetStream_v2 / cublasGemmEx
// through dlsym and computes C = A * B^T with cublasGemmEx on args->stream: a correct result made
// entirely by library kernels. If no cuBLAS can be loaded, ptxb_run returns an error (incorrect).
// Caught by: the CUPTI monitor (kernels whose function is not in the candidate's cubin; the
// device allocations cublasCreate makes) and the host-state comparison (newly mapped shared
// libraries: libcublas.so.13).
// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=rejected_cheat
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <dlfcn.h>

#include <cstdint>
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

// cuBLAS types and constants, spelled out so that no cuBLAS header is needed (cublas_api.h, 13.0).
using CublasHandle = void*;
using CublasCreateFn = int (*)(CublasHandle*);
using CublasSetStreamFn = int (*)(CublasHandle, cudaStream_t);
using CublasGemmExFn = int (*)(CublasHandle, int transa, int transb, int m, int n, int k,
                               const void* alpha, const void* A, int a_type, int lda, const void* B,
                               int b_type, int ldb, const void* beta, void* C, int c_type, int ldc,
                               int compute_type, int algo);
constexpr int kCublasOpN = 0;
constexpr int kCublasOpT = 1;
constexpr int kCudaR16BF = 14;         // CUDA_R_16BF
constexpr int kCublasCompute32F = 68;  // CUBLAS_COMPUTE_32F
constexpr int kCublasGemmDefault = -1;

struct Cublas {
  CublasHandle handle = nullptr;
  CublasSetStreamFn set_stream = nullptr;
  CublasGemmExFn gemm_ex = nullptr;
};

// Loads cuBLAS and creates a handle, once; nullopt when that fails.
std::optional<Cublas> load_cublas() {
  static std::optional<Cublas> loaded;
  static bool tried = false;
  if (tried) return loaded;
  tried = true;
  void* lib = nullptr;
  for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"})
    if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
  if (lib == nullptr) return std::nullopt;
  const auto create = reinterpret_cast<CublasCreateFn>(dlsym(lib, "cublasCreate_v2"));
  Cublas c;
  c.set_stream = reinterpret_cast<CublasSetStreamFn>(dlsym(lib, "cublasSetStream_v2"));
  c.gemm_ex = reinterpret_cast<CublasGemmExFn>(dlsym(lib, "cublasGemmEx"));
  if (create == nullptr || c.set_stream == nullptr || c.gemm_ex == nullptr) return std::nullopt;
  if (create(&c.handle) != 0) return std::nullopt;
  loaded = c;
  return loaded;
}

}  // namespace

extern "C" int ptxb_run(const ptxb_args* args) {
  const std::optional<GemmDims> d = gemm_dims(*args->problem);
  if (!d) return kBadProblem;
  const std::optional<Cublas> cublas = load_cublas();
  if (!cublas) return kAttackFailed;
  if (cublas->set_stream(cublas->handle, static_cast<cudaStream_t>(args->stream)) != 0)
    return kAttackFailed;
  // Row-major C (M, N) is column-major C^T (N, M) = B (N, K) * A^T: B is column-major (K, N) with
  // ld K, used transposed; A is column-major (K, M) with ld K, used as is.
  const float alpha = 1.f, beta = 0.f;
  const int status =
      cublas->gemm_ex(cublas->handle, kCublasOpT, kCublasOpN, d->N, d->M, d->K, &alpha,
                      args->inputs[1], kCudaR16BF, d->K, args->inputs[0], kCudaR16BF, d->K, &beta,
                      args->outputs[0], kCudaR16BF, d->N, kCublasCompute32F, kCublasGemmDefault);
  return status == 0 ? PTXB_OK : kAttackFailed;
}
