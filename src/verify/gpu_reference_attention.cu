// The independent attention reference on the GPU, in fp64: the matrix products through cuBLASLt in
// fp64 (cuda/fp64_gemm.hpp) on operands widened exactly from bf16, per (batch, head) and per tile
// of query rows so that the fp64 scores fit; softmax, masks, LSE and Delta in small kernels of our
// own. Definitions as in src/reference/attention_fp64.hpp, which checks this code in tests/gpu. No
// code shared with cuDNN (the baseline) or the solutions; outputs rounded to fp32 once, at the end.
#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "cuda/fp64_gemm.hpp"
#include "verify/block_reduce.cuh"
#include "verify/fp64_buffers.hpp"
#include "verify/gpu_verify.hpp"

namespace ptxb {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxHeadDim = 256;
constexpr int64_t kMaxSeq = 1 << 20;

__device__ bool visible(int causal, int64_t i, int64_t j) { return !causal || j <= i; }

// Row r of `s` (rows x cols, scaled scores of query row0 + r): softmax over the visible keys in
// place (masked keys get 0), and the row's log-sum-exp into lse[r].
__global__ void softmax_kernel(double* s, int64_t cols, int64_t row0, int causal, float* lse) {
  const int64_t r = blockIdx.x, i = row0 + r;
  double* row = s + r * cols;
  double row_max = -INFINITY;
  for (int64_t j = threadIdx.x; j < cols; j += kThreads)
    if (visible(causal, i, j)) row_max = fmax(row_max, row[j]);
  row_max = block_reduce<kThreads>(row_max, true);
  double sum = 0;
  for (int64_t j = threadIdx.x; j < cols; j += kThreads) {
    row[j] = visible(causal, i, j) ? exp(row[j] - row_max) : 0.0;
    sum += row[j];
  }
  sum = block_reduce<kThreads>(sum, false);
  for (int64_t j = threadIdx.x; j < cols; j += kThreads) row[j] /= sum;
  if (threadIdx.x == 0) lse[r] = static_cast<float>(row_max + log(sum));
}

// P_ij = exp(S_ij - LSE_i) on the visible keys, 0 elsewhere, in place; lse indexed by tile row.
__global__ void probabilities_kernel(double* s, int64_t cols, int64_t row0, int causal,
                                     const float* lse) {
  const int64_t r = blockIdx.x, i = row0 + r;
  const double l = lse[r];
  double* row = s + r * cols;
  for (int64_t j = threadIdx.x; j < cols; j += kThreads)
    row[j] = visible(causal, i, j) ? exp(row[j] - l) : 0.0;
}

// Delta_i = sum_d dO_id O_id for every query row; fp64, and rounded into `delta32`.
__global__ void delta_kernel(const double* dout, const float* out, int64_t head_dim, double* delta,
                             float* delta32) {
  const int64_t r = blockIdx.x;
  double d = 0;
  for (int64_t k = threadIdx.x; k < head_dim; k += kThreads)
    d += dout[r * head_dim + k] * static_cast<double>(out[r * head_dim + k]);
  d = block_reduce<kThreads>(d, false);
  if (threadIdx.x == 0) {
    delta[r] = d;
    delta32[r] = static_cast<float>(d);
  }
}

// dS_ij = P_ij (dP_ij - Delta_i), in place of dP; delta indexed by tile row.
__global__ void grad_scores_kernel(double* dp, const double* p, int64_t cols, const double* delta) {
  const int64_t r = blockIdx.x;
  const double d = delta[r];
  for (int64_t j = threadIdx.x; j < cols; j += kThreads)
    dp[r * cols + j] = p[r * cols + j] * (dp[r * cols + j] - d);
}

// The problem's sizes checked, and its query tiles.
struct Plan {
  int64_t batch, heads, kv_heads, seq, head_dim;
  int causal;
  double scale;
  int64_t tile_rows;  // query rows per score tile

  int64_t q_head(int64_t b, int64_t h) const { return (b * heads + h) * seq * head_dim; }
  int64_t kv_head(int64_t b, int64_t h) const {
    return (b * kv_heads + h / (heads / kv_heads)) * seq * head_dim;
  }
  int64_t row(int64_t b, int64_t h) const { return (b * heads + h) * seq; }
  // Keys a tile of query rows [i0, i0 + rows) can see: all, or with a causal mask up to its last.
  int64_t keys(int64_t i0, int64_t rows) const { return causal ? std::min(seq, i0 + rows) : seq; }
};

Plan make_plan(const AttentionDims& a, int64_t tile_elements) {
  if (a.head_dim < 1 || a.head_dim > kMaxHeadDim || a.seq < 1 || a.seq > kMaxSeq ||
      a.kv_heads < 1 || a.heads % a.kv_heads != 0)
    throw InputError(
        "reference attention: unsupported dims (head_dim <= 256, seq <= 1048576, kv_heads "
        "dividing heads)");
  return {a.batch,
          a.heads,
          a.kv_heads,
          a.seq,
          a.head_dim,
          a.causal ? 1 : 0,
          static_cast<double>(a.scale),
          std::max<int64_t>(1, std::min(a.seq, tile_elements / a.seq))};
}

unsigned blocks(int64_t rows) { return static_cast<unsigned>(rows); }

}  // namespace

void reference_attention_forward(const void* q, const void* k, const void* v, float* out,
                                 float* lse, const AttentionDims& dims, cudaStream_t stream,
                                 int64_t tile_elements) {
  const Plan m = make_plan(dims, tile_elements);
  const int64_t q_count = m.batch * m.heads * m.seq * m.head_dim;
  const int64_t kv_count = m.batch * m.kv_heads * m.seq * m.head_dim;
  const DeviceBuffer q64 = widened_bf16(q, q_count, stream),
                     k64 = widened_bf16(k, kv_count, stream),
                     v64 = widened_bf16(v, kv_count, stream);
  DeviceBuffer o64(static_cast<size_t>(q_count) * sizeof(double));
  DeviceBuffer scores(static_cast<size_t>(m.tile_rows * m.seq) * sizeof(double));
  Fp64Gemm gemm;
  const int64_t D = m.head_dim;
  for (int64_t b = 0; b < m.batch; ++b)
    for (int64_t h = 0; h < m.heads; ++h)
      for (int64_t i0 = 0; i0 < m.seq; i0 += m.tile_rows) {
        const int64_t rows = std::min(m.tile_rows, m.seq - i0), keys = m.keys(i0, rows);
        const double* qt = q64.as<double>() + m.q_head(b, h) + i0 * D;
        const double* kh = k64.as<double>() + m.kv_head(b, h);
        const double* vh = v64.as<double>() + m.kv_head(b, h);
        double* s = scores.as<double>();
        gemm.run(false, true, rows, keys, D, m.scale, qt, D, kh, D, 0.0, s, keys, stream);
        softmax_kernel<<<blocks(rows), kThreads, 0, stream>>>(s, keys, i0, m.causal,
                                                              lse + m.row(b, h) + i0);
        PTXB_CHECK_CUDA(cudaGetLastError());
        gemm.run(false, false, rows, D, keys, 1.0, s, keys, vh, D, 0.0,
                 o64.as<double>() + m.q_head(b, h) + i0 * D, D, stream);
      }
  narrow_to_f32(o64.as<double>(), out, q_count, stream);
  // NOTE: the buffers are freed on return; cudaFree waits for the work enqueued above.
}

void reference_attention_backward(const void* q, const void* k, const void* v, const void* dout,
                                  const float* out, const float* lse, float* delta, float* dq,
                                  float* dk, float* dv, const AttentionDims& dims,
                                  cudaStream_t stream, int64_t tile_elements) {
  const Plan m = make_plan(dims, tile_elements);
  const int64_t q_count = m.batch * m.heads * m.seq * m.head_dim;
  const int64_t kv_count = m.batch * m.kv_heads * m.seq * m.head_dim;
  const int64_t D = m.head_dim;
  const DeviceBuffer q64 = widened_bf16(q, q_count, stream),
                     k64 = widened_bf16(k, kv_count, stream),
                     v64 = widened_bf16(v, kv_count, stream),
                     do64 = widened_bf16(dout, q_count, stream);
  DeviceBuffer delta64(static_cast<size_t>(m.batch * m.heads * m.seq) * sizeof(double));
  delta_kernel<<<blocks(m.batch * m.heads * m.seq), kThreads, 0, stream>>>(
      do64.as<double>(), out, D, delta64.as<double>(), delta);
  PTXB_CHECK_CUDA(cudaGetLastError());
  DeviceBuffer dq64(static_cast<size_t>(q_count) * sizeof(double)),
      dk64(static_cast<size_t>(kv_count) * sizeof(double)),
      dv64(static_cast<size_t>(kv_count) * sizeof(double));
  PTXB_CHECK_CUDA(cudaMemsetAsync(dk64.data(), 0, dk64.bytes(), stream));  // all-zero bits: 0.0
  PTXB_CHECK_CUDA(cudaMemsetAsync(dv64.data(), 0, dv64.bytes(), stream));
  DeviceBuffer probs(static_cast<size_t>(m.tile_rows * m.seq) * sizeof(double)),
      grads(static_cast<size_t>(m.tile_rows * m.seq) * sizeof(double));
  Fp64Gemm gemm;
  for (int64_t b = 0; b < m.batch; ++b)
    for (int64_t h = 0; h < m.heads; ++h)
      for (int64_t i0 = 0; i0 < m.seq; i0 += m.tile_rows) {
        const int64_t rows = std::min(m.tile_rows, m.seq - i0), keys = m.keys(i0, rows);
        const int64_t first_row = m.row(b, h) + i0;
        const double* qt = q64.as<double>() + m.q_head(b, h) + i0 * D;
        const double* dot = do64.as<double>() + m.q_head(b, h) + i0 * D;
        const double* kh = k64.as<double>() + m.kv_head(b, h);
        const double* vh = v64.as<double>() + m.kv_head(b, h);
        double* p = probs.as<double>();
        double* ds = grads.as<double>();
        // P = exp(scale Q K^T - LSE), dP = dO V^T, dS = P (dP - Delta)
        gemm.run(false, true, rows, keys, D, m.scale, qt, D, kh, D, 0.0, p, keys, stream);
        probabilities_kernel<<<blocks(rows), kThreads, 0, stream>>>(p, keys, i0, m.causal,
                                                                    lse + first_row);
        PTXB_CHECK_CUDA(cudaGetLastError());
        gemm.run(false, true, rows, keys, D, 1.0, dot, D, vh, D, 0.0, ds, keys, stream);
        grad_scores_kernel<<<blocks(rows), kThreads, 0, stream>>>(ds, p, keys,
                                                                  delta64.as<double>() + first_row);
        PTXB_CHECK_CUDA(cudaGetLastError());
        // dQ = scale dS K; dK += scale dS^T Q; dV += P^T dO (the kv head sums its query heads)
        gemm.run(false, false, rows, D, keys, m.scale, ds, keys, kh, D, 0.0,
                 dq64.as<double>() + m.q_head(b, h) + i0 * D, D, stream);
        gemm.run(true, false, keys, D, rows, m.scale, ds, keys, qt, D, 1.0,
                 dk64.as<double>() + m.kv_head(b, h), D, stream);
        gemm.run(true, false, keys, D, rows, 1.0, p, keys, dot, D, 1.0,
                 dv64.as<double>() + m.kv_head(b, h), D, stream);
      }
  narrow_to_f32(dq64.as<double>(), dq, q_count, stream);
  narrow_to_f32(dk64.as<double>(), dk, kv_count, stream);
  narrow_to_f32(dv64.as<double>(), dv, kv_count, stream);
}

}  // namespace ptxb
