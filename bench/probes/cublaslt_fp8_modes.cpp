// Which cuBLASLt fp8 configurations run on this GPU: per-tensor scaling with and without the
// fast-accumulation attribute and with D in bf16 or fp32, and every pairing of the block-scaling
// modes, each as the heuristic's status, the algorithms offered and the first one's matmul status
// in PTXBench's "TN" view (cuBLASLt A = our B (N, K), cuBLASLt B = our A (M, K), D = C^T).
// Build: g++ -std=c++17 -O2 -I/usr/local/cuda/include bench/probes/cublaslt_fp8_modes.cpp \
//   -L/usr/local/cuda/lib64 -lcublasLt -lcudart -o cublaslt_fp8_modes
// Run on the GPU: ./cublaslt_fp8_modes [M N K]   (prints one line per configuration)
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

struct Config {
  const char* name;
  bool set_fast_accum;
  cudaDataType_t d_type;
  int a_mode, b_mode;  // -1: attribute not set
};

void run(const Config& c, cublasLtHandle_t h, int64_t M, int64_t N, int64_t K, void* a, void* b,
         void* d, float* scales, void* ws, size_t ws_bytes) {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  const cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n);
  if (c.set_fast_accum) {
    const int8_t fast = 0;
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast);
  }
  cublasStatus_t mode_st = CUBLAS_STATUS_SUCCESS;
  if (c.a_mode >= 0) {
    const auto m = static_cast<cublasLtMatmulMatrixScale_t>(c.a_mode);
    mode_st = cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &m, sizeof m);
  }
  if (c.b_mode >= 0 && mode_st == CUBLAS_STATUS_SUCCESS) {
    const auto m = static_cast<cublasLtMatmulMatrixScale_t>(c.b_mode);
    mode_st = cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &m, sizeof m);
  }
  const float* sa = scales;
  const float* sb = scales + (1 << 20);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb);
  cublasLtMatrixLayout_t la, lb, ld;
  cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, K, N, K);
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, K, M, K);
  cublasLtMatrixLayoutCreate(&ld, c.d_type, N, M, N);
  cublasLtMatmulPreference_t pref;
  cublasLtMatmulPreferenceCreate(&pref);
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes,
                                       sizeof ws_bytes);
  std::vector<cublasLtMatmulHeuristicResult_t> res(8);
  int got = 0;
  const cublasStatus_t hst =
      cublasLtMatmulAlgoGetHeuristic(h, op, la, lb, ld, ld, pref, 8, res.data(), &got);
  std::printf("%-34s mode_status %d heuristic %d offered %d", c.name, int(mode_st), int(hst), got);
  const float alpha = 1, beta = 0;
  for (int i = 0; i < got && i < 3; ++i) {
    const cublasStatus_t st = cublasLtMatmul(h, op, &alpha, a, la, b, lb, &beta, d, ld, d, ld,
                                             &res[i].algo, ws, ws_bytes, nullptr);
    const cudaError_t sync = cudaDeviceSynchronize();
    std::printf(" | algo %d matmul %d sync %d ws %zu", i, int(st), int(sync), res[i].workspaceSize);
  }
  std::printf("\n");
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(ld);
  cublasLtMatmulDescDestroy(op);
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t M = argc > 3 ? std::atoll(argv[1]) : 512, N = argc > 3 ? std::atoll(argv[2]) : 512,
                K = argc > 3 ? std::atoll(argv[3]) : 512;
  std::printf("cublasLt %zu, M %lld N %lld K %lld\n", cublasLtGetVersion(), (long long)M,
              (long long)N, (long long)K);
  cublasLtHandle_t h;
  cublasLtCreate(&h);
  void *a, *b, *d, *ws;
  float* scales;
  const size_t ws_bytes = 32 << 20;
  cudaMalloc(&a, M * K);
  cudaMalloc(&b, N * K);
  cudaMalloc(&d, M * N * 4);
  cudaMalloc(&ws, ws_bytes);
  cudaMalloc(&scales, 2 * (1 << 20) * sizeof(float));
  cudaMemset(a, 0, M * K);
  cudaMemset(b, 0, N * K);
  std::vector<float> ones(2 * (1 << 20), 1.f);
  cudaMemcpy(scales, ones.data(), ones.size() * 4, cudaMemcpyHostToDevice);
  const int kScalar = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
  const int kVec = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
  const int kBlk = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
  const Config configs[] = {
      {"per-tensor, fast-accum attr, bf16", true, CUDA_R_16BF, -1, -1},
      {"per-tensor, no fast-accum attr, bf16", false, CUDA_R_16BF, -1, -1},
      {"per-tensor, fast-accum attr, f32", true, CUDA_R_32F, -1, -1},
      {"per-tensor, explicit SCALAR modes, bf16", true, CUDA_R_16BF, kScalar, kScalar},
      {"blockwise A=BLK B=VEC, bf16", true, CUDA_R_16BF, kBlk, kVec},
      {"blockwise A=VEC B=BLK, bf16", true, CUDA_R_16BF, kVec, kBlk},
      {"blockwise A=VEC B=VEC, bf16", true, CUDA_R_16BF, kVec, kVec},
      {"blockwise A=BLK B=VEC, no attr, bf16", false, CUDA_R_16BF, kBlk, kVec},
      {"blockwise A=VEC B=BLK, no attr, bf16", false, CUDA_R_16BF, kVec, kBlk},
      {"blockwise A=BLK B=VEC, f32", true, CUDA_R_32F, kBlk, kVec},
  };
  for (const Config& c : configs) run(c, h, M, N, K, a, b, d, scales, ws, ws_bytes);
  return 0;
}
