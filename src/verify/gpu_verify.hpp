// Device-side verification: input generation, poisoning, the independent references (fp64 inside,
// fp32 out), output comparison and input-unchanged checks. All calls enqueue on
// `stream`; results that come back to the host synchronize it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "core/dtype.hpp"
#include "verify/compare_stats.hpp"

namespace ptxb {

/// How generated input values are distributed (mirrors DistributionSpec::Kind).
enum class ValueKind { kNormal, kUniformInt };

/// Fills `count` elements of `dtype` at `dst` with values drawn from a counter-based generator
/// keyed by (seed, stream_id, element index): the same arguments always give the same values.
void fill_random(void* dst, DType dtype, int64_t count, ValueKind kind, double scale, uint64_t seed,
                 uint64_t stream_id, cudaStream_t stream);

/// Fills `count` floats at `dst` with positive scale factors 2^e (1 + m/8), e in [-3, 3], m in
/// [0, 7] (families/structured_values.hpp, "scales"), from a counter-based hash keyed by (seed,
/// stream_id, index): exact in fp32, the same arguments always give the same values.
void fill_scales(float* dst, int64_t count, uint64_t seed, uint64_t stream_id, cudaStream_t stream);

/// Sets every element to NaN (dtypes with a NaN) or to 0xFF bytes (others).
void poison(void* dst, DType dtype, int64_t count, cudaStream_t stream);

/// Element-wise conversions (round to nearest even for f32 -> bf16).
void bf16_to_f32(const void* src, float* dst, int64_t count, cudaStream_t stream);
void f32_to_bf16(const float* src, void* dst, int64_t count, cudaStream_t stream);

/// ref[m, n] = sum_k a[m, k] * b[n, k] in fp64, rounded once to fp32; a, b row-major bf16.
/// Through cuBLASLt's fp64 path (not the bf16 one the baseline uses); allocates fp64 copies of
/// a, b and the product and frees them before it returns, which waits for the GPU.
void reference_gemm_bf16(const void* a, const void* b, float* ref, int64_t M, int64_t N, int64_t K,
                         cudaStream_t stream);

/// The same for other element types (bf16, f16, f32, E4M3, each widened exactly), the product
/// scaled by `alpha` in fp64 before the one rounding: ref = alpha * a * b^T.
void reference_gemm(const void* a, DType a_type, const void* b, DType b_type, double alpha,
                    float* ref, int64_t M, int64_t N, int64_t K, cudaStream_t stream);

/// The block-scaled E4M3 GEMM: ref[m, n] = sum_k a[m, k] sa[k / 128, m] * b[n, k]
/// sb[n / 128, k / 128], scale_a f32 [ceil(K/128), M] and scale_b f32 [ceil(N/128),
/// ceil(K/128)] row-major (DeepSeek-V3's 1x128 activation and 128x128 weight blocks). The scales
/// are applied to the widened operands in fp64 (exact products), then one fp64 product, rounded
/// once to fp32.
void reference_gemm_blockwise(const void* a, const void* b, const float* scale_a,
                              const float* scale_b, float* ref, int64_t M, int64_t N, int64_t K,
                              cudaStream_t stream);

/// Sizes of an attention problem for the reference kernels (src/reference/attention_fp64.hpp
/// states the definitions and layouts).
struct AttentionDims {
  int64_t batch = 1, heads = 1, kv_heads = 1, seq = 1, head_dim = 1;
  bool causal = false;
  float scale = 1.f;
};

/// fp32 out [B,H,S,D] and lse [B,H,S] from bf16 q [B,H,S,D], k and v [B,HKV,S,D], computed in
/// fp64 (products through cuBLASLt, the rest in kernels of our own) and rounded once. Allocates
/// its fp64 scratch (up to about 10 bytes per input element plus 512 MiB) and frees it before it
/// returns, which waits for the GPU. Throws InputError for head_dim > 256 or seq > 2^20.
/// fp64 score elements (query rows x keys) the attention references hold per tile: 256 MiB.
/// Tests pass fewer to make a small problem span several tiles.
inline constexpr int64_t kAttentionTileElements = int64_t{1} << 25;

void reference_attention_forward(const void* q, const void* k, const void* v, float* out,
                                 float* lse, const AttentionDims& dims, cudaStream_t stream,
                                 int64_t tile_elements = kAttentionTileElements);

/// Sizes of a paged decode problem (src/reference/attention_paged_fp64.hpp states the definition:
/// q_len new tokens per sequence, the history in pages of page_size tokens through a page table of
/// table_width entries a row, bottom-right causal).
struct PagedDecodeDims {
  int64_t batch = 1, q_len = 1, heads = 1, kv_heads = 1, head_dim = 1, page_size = 1,
          table_width = 1;
  float scale = 1.f;
};

/// fp32 out [B,SQ,H,D] and lse [B,SQ,H] from bf16 q [B,SQ,H,D], k_cache and v_cache
/// [pages,P,HKV,D], int32 seq_lens [B] and page_table [B,W] on the device, in fp64 (one CTA per
/// query row: the row's scores twice, once for their maximum, then in chunks with V), rounded
/// once. Needs every length in [q_len, W * P] and every page the table names of the cache (the
/// worker's draws: families/structured_values.hpp); a row with no visible key gets O 0 and LSE
/// -inf. Throws InputError for head_dim > 256.
void reference_paged_decode(const void* q, const void* k_cache, const void* v_cache,
                            const int32_t* seq_lens, const int32_t* page_table, float* out,
                            float* lse, const PagedDecodeDims& dims, cudaStream_t stream);

/// fp32 dq [B,H,S,D], dk and dv [B,HKV,S,D] from bf16 q, k, v, dout and fp32 out and lse, in
/// fp64 like the forward; `delta` [B,H,S] receives rowsum(dout * out) rounded to fp32.
void reference_attention_backward(const void* q, const void* k, const void* v, const void* dout,
                                  const float* out, const float* lse, float* delta, float* dq,
                                  float* dk, float* dv, const AttentionDims& dims,
                                  cudaStream_t stream,
                                  int64_t tile_elements = kAttentionTileElements);

/// Device bytes a comparison works in (compare_with_reference's `scratch`).
inline constexpr size_t kCompareScratchBytes = 128;

/// Compares `count` elements of `out` (dtype) with fp32 `ref` laid out with `cols` columns.
/// Synchronizes `stream` once and returns the statistics. `scratch`: kCompareScratchBytes of
/// device memory that no other work on the GPU uses meanwhile (reused from one comparison to the
/// next: nothing is allocated); nullptr allocates and frees its own (which waits for the GPU).
CompareStats compare_with_reference(const void* out, DType dtype, const float* ref, int64_t count,
                                    int64_t cols, const CompareTolerance& tol, cudaStream_t stream,
                                    void* scratch = nullptr);
/// The same against a reference of `ref_dtype` (f32, bf16 or f16) read as it is, e.g. another
/// implementation's output for the same inputs: no fp32 copy of it first. The statistics are
/// those of compare_with_reference against that reference widened to fp32.
CompareStats compare_outputs(const void* out, DType dtype, const void* ref, DType ref_dtype,
                             int64_t count, int64_t cols, const CompareTolerance& tol,
                             cudaStream_t stream, void* scratch = nullptr);

/// Number of bytes that differ between two device buffers (synchronizes `stream`).
int64_t count_differing_bytes(const void* a, const void* b, int64_t bytes, cudaStream_t stream);

/// Two device byte ranges of `bytes` each, whose differing bytes add to counter `slot`.
struct ByteComparison {
  const void* a;
  const void* b;
  int64_t bytes;
  int slot;
};
/// Enqueues on `stream`: for each comparison, counters[slot] += the bytes in which its ranges
/// differ (device counters, zeroed by the caller). No allocation, no synchronization.
void add_differing_bytes(const std::vector<ByteComparison>& comparisons,
                         unsigned long long* counters, cudaStream_t stream);

}  // namespace ptxb
