// The GPU attention reference (fp64 inside, fp32 out) against the fp64 CPU reference on small
// shapes (causal and not, grouped-query heads, sequence lengths that are not multiples of
// anything, more query rows than one score tile holds), forward and backward: equal to 1e-5.
#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "device_copies.hpp"
#include "fp64_expect.hpp"
#include "reference/attention_fp64.hpp"
#include "verify/gpu_verify.hpp"

namespace ptxb {
namespace {

// bf16 values on the host, and the same values as doubles.
struct Tensor {
  std::vector<__nv_bfloat16> bf16;
  std::vector<double> f64;
};

Tensor random_tensor(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.f, 1.f);
  Tensor t;
  for (int64_t i = 0; i < n; ++i) {
    t.bf16.push_back(__float2bfloat16_rn(dist(gen)));
    t.f64.push_back(static_cast<double>(__bfloat162float(t.bf16.back())));
  }
  return t;
}

DeviceBuffer upload(const std::vector<__nv_bfloat16>& host) {
  DeviceBuffer d(host.size() * sizeof(__nv_bfloat16));
  PTXB_CHECK_CUDA(cudaMemcpy(d.data(), host.data(), d.bytes(), cudaMemcpyHostToDevice));
  return d;
}

using testing::to_host_f32;

// `tile_elements`: the references' score tile (kAttentionTileElements, or fewer to make the shape
// span several query tiles).
void check_shape(const AttentionShape& s, int64_t tile_elements = kAttentionTileElements) {
  const Tensor q = random_tensor(s.q_elements(), 11), k = random_tensor(s.kv_elements(), 12),
               v = random_tensor(s.kv_elements(), 13), dout = random_tensor(s.q_elements(), 14);
  const AttentionForward want = attention_forward_fp64(s, q.f64, k.f64, v.f64);
  const AttentionGradients grads = attention_backward_fp64(s, q.f64, k.f64, v.f64, dout.f64);

  const AttentionDims dims{
      s.batch, s.heads, s.kv_heads, s.seq, s.head_dim, s.causal, static_cast<float>(s.scale)};
  const DeviceBuffer dq_in = upload(q.bf16), dk_in = upload(k.bf16), dv_in = upload(v.bf16),
                     ddo_in = upload(dout.bf16);
  DeviceBuffer out(s.q_elements() * 4), lse(s.lse_elements() * 4), delta(s.lse_elements() * 4),
      dq(s.q_elements() * 4), dk(s.kv_elements() * 4), dv(s.kv_elements() * 4);
  Stream stream;
  reference_attention_forward(dq_in.data(), dk_in.data(), dv_in.data(), out.as<float>(),
                              lse.as<float>(), dims, stream.get(), tile_elements);
  reference_attention_backward(dq_in.data(), dk_in.data(), dv_in.data(), ddo_in.data(),
                               out.as<float>(), lse.as<float>(), delta.as<float>(), dq.as<float>(),
                               dk.as<float>(), dv.as<float>(), dims, stream.get(), tile_elements);
  testing::expect_close_to_fp64(to_host_f32(out, want.out.size()), want.out, "O");
  testing::expect_close_to_fp64(to_host_f32(lse, want.lse.size()), want.lse, "LSE");
  testing::expect_close_to_fp64(to_host_f32(dq, grads.dq.size()), grads.dq, "dQ");
  testing::expect_close_to_fp64(to_host_f32(dk, grads.dk.size()), grads.dk, "dK");
  testing::expect_close_to_fp64(to_host_f32(dv, grads.dv.size()), grads.dv, "dV");
}

TEST(GpuAttentionReference, MatchesFp64Causal_GroupedQuery) {
  check_shape({2, 4, 2, 77, 64, true, 1.0 / std::sqrt(64.0)});
}

// Groups of 4 and 8 query heads per kv head (sm90/attention/bwd-bf16-gqa), ragged lengths.
TEST(GpuAttentionReference, MatchesFp64LargerGroups) {
  check_shape({1, 8, 1, 100, 128, false, 1.0 / std::sqrt(128.0)});
  check_shape({2, 8, 2, 65, 64, true, 1.0 / std::sqrt(64.0)});
}

TEST(GpuAttentionReference, MatchesFp64NonCausalHeadDim128) {
  check_shape({1, 2, 2, 130, 128, false, 1.0 / std::sqrt(128.0)});
}

TEST(GpuAttentionReference, MatchesFp64AcrossQueryTiles) {
  // 77 keys, 13 query rows per tile: six tiles, the last one partial; causal tiles see fewer keys.
  check_shape({2, 4, 2, 77, 64, true, 1.0 / std::sqrt(64.0)}, 13 * 77);
  check_shape({1, 2, 1, 130, 128, false, 1.0 / std::sqrt(128.0)}, 7 * 130);
}

}  // namespace
}  // namespace ptxb
