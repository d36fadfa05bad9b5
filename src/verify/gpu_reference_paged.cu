// The paged decode attention reference on the GPU, in fp64 (definition and layouts:
// src/reference/attention_paged_fp64.hpp, which checks this code in tests/gpu): one CTA per
// query row (sequence b, new token i, head h). Pass 1: every visible key's score, for their
// maximum; pass 2, in chunks of kThreads keys: the scores again, their exponentials, and each
// thread's output column accumulated over the chunk from V. The keys reached through the page
// table, as a solution must. No code shared with cuDNN (the baseline) or the solutions; rounded to
// fp32 once, at the end.
#include <cuda_bf16.h>

#include <cmath>

#include "core/error.hpp"
#include "cuda/cuda_check.hpp"
#include "verify/block_reduce.cuh"
#include "verify/gpu_verify.hpp"

namespace ptxb {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxHeadDim = 256;  // one output column per thread

__global__ void __launch_bounds__(kThreads)
    paged_decode_rows(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                      const int32_t* seq_lens, const int32_t* table, float* out, float* lse,
                      PagedDecodeDims d) {
  __shared__ double q_row[kMaxHeadDim];  // the query row times the scale
  __shared__ double p[kThreads];         // a chunk's exponentials
  const int64_t row = blockIdx.x;        // ((b * SQ) + i) * H + h
  const int64_t h = row % d.heads, i = (row / d.heads) % d.q_len, b = row / (d.heads * d.q_len);
  const int64_t g = h / (d.heads / d.kv_heads);
  const int64_t last = static_cast<int64_t>(seq_lens[b]) - d.q_len + i;  // last visible key
  const int tid = static_cast<int>(threadIdx.x);
  for (int64_t c = tid; c < d.head_dim; c += kThreads)
    q_row[c] = static_cast<double>(__bfloat162float(q[row * d.head_dim + c])) * d.scale;
  __syncthreads();
  // Element offset of key j's kv head g row in a cache.
  auto key = [&](int64_t j) {
    const int64_t page = table[b * d.table_width + j / d.page_size];
    return ((page * d.page_size + j % d.page_size) * d.kv_heads + g) * d.head_dim;
  };
  auto score = [&](int64_t j) {
    const __nv_bfloat16* kj = k + key(j);
    double s = 0;
    for (int64_t c = 0; c < d.head_dim; ++c)
      s += q_row[c] * static_cast<double>(__bfloat162float(kj[c]));
    return s;
  };

  double m = -INFINITY;
  for (int64_t j = tid; j <= last; j += kThreads) m = fmax(m, score(j));
  m = block_reduce<kThreads>(m, true);

  double sum = 0, acc = 0;  // acc: output column tid
  for (int64_t j0 = 0; j0 <= last; j0 += kThreads) {
    const int64_t j = j0 + tid;
    const double e = j <= last ? exp(score(j) - m) : 0.0;
    p[tid] = e;
    sum += e;
    __syncthreads();
    if (tid < d.head_dim)
      for (int64_t jj = 0; jj < kThreads && j0 + jj <= last; ++jj)
        acc += p[jj] * static_cast<double>(__bfloat162float(v[key(j0 + jj) + tid]));
    __syncthreads();  // p is refilled by the next chunk
  }
  sum = block_reduce<kThreads>(sum, false);
  if (tid < d.head_dim) out[row * d.head_dim + tid] = sum > 0 ? static_cast<float>(acc / sum) : 0.f;
  if (tid == 0) lse[row] = sum > 0 ? static_cast<float>(m + log(sum)) : -INFINITY;
}

}  // namespace

void reference_paged_decode(const void* q, const void* k_cache, const void* v_cache,
                            const int32_t* seq_lens, const int32_t* page_table, float* out,
                            float* lse, const PagedDecodeDims& dims, cudaStream_t stream) {
  if (dims.head_dim > kMaxHeadDim)
    throw InputError("the paged decode reference takes head_dim <= 256, not " +
                     std::to_string(dims.head_dim));
  PTXB_ASSERT(
      dims.kv_heads > 0 && dims.heads % dims.kv_heads == 0 && dims.page_size > 0 && dims.q_len > 0,
      "reference_paged_decode: bad dims");
  const int64_t rows = dims.batch * dims.q_len * dims.heads;
  if (rows == 0) return;
  paged_decode_rows<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(
      static_cast<const __nv_bfloat16*>(q), static_cast<const __nv_bfloat16*>(k_cache),
      static_cast<const __nv_bfloat16*>(v_cache), seq_lens, page_table, out, lse, dims);
  PTXB_CHECK_CUDA(cudaGetLastError());
}

}  // namespace ptxb
