// The GPU paged decode reference (fp64 inside, fp32 out) against the fp64 CPU definition
// (reference/attention_paged_fp64.hpp): shuffled page tables drawn as the worker draws them,
// single- and multi-token queries (bottom-right causal), grouped-query heads, histories longer
// than one chunk of keys, head dims 64 and 256: equal to 1e-5. Then the baseline, cuDNN's SDPA
// over the same paged cache (baselines/cudnn_sdpa.hpp, kPagedDecode), against this reference.
#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "baselines/cudnn_sdpa.hpp"
#include "core/error.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "device_copies.hpp"
#include "families/structured_values.hpp"
#include "fp64_expect.hpp"
#include "reference/attention_paged_fp64.hpp"
#include "verify/gpu_verify.hpp"

namespace ptxb {
namespace {

// n normal values rounded to bf16, on the device, and the same values as doubles.
DeviceBuffer random_bf16(int64_t n, uint32_t seed, std::vector<double>& as_double) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.f, 1.f);
  std::vector<__nv_bfloat16> host(static_cast<size_t>(n));
  as_double.resize(host.size());
  for (size_t i = 0; i < host.size(); ++i) {
    host[i] = __float2bfloat16_rn(dist(gen));
    as_double[i] = static_cast<double>(__bfloat162float(host[i]));
  }
  DeviceBuffer d(host.size() * sizeof(__nv_bfloat16));
  PTXB_CHECK_CUDA(cudaMemcpy(d.data(), host.data(), d.bytes(), cudaMemcpyHostToDevice));
  return d;
}

DeviceBuffer upload_i32(const std::vector<int64_t>& values) {
  const std::vector<int32_t> narrow(values.begin(), values.end());
  DeviceBuffer d(narrow.size() * sizeof(int32_t));
  PTXB_CHECK_CUDA(cudaMemcpy(d.data(), narrow.data(), d.bytes(), cudaMemcpyHostToDevice));
  return d;
}

// A problem of lengths {q_len.., .., 600} over 3 sequences in a pool with 5 spare pages.
PagedDecodeShape paged_shape(int64_t q_len, int64_t head_dim) {
  PagedDecodeShape s;
  s.q_len = q_len;
  s.heads = 8;
  s.kv_heads = 2;
  s.head_dim = head_dim;
  s.page_size = 16;
  s.scale = 0.125;  // exact in fp32, as the GPU reference takes it
  s.seq_lens = shape_sequence_lengths(3, 700, 600, q_len);  // one history of 600: 3 key chunks
  s.max_pages = 38;
  s.num_pages = pages_needed(s.seq_lens, s.page_size) + 5;
  s.page_table = draw_page_table(s.seq_lens, s.page_size, s.max_pages, s.num_pages, 7);
  return s;
}

PagedDecodeDims gpu_dims(const PagedDecodeShape& s) {
  return {s.batch(),  s.q_len,     s.heads,     s.kv_heads,
          s.head_dim, s.page_size, s.max_pages, static_cast<float>(s.scale)};
}

void check(int64_t q_len, int64_t head_dim) {
  const PagedDecodeShape s = paged_shape(q_len, head_dim);
  std::vector<double> q, k, v;
  const DeviceBuffer dq = random_bf16(s.q_elements(), 1, q);
  const DeviceBuffer dk = random_bf16(s.cache_elements(), 2, k);
  const DeviceBuffer dv = random_bf16(s.cache_elements(), 3, v);
  const DeviceBuffer lens = upload_i32(s.seq_lens), table = upload_i32(s.page_table);
  const AttentionForward want = attention_paged_decode_fp64(s, q, k, v);

  const PagedDecodeDims dims = gpu_dims(s);
  DeviceBuffer out(want.out.size() * 4), lse(want.lse.size() * 4);
  Stream stream;
  reference_paged_decode(dq.data(), dk.data(), dv.data(), lens.as<int32_t>(), table.as<int32_t>(),
                         out.as<float>(), lse.as<float>(), dims, stream.get());
  testing::expect_close_to_fp64(testing::to_host_f32(out, static_cast<int64_t>(want.out.size())),
                                want.out, "O");
  testing::expect_close_to_fp64(testing::to_host_f32(lse, static_cast<int64_t>(want.lse.size())),
                                want.lse, "LSE");
}

TEST(PagedDecodeReferenceGpu, MatchesTheFp64DefinitionThroughShuffledTables) {
  for (const int64_t q_len : {1, 4})
    for (const int64_t head_dim : {64, 256}) {
      SCOPED_TRACE("q_len " + std::to_string(q_len) + ", head_dim " + std::to_string(head_dim));
      check(q_len, head_dim);
    }
}

ptxb_tensor_desc row_major(ptxb_dtype dtype, std::vector<int64_t> shape) {
  ptxb_tensor_desc t{};
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(shape.size());
  int64_t stride = 1;
  for (int i = t.rank - 1; i >= 0; --i) {
    t.shape[i] = shape[static_cast<size_t>(i)];
    t.strides[i] = stride;
    stride *= t.shape[i];
  }
  return t;
}

// The ABI description of a paged decode problem of shape `s` (Q [B,SQ,H,D], the caches, seq_lens,
// page_table | O, LSE; scalars scale and max_seqlen). Not copyable: `problem` points into it.
struct PagedAbiProblem {
  PagedAbiProblem(const PagedDecodeShape& s, double max_seqlen)
      : inputs{row_major(PTXB_BF16, {s.batch(), s.q_len, s.heads, s.head_dim}),
               row_major(PTXB_BF16, {s.num_pages, s.page_size, s.kv_heads, s.head_dim}),
               row_major(PTXB_BF16, {s.num_pages, s.page_size, s.kv_heads, s.head_dim}),
               row_major(PTXB_I32, {s.batch()}), row_major(PTXB_I32, {s.batch(), s.max_pages})},
        outputs{row_major(PTXB_BF16, {s.batch(), s.q_len, s.heads, s.head_dim}),
                row_major(PTXB_F32, {s.batch(), s.q_len, s.heads})},
        scalars{s.scale, max_seqlen},
        problem{PTXB_ABI_VERSION, 5, 2, 2, inputs, outputs, scalars} {}
  PagedAbiProblem(const PagedAbiProblem&) = delete;
  PagedAbiProblem& operator=(const PagedAbiProblem&) = delete;

  ptxb_tensor_desc inputs[5];
  ptxb_tensor_desc outputs[2];
  double scalars[2];
  ptxb_problem problem;
};

// cuDNN's paged SDPA on the shape's shuffled table, O (bf16) and LSE against the GPU reference:
// O within the bf16 tasks' tolerance (1e-2 + 2^-7 |ref|), LSE within 1e-4.
void check_cudnn(int64_t q_len, int64_t head_dim) {
  const PagedDecodeShape s = paged_shape(q_len, head_dim);
  std::vector<double> q, k, v;
  const DeviceBuffer dq = random_bf16(s.q_elements(), 11, q);
  const DeviceBuffer dk = random_bf16(s.cache_elements(), 12, k);
  const DeviceBuffer dv = random_bf16(s.cache_elements(), 13, v);
  const DeviceBuffer lens = upload_i32(s.seq_lens), table = upload_i32(s.page_table);
  const int64_t rows = s.batch() * q_len * s.heads;
  DeviceBuffer ref_out(s.q_elements() * 4), ref_lse(rows * 4);
  DeviceBuffer out(s.q_elements() * 2), lse(rows * 4);
  Stream stream;
  reference_paged_decode(dq.data(), dk.data(), dv.data(), lens.as<int32_t>(), table.as<int32_t>(),
                         ref_out.as<float>(), ref_lse.as<float>(), gpu_dims(s), stream.get());

  const PagedAbiProblem abi(s, 600.0);  // max_seqlen: the longest history
  const ptxb_problem& problem = abi.problem;
  const void* in_ptrs[] = {dq.data(), dk.data(), dv.data(), lens.data(), table.data()};
  void* out_ptrs[] = {out.data(), lse.data()};
  const ptxb_args args{&problem, in_ptrs, out_ptrs, nullptr, 0, stream.get()};

  CudnnSdpa library(SdpaDirection::kPagedDecode);
  uint64_t workspace = 0;
  ASSERT_EQ(library.plan(problem, &workspace), PTXB_OK) << library.plan_report().dump();
  EXPECT_EQ(library.plan_report().value("direction", ""), "paged decode");
  ASSERT_EQ(library.run(args), PTXB_OK);
  const std::vector<float> got = testing::to_host_bf16(out, s.q_elements());
  const std::vector<float> want = testing::to_host_f32(ref_out, s.q_elements());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-2 + std::ldexp(std::fabs(want[i]), -7)) << "O element " << i;
  const std::vector<float> got_lse = testing::to_host_f32(lse, rows);
  const std::vector<float> want_lse = testing::to_host_f32(ref_lse, rows);
  for (size_t i = 0; i < got_lse.size(); ++i)
    ASSERT_NEAR(got_lse[i], want_lse[i], 1e-4) << "LSE row " << i;
}

TEST(PagedDecodeCudnnGpu, MatchesTheReferenceThroughShuffledTables) {
  for (const int64_t q_len : {1, 4})
    for (const int64_t head_dim : {64, 128}) {
      SCOPED_TRACE("q_len " + std::to_string(q_len) + ", head_dim " + std::to_string(head_dim));
      check_cudnn(q_len, head_dim);
    }
}

TEST(PagedDecodeCudnnGpu, RefusesAMaxSeqlenPastTheTable) {
  const PagedDecodeShape s = paged_shape(1, 64);
  const PagedAbiProblem abi(s, static_cast<double>(s.max_pages * s.page_size + 1));
  CudnnSdpa library(SdpaDirection::kPagedDecode);
  uint64_t workspace = 0;
  EXPECT_EQ(library.plan(abi.problem, &workspace),
            static_cast<int>(CudnnSdpaStatus::kUnsupportedProblem));
  EXPECT_NE(library.plan_report().value("error", "").find("max_seqlen"), std::string::npos);
}

TEST(PagedDecodeReferenceGpu, RefusesHeadDimsAbove256) {
  PagedDecodeDims dims;
  dims.head_dim = 320;
  EXPECT_THROW(reference_paged_decode(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                      dims, nullptr),
               InputError);
}

}  // namespace
}  // namespace ptxb
