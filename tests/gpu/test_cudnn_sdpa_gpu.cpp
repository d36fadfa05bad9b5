// The cuDNN attention baseline against the fp32 GPU reference on small shapes (causal and not,
// grouped-query heads, a sequence length that is not a multiple of any tile), forward and
// backward; its plan report; and its failure paths (foreign problem, run before plan, no cuDNN).
#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "baselines/cudnn_sdpa.hpp"
#include "core/error.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "device_copies.hpp"
#include "verify/gpu_verify.hpp"

namespace ptxb {
namespace {

struct Case {
  int64_t batch, heads, kv_heads, seq, head_dim;
  bool causal;
  std::string to_string() const {
    return "B" + std::to_string(batch) + " H" + std::to_string(heads) + " HKV" +
           std::to_string(kv_heads) + " S" + std::to_string(seq) + " D" + std::to_string(head_dim) +
           (causal ? " causal" : "");
  }
  int64_t q_elements() const { return batch * heads * seq * head_dim; }
  int64_t kv_elements() const { return batch * kv_heads * seq * head_dim; }
  int64_t lse_elements() const { return batch * heads * seq; }
  double scale() const { return 1.0 / std::sqrt(static_cast<double>(head_dim)); }
  AttentionDims dims() const {
    return {batch, heads, kv_heads, seq, head_dim, causal, static_cast<float>(scale())};
  }
};

ptxb_tensor_desc desc(ptxb_dtype dtype, const std::vector<int64_t>& shape) {
  ptxb_tensor_desc d{};
  d.dtype = dtype;
  d.rank = static_cast<int32_t>(shape.size());
  int64_t stride = 1;
  for (int i = d.rank - 1; i >= 0; --i) {
    d.shape[i] = shape[static_cast<size_t>(i)];
    d.strides[i] = stride;
    stride *= d.shape[i];
  }
  return d;
}

// A ptxb_problem and the arrays it points into, as the worker hands them over.
struct Problem {
  std::vector<ptxb_tensor_desc> inputs, outputs;
  std::vector<double> scalars;
  ptxb_problem view() const {
    return {PTXB_ABI_VERSION,
            static_cast<int32_t>(inputs.size()),
            static_cast<int32_t>(outputs.size()),
            static_cast<int32_t>(scalars.size()),
            inputs.data(),
            outputs.data(),
            scalars.data()};
  }
};

Problem attention_problem(const Case& c, SdpaDirection direction) {
  const std::vector<int64_t> q = {c.batch, c.heads, c.seq, c.head_dim};
  const std::vector<int64_t> kv = {c.batch, c.kv_heads, c.seq, c.head_dim};
  const std::vector<int64_t> lse = {c.batch, c.heads, c.seq};
  Problem p;
  p.scalars = {c.scale(), c.causal ? 1.0 : 0.0};
  p.inputs = {desc(PTXB_BF16, q), desc(PTXB_BF16, kv), desc(PTXB_BF16, kv)};
  if (direction == SdpaDirection::kForward) {
    p.outputs = {desc(PTXB_BF16, q), desc(PTXB_F32, lse)};
  } else {
    p.inputs.push_back(desc(PTXB_BF16, q));  // O
    p.inputs.push_back(desc(PTXB_BF16, q));  // dO
    p.inputs.push_back(desc(PTXB_F32, lse));
    p.outputs = {desc(PTXB_BF16, q), desc(PTXB_BF16, kv), desc(PTXB_BF16, kv)};
  }
  return p;
}

using testing::to_host_bf16;
using testing::to_host_f32;

// Every element within atol + rtol * |ref| (NaN fails); reports the first few that are not.
void expect_elementwise(const std::vector<float>& got, const std::vector<float>& ref, double atol,
                        double rtol, const char* what) {
  ASSERT_EQ(got.size(), ref.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(double(got[i]) - ref[i]) <= atol + rtol * std::fabs(double(ref[i]))) &&
        ++bad <= 5)
      ADD_FAILURE() << what << "[" << i << "] = " << got[i] << ", reference " << ref[i];
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << got.size() << " elements off";
}

// ||got - ref||_F / ||ref||_F <= bound, and no NaN.
void expect_rel_frobenius(const std::vector<float>& got, const std::vector<float>& ref,
                          double bound, const char* what) {
  ASSERT_EQ(got.size(), ref.size()) << what;
  double diff = 0, norm = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(std::isfinite(got[i])) << what << "[" << i << "] = " << got[i];
    diff += (double(got[i]) - ref[i]) * (double(got[i]) - ref[i]);
    norm += double(ref[i]) * ref[i];
  }
  EXPECT_LE(std::sqrt(diff / norm), bound) << what;
}

void expect_report(const CudnnSdpa& sdpa) {
  const nlohmann::json r = sdpa.plan_report();
  SCOPED_TRACE(r.dump(2));
  EXPECT_GE(r.value("cudnn_version", 0), 90000);
  EXPECT_FALSE(r.value("frontend_version", "").empty());
  EXPECT_GT(r.value("plans_offered", 0), 0);
  ASSERT_TRUE(r.contains("chosen"));
  EXPECT_FALSE(r.value("chosen_name", "").empty());
  EXPECT_GT(r.value("chosen_median_us", 0.0), 0.0);
  EXPECT_EQ(r.value("status", -1), PTXB_OK);
}

DeviceBuffer random_bf16(int64_t count, uint64_t stream_id, cudaStream_t stream) {
  DeviceBuffer d(static_cast<size_t>(count) * 2);
  fill_random(d.data(), DType::kBF16, count, ValueKind::kNormal, 1.0, 31, stream_id, stream);
  return d;
}

// With `prebuild`, the plans are built ahead (CudnnSdpa::prebuild) for this problem and another
// one, in two threads, and plan() must take them.
void check_forward(const Case& c, bool prebuild = false) {
  SCOPED_TRACE(c.to_string() + (prebuild ? " prebuilt" : ""));
  Stream stream;
  const DeviceBuffer q = random_bf16(c.q_elements(), 0, stream.get()),
                     k = random_bf16(c.kv_elements(), 1, stream.get()),
                     v = random_bf16(c.kv_elements(), 2, stream.get());
  DeviceBuffer o(c.q_elements() * 2), lse(c.lse_elements() * 4), ref_o(c.q_elements() * 4),
      ref_lse(c.lse_elements() * 4);
  poison(o.data(), DType::kBF16, c.q_elements(), stream.get());
  poison(lse.data(), DType::kF32, c.lse_elements(), stream.get());

  const Problem p = attention_problem(c, SdpaDirection::kForward);
  const ptxb_problem problem = p.view();
  CudnnSdpa sdpa(SdpaDirection::kForward);
  const Problem other = attention_problem({2, 4, 2, 256, 128, false}, SdpaDirection::kForward);
  const ptxb_problem other_problem = other.view();
  if (prebuild) sdpa.prebuild({&problem, &other_problem});
  uint64_t workspace_bytes = 1;
  ASSERT_EQ(sdpa.plan(problem, &workspace_bytes), PTXB_OK) << sdpa.plan_report().dump(2);
  EXPECT_EQ(sdpa.plan_report().value("prebuilt", !prebuild), prebuild);
  EXPECT_EQ(workspace_bytes, 0u);  // the baseline owns its workspace
  const void* inputs[] = {q.data(), k.data(), v.data()};
  void* outputs[] = {o.data(), lse.data()};
  const ptxb_args args{&problem, inputs, outputs, nullptr, 0, stream.get()};
  ASSERT_EQ(sdpa.run(args), PTXB_OK);
  reference_attention_forward(q.data(), k.data(), v.data(), ref_o.as<float>(), ref_lse.as<float>(),
                              c.dims(), stream.get());
  stream.synchronize();

  expect_elementwise(to_host_bf16(o, c.q_elements()), to_host_f32(ref_o, c.q_elements()), 2e-2,
                     1.0 / 64, "O");
  expect_elementwise(to_host_f32(lse, c.lse_elements()), to_host_f32(ref_lse, c.lse_elements()),
                     1e-3, 1e-3, "LSE");
  expect_report(sdpa);
}

// The backward's inputs as the attention tasks make them: O (rounded to bf16) and LSE from the
// reference forward. The reference backward gets that same bf16 O back in fp32.
// With `prefer`, the choice of another baseline's plan() of the problem is given first
// (CudnnSdpa::prefer): prebuild builds only that plan and plan() takes it untimed.
void check_backward(const Case& c, bool prebuild = false, bool prefer = false) {
  SCOPED_TRACE(c.to_string() + (prebuild ? " prebuilt" : "") + (prefer ? " preferred" : ""));
  Stream stream;
  const DeviceBuffer q = random_bf16(c.q_elements(), 0, stream.get()),
                     k = random_bf16(c.kv_elements(), 1, stream.get()),
                     v = random_bf16(c.kv_elements(), 2, stream.get()),
                     d_o = random_bf16(c.q_elements(), 3, stream.get());
  DeviceBuffer o_f32(c.q_elements() * 4), lse(c.lse_elements() * 4), delta(c.lse_elements() * 4);
  reference_attention_forward(q.data(), k.data(), v.data(), o_f32.as<float>(), lse.as<float>(),
                              c.dims(), stream.get());
  std::vector<float> o_host = to_host_f32(o_f32, c.q_elements());
  std::vector<__nv_bfloat16> o_bf16(o_host.size());
  for (size_t i = 0; i < o_host.size(); ++i) {
    o_bf16[i] = __float2bfloat16_rn(o_host[i]);
    o_host[i] = __bfloat162float(o_bf16[i]);
  }
  DeviceBuffer o(c.q_elements() * 2);
  PTXB_CHECK_CUDA(cudaMemcpy(o.data(), o_bf16.data(), o.bytes(), cudaMemcpyHostToDevice));
  PTXB_CHECK_CUDA(cudaMemcpy(o_f32.data(), o_host.data(), o_f32.bytes(), cudaMemcpyHostToDevice));

  DeviceBuffer dq(c.q_elements() * 2), dk(c.kv_elements() * 2), dv(c.kv_elements() * 2);
  DeviceBuffer ref_dq(c.q_elements() * 4), ref_dk(c.kv_elements() * 4), ref_dv(c.kv_elements() * 4);
  poison(dq.data(), DType::kBF16, c.q_elements(), stream.get());
  poison(dk.data(), DType::kBF16, c.kv_elements(), stream.get());
  poison(dv.data(), DType::kBF16, c.kv_elements(), stream.get());

  const Problem p = attention_problem(c, SdpaDirection::kBackward);
  const ptxb_problem problem = p.view();
  CudnnSdpa sdpa(SdpaDirection::kBackward);
  nlohmann::json chosen;
  if (prefer) {
    CudnnSdpa scout(SdpaDirection::kBackward);
    uint64_t scout_bytes = 0;
    ASSERT_EQ(scout.plan(problem, &scout_bytes), PTXB_OK) << scout.plan_report().dump(2);
    chosen = scout.plan_choice();
    ASSERT_TRUE(chosen.is_object());
    EXPECT_EQ(chosen["index"], scout.plan_report()["chosen"]);
    EXPECT_EQ(chosen["name"], scout.plan_report()["chosen_name"]);
    sdpa.prefer(nlohmann::json::array({chosen}));
  }
  if (prebuild) sdpa.prebuild({&problem});
  uint64_t workspace_bytes = 1;
  ASSERT_EQ(sdpa.plan(problem, &workspace_bytes), PTXB_OK) << sdpa.plan_report().dump(2);
  EXPECT_EQ(sdpa.plan_report().value("prebuilt", !prebuild), prebuild);
  EXPECT_EQ(sdpa.plan_report().value("choice", ""), prefer ? "preferred" : "timed");
  if (prefer) {
    EXPECT_EQ(sdpa.plan_choice(), chosen);
    const nlohmann::json report = sdpa.plan_report();  // a copy: held while the loop reads it
    int built = 0;
    for (const nlohmann::json& plan : report["plans"]) built += plan.value("built", false);
    EXPECT_EQ(built, 1) << "only the preferred plan is built";
    // The problem planned again (the worker plans each timed shape twice) shares the build.
    ASSERT_EQ(sdpa.plan(problem, &workspace_bytes), PTXB_OK) << sdpa.plan_report().dump(2);
    EXPECT_EQ(sdpa.plan_report().value("choice", ""), "preferred");
  }
  EXPECT_EQ(workspace_bytes, 0u);
  const void* inputs[] = {q.data(), k.data(), v.data(), o.data(), d_o.data(), lse.data()};
  void* outputs[] = {dq.data(), dk.data(), dv.data()};
  const ptxb_args args{&problem, inputs, outputs, nullptr, 0, stream.get()};
  ASSERT_EQ(sdpa.run(args), PTXB_OK);
  reference_attention_backward(q.data(), k.data(), v.data(), d_o.data(), o_f32.as<float>(),
                               lse.as<float>(), delta.as<float>(), ref_dq.as<float>(),
                               ref_dk.as<float>(), ref_dv.as<float>(), c.dims(), stream.get());
  stream.synchronize();

  expect_rel_frobenius(to_host_bf16(dq, c.q_elements()), to_host_f32(ref_dq, c.q_elements()), 1e-2,
                       "dQ");
  expect_rel_frobenius(to_host_bf16(dk, c.kv_elements()), to_host_f32(ref_dk, c.kv_elements()),
                       1e-2, "dK");
  expect_rel_frobenius(to_host_bf16(dv, c.kv_elements()), to_host_f32(ref_dv, c.kv_elements()),
                       1e-2, "dV");
  expect_report(sdpa);
  EXPECT_EQ(sdpa.plan_report().value("deterministic", true), false);
}

TEST(CudnnSdpaGpu, ForwardMatchesReference) {
  check_forward({1, 2, 2, 128, 64, false});
  check_forward({1, 2, 2, 200, 128, true});
  check_forward({2, 4, 2, 256, 128, false});  // grouped-query: two query heads per kv head
}

TEST(CudnnSdpaGpu, BackwardMatchesReference) {
  check_backward({1, 2, 2, 128, 64, false});
  check_backward({1, 2, 2, 200, 128, true});
}

TEST(CudnnSdpaGpu, PrebuiltPlansMatchReference) {
  check_forward({1, 2, 2, 200, 128, true}, true);
  check_backward({1, 2, 2, 200, 128, true}, true);
}

TEST(CudnnSdpaGpu, PreferredPlansAreBuiltAloneAndMatchReference) {
  check_backward({1, 2, 2, 200, 128, true}, true, true);
  check_backward({1, 2, 2, 128, 64, false}, false, true);
}

TEST(CudnnSdpaGpu, ForeignProblemIsUnsupportedWithReason) {
  Problem p = attention_problem({1, 3, 2, 128, 64, false}, SdpaDirection::kForward);  // 3 % 2
  CudnnSdpa sdpa(SdpaDirection::kForward);
  uint64_t workspace_bytes = 0;
  EXPECT_EQ(sdpa.plan(p.view(), &workspace_bytes),
            static_cast<int>(CudnnSdpaStatus::kUnsupportedProblem));
  EXPECT_NE(sdpa.plan_report().value("error", "").find("not a multiple"), std::string::npos)
      << sdpa.plan_report().dump(2);

  // A forward problem handed to the backward baseline: the tensor counts differ.
  CudnnSdpa backward(SdpaDirection::kBackward);
  p = attention_problem({1, 2, 2, 128, 64, false}, SdpaDirection::kForward);
  EXPECT_EQ(backward.plan(p.view(), &workspace_bytes),
            static_cast<int>(CudnnSdpaStatus::kUnsupportedProblem));
  // ... and run() without a successful plan() is refused, not executed.
  const ptxb_problem problem = p.view();
  const ptxb_args args{&problem, nullptr, nullptr, nullptr, 0, nullptr};
  EXPECT_EQ(backward.run(args), static_cast<int>(CudnnSdpaStatus::kNotPlanned));
}

// cuDNN is opened once per process, so the missing library is tried in a fresh one.
TEST(CudnnSdpaGpuDeathTest, MissingLibraryIsAnApiErrorAtPlanTime) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        CudnnSdpa sdpa(SdpaDirection::kForward, "libcudnn_not_installed.so.9");  // no throw
        const Problem p = attention_problem({1, 2, 2, 128, 64, false}, SdpaDirection::kForward);
        uint64_t workspace_bytes = 0;
        try {
          sdpa.plan(p.view(), &workspace_bytes);
        } catch (const ApiError& e) {
          const bool named =
              std::string(e.what()).find("libcudnn_not_installed") != std::string::npos;
          std::exit(named ? 0 : 2);
        }
        std::exit(3);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace ptxb
