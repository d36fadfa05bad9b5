// A plain SIMT paged decode (no tensor cores): the candidate of paged_decode_smoke.sh, which
// exercises the worker's paged decode module (inputs, reference, cuDNN baseline, timing) before
// the family has an expert. One CTA per query row (sequence b, new token i, head h), one thread
// per output column; keys in chunks of kThreads: their scores, then V weighted by them, with a
// running maximum (online softmax). Bottom-right causal: row i sees keys [0, len_b - SQ + i].
#include <cuda_bf16.h>
#include <ptxbench/abi.h>

#include <cmath>

namespace {

constexpr int kThreads = 256;  // >= D (at most 256)

__global__ void __launch_bounds__(kThreads)
    paged_rows(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
               const int* lens, const int* table, __nv_bfloat16* o, float* lse, int SQ, int H,
               int HKV, int D, int P, int W, float scale) {
  __shared__ float q_row[kThreads], p[kThreads], reduce[kThreads];
  const int row = blockIdx.x, h = row % H, i = (row / H) % SQ, b = row / (H * SQ);
  const int g = h / (H / HKV), t = threadIdx.x;
  const int last = lens[b] - SQ + i;
  if (t < D) q_row[t] = __bfloat162float(q[static_cast<size_t>(row) * D + t]) * scale;
  float m = -INFINITY, l = 0.f, acc = 0.f;
  for (int j0 = 0; j0 <= last; j0 += kThreads) {
    __syncthreads();
    const int j = j0 + t;
    float s = -INFINITY;
    if (j <= last) {
      const size_t base = ((static_cast<size_t>(table[b * W + j / P]) * P + j % P) * HKV + g) * D;
      s = 0.f;
      for (int c = 0; c < D; ++c) s += q_row[c] * __bfloat162float(k[base + c]);
    }
    reduce[t] = s;
    __syncthreads();
    for (int w = kThreads / 2; w > 0; w /= 2) {
      if (t < w) reduce[t] = fmaxf(reduce[t], reduce[t + w]);
      __syncthreads();
    }
    const float m_new = fmaxf(m, reduce[0]);
    p[t] = j <= last ? __expf(s - m_new) : 0.f;
    __syncthreads();
    const float correction = __expf(m - m_new);
    l *= correction;
    acc *= correction;
    for (int c = 0; c < kThreads && j0 + c <= last; ++c) {
      l += p[c];
      if (t < D) {
        const int jj = j0 + c;
        const size_t base =
            ((static_cast<size_t>(table[b * W + jj / P]) * P + jj % P) * HKV + g) * D;
        acc += p[c] * __bfloat162float(v[base + t]);
      }
    }
    m = m_new;
  }
  if (t < D) o[static_cast<size_t>(row) * D + t] = __float2bfloat16_rn(acc / l);
  if (t == 0) lse[row] = m + logf(l);
}

}  // namespace

extern "C" int ptxb_run(const ptxb_args* args) {
  const ptxb_problem& pr = *args->problem;
  if (pr.num_inputs != 5 || pr.num_outputs != 2 || pr.num_scalars < 1) return 1;
  const ptxb_tensor_desc &q = pr.inputs[0], &cache = pr.inputs[1], &table = pr.inputs[4];
  const int B = static_cast<int>(q.shape[0]), SQ = static_cast<int>(q.shape[1]);
  const int H = static_cast<int>(q.shape[2]), D = static_cast<int>(q.shape[3]);
  const int P = static_cast<int>(cache.shape[1]), HKV = static_cast<int>(cache.shape[2]);
  const int W = static_cast<int>(table.shape[1]);
  if (D > kThreads) return 2;
  paged_rows<<<B * SQ * H, kThreads, 0, static_cast<cudaStream_t>(args->stream)>>>(
      static_cast<const __nv_bfloat16*>(args->inputs[0]),
      static_cast<const __nv_bfloat16*>(args->inputs[1]),
      static_cast<const __nv_bfloat16*>(args->inputs[2]), static_cast<const int*>(args->inputs[3]),
      static_cast<const int*>(args->inputs[4]), static_cast<__nv_bfloat16*>(args->outputs[0]),
      static_cast<float*>(args->outputs[1]), SQ, H, HKV, D, P, W,
      static_cast<float>(pr.scalars[0]));
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
