// The independent attention reference on the GPU: plain fp32 SIMT kernels, one block per query
// row (forward, dQ) or key row (dK, dV), scores held in shared memory. Definitions as in
// src/reference/attention_fp64.hpp, which checks these kernels in tests/gpu. No tensor cores, no
// library, no code shared with baselines or solutions.
#include <cuda_bf16.h>

#include <cfloat>

#include "core/error.hpp"
#include "cuda/cuda_check.hpp"
#include "verify/gpu_verify.hpp"

namespace ptxb {
namespace {

constexpr int kThreads = 128;
constexpr int kMaxHeadDim = 256;
constexpr int64_t kMaxSeq = 32768;  // scores of one row in dynamic shared memory (128 KiB)

struct Dims {
  int64_t batch, heads, kv_heads, seq, head_dim;
  int causal;
  float scale;
  __device__ int64_t q_row(int64_t b, int64_t h, int64_t i) const {
    return ((b * heads + h) * seq + i) * head_dim;
  }
  __device__ int64_t kv_row(int64_t b, int64_t h, int64_t j) const {
    return ((b * kv_heads + h / (heads / kv_heads)) * seq + j) * head_dim;
  }
  __device__ bool visible(int64_t i, int64_t j) const { return !causal || j <= i; }
};

__device__ float block_reduce(float v, bool take_max) {
  __shared__ float partial[kThreads / 32];
  for (int o = 16; o > 0; o >>= 1) {
    const float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = take_max ? fmaxf(v, w) : v + w;
  }
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  v = partial[0];
  for (int w = 1; w < kThreads / 32; ++w) v = take_max ? fmaxf(v, partial[w]) : v + partial[w];
  __syncthreads();  // partial is reused by the next reduction
  return v;
}

__device__ float dot_bf16(const float* q, const __nv_bfloat16* k, int64_t n) {
  float s = 0.f;
  for (int64_t d = 0; d < n; ++d) s = fmaf(q[d], __bfloat162float(k[d]), s);
  return s;
}

// p[j] = exp(S_ij - lse_i) for query row (b, h, i); returns lse_i. `q` is the row in fp32.
__device__ float softmax_row(const Dims& m, const float* q, const __nv_bfloat16* k, int64_t b,
                             int64_t h, int64_t i, float* p) {
  float row_max = -FLT_MAX;
  for (int64_t j = threadIdx.x; j < m.seq; j += kThreads) {
    p[j] = m.visible(i, j) ? m.scale * dot_bf16(q, k + m.kv_row(b, h, j), m.head_dim) : -FLT_MAX;
    row_max = fmaxf(row_max, p[j]);
  }
  row_max = block_reduce(row_max, true);
  float sum = 0.f;
  for (int64_t j = threadIdx.x; j < m.seq; j += kThreads) {
    p[j] = m.visible(i, j) ? expf(p[j] - row_max) : 0.f;
    sum += p[j];
  }
  sum = block_reduce(sum, false);
  for (int64_t j = threadIdx.x; j < m.seq; j += kThreads) p[j] /= sum;
  __syncthreads();
  return row_max + logf(sum);
}

__device__ void load_row(const __nv_bfloat16* src, int64_t n, float* dst) {
  for (int64_t d = threadIdx.x; d < n; d += kThreads) dst[d] = __bfloat162float(src[d]);
  __syncthreads();
}

__global__ void forward_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k,
                               const __nv_bfloat16* v, float* out, float* lse, Dims m) {
  extern __shared__ float p[];
  __shared__ float q_row[kMaxHeadDim];
  const int64_t row = blockIdx.x;  // (b * heads + h) * seq + i
  const int64_t i = row % m.seq, h = (row / m.seq) % m.heads, b = row / (m.seq * m.heads);
  load_row(q + m.q_row(b, h, i), m.head_dim, q_row);
  const float l = softmax_row(m, q_row, k, b, h, i, p);
  if (threadIdx.x == 0) lse[row] = l;
  for (int64_t d = threadIdx.x; d < m.head_dim; d += kThreads) {
    float acc = 0.f;
    for (int64_t j = 0; j < m.seq; ++j)
      acc = fmaf(p[j], __bfloat162float(v[m.kv_row(b, h, j) + d]), acc);
    out[m.q_row(b, h, i) + d] = acc;
  }
}

// Per query row: dS_ij = P_ij (dO_i . V_j - D_i), dQ_i = scale sum_j dS_ij K_j; delta[row] = D_i.
__global__ void dq_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                          const __nv_bfloat16* dout, const float* out, float* dq, float* delta,
                          Dims m) {
  extern __shared__ float p[];
  __shared__ float q_row[kMaxHeadDim], do_row[kMaxHeadDim];
  const int64_t row = blockIdx.x;
  const int64_t i = row % m.seq, h = (row / m.seq) % m.heads, b = row / (m.seq * m.heads);
  load_row(q + m.q_row(b, h, i), m.head_dim, q_row);
  load_row(dout + m.q_row(b, h, i), m.head_dim, do_row);
  softmax_row(m, q_row, k, b, h, i, p);
  float d_i = 0.f;
  for (int64_t d = threadIdx.x; d < m.head_dim; d += kThreads)
    d_i += do_row[d] * out[m.q_row(b, h, i) + d];
  d_i = block_reduce(d_i, false);
  if (threadIdx.x == 0) delta[row] = d_i;
  for (int64_t j = threadIdx.x; j < m.seq; j += kThreads)
    p[j] = m.visible(i, j) ? p[j] * (dot_bf16(do_row, v + m.kv_row(b, h, j), m.head_dim) - d_i)
                           : 0.f;  // now dS_ij
  __syncthreads();
  for (int64_t d = threadIdx.x; d < m.head_dim; d += kThreads) {
    float acc = 0.f;
    for (int64_t j = 0; j < m.seq; ++j)
      acc = fmaf(p[j], __bfloat162float(k[m.kv_row(b, h, j) + d]), acc);
    dq[m.q_row(b, h, i) + d] = m.scale * acc;
  }
}

// Per key row j of kv head g: over every query head h of the group and query i that sees j,
// dV_j += P_ij dO_i and dK_j += scale dS_ij Q_i, with P_ij = exp(S_ij - LSE_i).
__global__ void dkv_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                           const __nv_bfloat16* dout, const float* lse, const float* delta,
                           float* dk, float* dv, Dims m) {
  __shared__ float k_row[kMaxHeadDim], v_row[kMaxHeadDim];
  __shared__ float coef[2][kThreads];  // per query: P_ij and scale * dS_ij
  const int64_t row = blockIdx.x;      // (b * kv_heads + g) * seq + j
  const int64_t j = row % m.seq, g = (row / m.seq) % m.kv_heads, b = row / (m.seq * m.kv_heads);
  const int64_t group = m.heads / m.kv_heads;
  const int64_t base = row * m.head_dim;
  load_row(k + base, m.head_dim, k_row);
  load_row(v + base, m.head_dim, v_row);
  float dk_acc[kMaxHeadDim / kThreads] = {}, dv_acc[kMaxHeadDim / kThreads] = {};
  for (int64_t h = g * group; h < (g + 1) * group; ++h) {
    for (int64_t i0 = 0; i0 < m.seq; i0 += kThreads) {
      const int64_t i = i0 + threadIdx.x;
      float pij = 0.f, dsij = 0.f;
      if (i < m.seq && m.visible(i, j)) {
        float s = 0.f, dp = 0.f;
        for (int64_t d = 0; d < m.head_dim; ++d) {
          s = fmaf(__bfloat162float(q[m.q_row(b, h, i) + d]), k_row[d], s);
          dp = fmaf(__bfloat162float(dout[m.q_row(b, h, i) + d]), v_row[d], dp);
        }
        const int64_t r = (b * m.heads + h) * m.seq + i;
        pij = expf(m.scale * s - lse[r]);
        dsij = m.scale * pij * (dp - delta[r]);
      }
      coef[0][threadIdx.x] = pij;
      coef[1][threadIdx.x] = dsij;
      __syncthreads();
      const int64_t count = m.seq - i0 < kThreads ? m.seq - i0 : kThreads;
      for (int64_t t = 0; t < count; ++t) {
        const int64_t qi = m.q_row(b, h, i0 + t);
        for (int64_t d = threadIdx.x, s = 0; d < m.head_dim; d += kThreads, ++s) {
          dv_acc[s] = fmaf(coef[0][t], __bfloat162float(dout[qi + d]), dv_acc[s]);
          dk_acc[s] = fmaf(coef[1][t], __bfloat162float(q[qi + d]), dk_acc[s]);
        }
      }
      __syncthreads();
    }
  }
  for (int64_t d = threadIdx.x, s = 0; d < m.head_dim; d += kThreads, ++s) {
    dk[base + d] = dk_acc[s];
    dv[base + d] = dv_acc[s];
  }
}

Dims to_dims(const AttentionDims& a) {
  if (a.head_dim < 1 || a.head_dim > kMaxHeadDim || a.seq < 1 || a.seq > kMaxSeq ||
      a.kv_heads < 1 || a.heads % a.kv_heads != 0)
    throw InputError(
        "reference attention: unsupported dims (head_dim <= 256, seq <= 32768, "
        "kv_heads dividing heads)");
  return {a.batch, a.heads, a.kv_heads, a.seq, a.head_dim, a.causal ? 1 : 0, a.scale};
}

size_t scores_bytes(const Dims& m) { return static_cast<size_t>(m.seq) * sizeof(float); }

void allow_shared(const void* kernel, size_t bytes) {
  PTXB_CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(bytes)));
}

}  // namespace

void reference_attention_forward(const void* q, const void* k, const void* v, float* out,
                                 float* lse, const AttentionDims& dims, cudaStream_t stream) {
  const Dims m = to_dims(dims);
  allow_shared(reinterpret_cast<const void*>(forward_kernel), scores_bytes(m));
  forward_kernel<<<static_cast<unsigned>(m.batch * m.heads * m.seq), kThreads, scores_bytes(m),
                   stream>>>(static_cast<const __nv_bfloat16*>(q),
                             static_cast<const __nv_bfloat16*>(k),
                             static_cast<const __nv_bfloat16*>(v), out, lse, m);
  PTXB_CHECK_CUDA(cudaGetLastError());
}

void reference_attention_backward(const void* q, const void* k, const void* v, const void* dout,
                                  const float* out, const float* lse, float* delta, float* dq,
                                  float* dk, float* dv, const AttentionDims& dims,
                                  cudaStream_t stream) {
  const Dims m = to_dims(dims);
  const auto* qb = static_cast<const __nv_bfloat16*>(q);
  const auto* kb = static_cast<const __nv_bfloat16*>(k);
  const auto* vb = static_cast<const __nv_bfloat16*>(v);
  const auto* dob = static_cast<const __nv_bfloat16*>(dout);
  allow_shared(reinterpret_cast<const void*>(dq_kernel), scores_bytes(m));
  dq_kernel<<<static_cast<unsigned>(m.batch * m.heads * m.seq), kThreads, scores_bytes(m),
              stream>>>(qb, kb, vb, dob, out, dq, delta, m);
  PTXB_CHECK_CUDA(cudaGetLastError());
  dkv_kernel<<<static_cast<unsigned>(m.batch * m.kv_heads * m.seq), kThreads, 0, stream>>>(
      qb, kb, vb, dob, lse, delta, dk, dv, m);
  PTXB_CHECK_CUDA(cudaGetLastError());
}

}  // namespace ptxb
