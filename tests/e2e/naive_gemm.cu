// The minimal example of docs/abi.md: correct, slow, no wgmma. Expected on a GPU:
// instruction_missing for sm90/gemm/bf16-wgmma.
#include <cuda_bf16.h>
#include <ptxbench/abi.h>

__global__ void gemm(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int M, int N,
                     int K) {
  int m = blockIdx.y * blockDim.y + threadIdx.y, n = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= M || n >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k)
    acc += __bfloat162float(a[m * K + k]) * __bfloat162float(b[n * K + k]);
  c[m * N + n] = __float2bfloat16_rn(acc);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const ptxb_problem* p = args->problem;
  int M = p->inputs[0].shape[0], K = p->inputs[0].shape[1], N = p->inputs[1].shape[0];
  dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
  gemm<<<grid, block, 0, (cudaStream_t)args->stream>>>((const __nv_bfloat16*)args->inputs[0],
                                                       (const __nv_bfloat16*)args->inputs[1],
                                                       (__nv_bfloat16*)args->outputs[0], M, N, K);
  return cudaGetLastError() == cudaSuccess ? PTXB_OK : 1;
}
