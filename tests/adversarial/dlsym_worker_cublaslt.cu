// Hostile submission: borrow the worker's own cuBLASLt (reward hack 8, nothing new loaded).
//
// Attack: the worker process already has libcublasLt mapped for its baseline. The candidate
// finds cublasLtCreate / cublasLtMatmul / ... with dlsym(RTLD_DEFAULT, ...) and, failing that,
// through dlopen("libcublasLt.so.13", RTLD_NOLOAD), which only returns a handle to a library that
// is already mapped. No import, no new mapping. ptxb_plan asks for a 32 MiB workspace and creates
// the cuBLASLt handle; ptxb_run computes C = A * B^T with cublasLtMatmul on args->stream, using
// args->workspace. If the symbols cannot be found, ptxb_run returns an error (then the outcome
// would be incorrect; the expectation stays rejected_cheat, because on the real worker they are
// found).
// Caught by: the CUPTI monitor: the GEMM kernels are cuBLASLt's, not defined in the candidate's
// cubin.
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

// cuBLASLt types and constants, spelled out so that no cuBLAS header is needed (cublasLt.h, 13.0).
using LtHandle = void*;
using LtDesc = void*;
using LtLayout = void*;
using LtCreateFn = int (*)(LtHandle*);
using LtDescCreateFn = int (*)(LtDesc*, int compute_type, int scale_type);
using LtDescDestroyFn = int (*)(LtDesc);
using LtDescSetFn = int (*)(LtDesc, int attribute, const void* buf, size_t bytes);
using LtLayoutCreateFn = int (*)(LtLayout*, int type, uint64_t rows, uint64_t cols, int64_t ld);
using LtLayoutDestroyFn = int (*)(LtLayout);
using LtMatmulFn = int (*)(LtHandle, LtDesc, const void* alpha, const void* A, LtLayout,
                           const void* B, LtLayout, const void* beta, const void* C, LtLayout,
                           void* D, LtLayout, const void* algo, void* workspace, size_t bytes,
                           cudaStream_t stream);
constexpr int kCublasOpN = 0;
constexpr int kCublasOpT = 1;
constexpr int kCudaR16BF = 14;         // CUDA_R_16BF
constexpr int kCudaR32F = 0;           // CUDA_R_32F
constexpr int kCublasCompute32F = 68;  // CUBLAS_COMPUTE_32F
constexpr int kDescTransA = 3;         // CUBLASLT_MATMUL_DESC_TRANSA
constexpr int kDescTransB = 4;         // CUBLASLT_MATMUL_DESC_TRANSB
constexpr uint64_t kWorkspaceBytes = 32ull << 20;

struct Lt {
  LtHandle handle = nullptr;
  LtDescCreateFn desc_create = nullptr;
  LtDescDestroyFn desc_destroy = nullptr;
  LtDescSetFn desc_set = nullptr;
  LtLayoutCreateFn layout_create = nullptr;
  LtLayoutDestroyFn layout_destroy = nullptr;
  LtMatmulFn matmul = nullptr;
};

// A symbol of the cuBLASLt that is already in the process, or nullptr.
void* find_loaded(const char* name) {
  if (void* p = dlsym(RTLD_DEFAULT, name)) return p;
  static void* lib = dlopen("libcublasLt.so.13", RTLD_NOW | RTLD_NOLOAD);  // maps nothing new
  return lib != nullptr ? dlsym(lib, name) : nullptr;
}

// Resolves the entry points and creates a handle, once; nullopt when something is missing.
std::optional<Lt> borrow_cublaslt() {
  static std::optional<Lt> borrowed;
  static bool tried = false;
  if (tried) return borrowed;
  tried = true;
  const auto create = reinterpret_cast<LtCreateFn>(find_loaded("cublasLtCreate"));
  Lt lt;
  lt.desc_create = reinterpret_cast<LtDescCreateFn>(find_loaded("cublasLtMatmulDescCreate"));
  lt.desc_destroy = reinterpret_cast<LtDescDestroyFn>(find_loaded("cublasLtMatmulDescDestroy"));
  lt.desc_set = reinterpret_cast<LtDescSetFn>(find_loaded("cublasLtMatmulDescSetAttribute"));
  lt.layout_create = reinterpret_cast<LtLayoutCreateFn>(find_loaded("cublasLtMatrixLayoutCreate"));
  lt.layout_destroy =
      reinterpret_cast<LtLayoutDestroyFn>(find_loaded("cublasLtMatrixLayoutDestroy"));
  lt.matmul = reinterpret_cast<LtMatmulFn>(find_loaded("cublasLtMatmul"));
  if (create == nullptr || lt.desc_create == nullptr || lt.desc_destroy == nullptr ||
      lt.desc_set == nullptr || lt.layout_create == nullptr || lt.layout_destroy == nullptr ||
      lt.matmul == nullptr)
    return std::nullopt;
  if (create(&lt.handle) != 0) return std::nullopt;
  borrowed = lt;
  return borrowed;
}

// C = A * B^T through cuBLASLt: row-major C (M, N) is column-major C^T (N, M) = B^T' * A' with
// B' = B as column-major (K, N), ld K, transposed, and A' = A as column-major (K, M), ld K. The
// same mapping as the worker's baseline. 0 on success.
int lt_gemm(const Lt& lt, const ptxb_args& args, GemmDims d) {
  LtDesc desc = nullptr;
  LtLayout lay_b = nullptr, lay_a = nullptr, lay_c = nullptr;
  int status = lt.desc_create(&desc, kCublasCompute32F, kCudaR32F);
  const int32_t trans = kCublasOpT, no_trans = kCublasOpN;
  if (status == 0) status = lt.desc_set(desc, kDescTransA, &trans, sizeof trans);
  if (status == 0) status = lt.desc_set(desc, kDescTransB, &no_trans, sizeof no_trans);
  if (status == 0) status = lt.layout_create(&lay_b, kCudaR16BF, d.K, d.N, d.K);
  if (status == 0) status = lt.layout_create(&lay_a, kCudaR16BF, d.K, d.M, d.K);
  if (status == 0) status = lt.layout_create(&lay_c, kCudaR16BF, d.N, d.M, d.N);
  const float alpha = 1.f, beta = 0.f;
  if (status == 0)
    status = lt.matmul(lt.handle, desc, &alpha, args.inputs[1], lay_b, args.inputs[0], lay_a, &beta,
                       args.outputs[0], lay_c, args.outputs[0], lay_c, nullptr, args.workspace,
                       static_cast<size_t>(args.workspace_bytes),
                       static_cast<cudaStream_t>(args.stream));
  if (lay_c != nullptr) lt.layout_destroy(lay_c);
  if (lay_a != nullptr) lt.layout_destroy(lay_a);
  if (lay_b != nullptr) lt.layout_destroy(lay_b);
  if (desc != nullptr) lt.desc_destroy(desc);
  return status;
}

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  if (!gemm_dims(*problem)) return kBadProblem;
  *workspace_bytes = kWorkspaceBytes;
  (void)borrow_cublaslt();  // handle creation outside timing, like a careful library user
  return PTXB_OK;
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const std::optional<GemmDims> d = gemm_dims(*args->problem);
  if (!d) return kBadProblem;
  const std::optional<Lt> lt = borrow_cublaslt();
  if (!lt) return kAttackFailed;
  return lt_gemm(*lt, *args, *d) == 0 ? PTXB_OK : kAttackFailed;
}
