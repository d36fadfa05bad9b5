// The fp8 cuBLASLt baselines against the fp64 references, with random scales: the per-tensor mode
// (the scale pointers, whose operands cuBLASLt's "TN" view swaps) and the block-scaled mode
// (VEC128_32F for A, BLK128x128_32F for B), whose scale layout PTXBench assumes to be
// scale_a [ceil(K/128), M] and scale_b [ceil(N/128), ceil(K/128)], row-major. Shapes that are no
// multiple of the 128 blocks in M and N, and several k-blocks, so that a transposed or misplaced
// scale shows.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "baselines/cublaslt_gemm.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "device_copies.hpp"
#include "families/structured_values.hpp"
#include "verify/gpu_verify.hpp"

namespace ptxb {
namespace {

using testing::to_host_bf16;
using testing::to_host_f32;

ptxb_tensor_desc desc(DType dtype, std::vector<int64_t> shape) {
  ptxb_tensor_desc d{};
  d.dtype = static_cast<int32_t>(dtype);
  d.rank = static_cast<int32_t>(shape.size());
  int64_t stride = 1;
  for (int i = d.rank - 1; i >= 0; --i) {
    d.shape[i] = shape[static_cast<size_t>(i)];
    d.strides[i] = stride;
    stride *= d.shape[i];
  }
  return d;
}

DeviceBuffer upload_scales(int64_t count, uint64_t seed) {
  const std::vector<double> drawn = draw_scales(count, seed);
  const std::vector<float> values(drawn.begin(), drawn.end());
  DeviceBuffer d(values.size() * sizeof(float));
  PTXB_CHECK_CUDA(cudaMemcpy(d.data(), values.data(), d.bytes(), cudaMemcpyHostToDevice));
  return d;
}

// C (bf16) against the reference: bf16 rounding of the output, 2^-7 of |ref| and of its RMS.
void expect_close(const DeviceBuffer& c, const DeviceBuffer& ref, int64_t count) {
  const std::vector<float> got = to_host_bf16(c, count), want = to_host_f32(ref, count);
  double squares = 0;
  for (float w : want) squares += double(w) * w;
  const double rms = std::sqrt(squares / static_cast<double>(count));
  int bad = 0;
  for (int64_t i = 0; i < count && bad < 5; ++i)
    if (!(std::fabs(got[i] - want[i]) <= 0x1p-7 * (std::fabs(want[i]) + rms))) {
      ADD_FAILURE() << "C[" << i << "] = " << got[i] << ", reference " << want[i];
      ++bad;
    }
}

// With `prefer`, the baseline is given the choices first (CublasLtGemm::prefer) and the report
// must say whether it took one.
void check(GemmScaling scaling, int64_t M, int64_t N, int64_t K,
           const nlohmann::json& prefer = nullptr, const char* choice = "timed") {
  SCOPED_TRACE("M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K));
  const bool blockwise = scaling == GemmScaling::kBlockwise;
  const int64_t kb = (K + 127) / 128, nb = (N + 127) / 128;
  Stream s;
  DeviceBuffer a(size_t(M * K)), b(size_t(N * K)), c(size_t(M * N * 2)), ref(size_t(M * N * 4));
  fill_random(a.data(), DType::kF8E4M3, M * K, ValueKind::kNormal, 1.0, 21, 0, s.get());
  fill_random(b.data(), DType::kF8E4M3, N * K, ValueKind::kNormal, 1.0, 21, 1, s.get());
  const DeviceBuffer sa = upload_scales(blockwise ? kb * M : 1, 5),
                     sb = upload_scales(blockwise ? nb * kb : 1, 6);
  const ptxb_tensor_desc in[4] = {
      desc(DType::kF8E4M3, {M, K}), desc(DType::kF8E4M3, {N, K}),
      desc(DType::kF32, blockwise ? std::vector<int64_t>{kb, M} : std::vector<int64_t>{1}),
      desc(DType::kF32, blockwise ? std::vector<int64_t>{nb, kb} : std::vector<int64_t>{1})};
  const ptxb_tensor_desc out[1] = {desc(DType::kBF16, {M, N})};
  const ptxb_problem problem{PTXB_ABI_VERSION, 4, 1, 0, in, out, nullptr};
  CublasLtGemm library(32, 32 << 20, GemmEpilogue::kNone, scaling);
  if (!prefer.is_null()) library.prefer(prefer);
  uint64_t workspace = 0;
  ASSERT_EQ(library.plan(problem, &workspace), PTXB_OK) << library.plan_report().dump();
  EXPECT_EQ(library.plan_report().value("choice", ""), choice) << library.plan_report().dump();
  const void* inputs[4] = {a.data(), b.data(), sa.data(), sb.data()};
  void* outputs[1] = {c.data()};
  const ptxb_args args{&problem, inputs, outputs, nullptr, 0, s.get()};
  ASSERT_EQ(library.run(args), PTXB_OK);
  if (blockwise) {
    reference_gemm_blockwise(a.data(), b.data(), sa.as<float>(), sb.as<float>(), ref.as<float>(), M,
                             N, K, s.get());
  } else {
    const std::vector<float> scale_a = to_host_f32(sa, 1), scale_b = to_host_f32(sb, 1);
    reference_gemm(a.data(), DType::kF8E4M3, b.data(), DType::kF8E4M3,
                   double(scale_a[0]) * scale_b[0], ref.as<float>(), M, N, K, s.get());
  }
  expect_close(c, ref, M * N);
}

TEST(CublasLtFp8, PerTensorScalesMatchTheReference) {
  check(GemmScaling::kPerTensor, 200, 328, 640);
}

TEST(CublasLtFp8, BlockScalesMatchTheReferenceLayout) {
  check(GemmScaling::kBlockwise, 200, 328, 640);
  check(GemmScaling::kBlockwise, 512, 256, 1024);
  check(GemmScaling::kBlockwise, 256, 384, 768);   // 6 k-blocks
  check(GemmScaling::kBlockwise, 204, 328, 1408);  // 11 k-blocks
  // M % 4 != 0: cuBLASLt 13.1 offers no algorithm (CUBLAS_STATUS_NOT_SUPPORTED, H200): the
  // baseline is unavailable there, with the reason in its report.
}

// The choice of one plan() (Implementation::plan_choice), given to another baseline, is taken
// untimed and computes the same product; a choice whose algorithm bytes the heuristic no longer
// offers at that place is not (every algorithm is timed again).
TEST(CublasLtChoices, APreferredPlanIsTakenUntimedOnlyWhenStillOffered) {
  const int64_t M = 256, N = 384, K = 768, kb = K / 128, nb = N / 128;
  const ptxb_tensor_desc in[4] = {desc(DType::kF8E4M3, {M, K}), desc(DType::kF8E4M3, {N, K}),
                                  desc(DType::kF32, {kb, M}), desc(DType::kF32, {nb, kb})};
  const ptxb_tensor_desc out[1] = {desc(DType::kBF16, {M, N})};
  const ptxb_problem problem{PTXB_ABI_VERSION, 4, 1, 0, in, out, nullptr};
  CublasLtGemm scout(32, 32 << 20, GemmEpilogue::kNone, GemmScaling::kBlockwise);
  uint64_t workspace = 0;
  ASSERT_EQ(scout.plan(problem, &workspace), PTXB_OK) << scout.plan_report().dump();
  const nlohmann::json chosen = scout.plan_choice();
  ASSERT_TRUE(chosen.is_object());
  EXPECT_EQ(chosen["problem"], "256x384x768 e4m3 e4m3 bf16 blockwise");
  EXPECT_EQ(chosen["index"], scout.plan_report()["chosen"]);
  check(GemmScaling::kBlockwise, M, N, K, nlohmann::json::array({chosen}), "preferred");
  nlohmann::json stale = chosen;
  stale["algo"] = std::string(stale["algo"].get<std::string>().size(), '0');
  check(GemmScaling::kBlockwise, M, N, K, nlohmann::json::array({stale}), "timed");
  nlohmann::json other_library = chosen;
  other_library["library"] = "cublaslt 1";
  check(GemmScaling::kBlockwise, M, N, K, nlohmann::json::array({other_library}), "timed");
}

}  // namespace
}  // namespace ptxb
