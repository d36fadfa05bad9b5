// The variable-length attention forward family on the GPU (the shipped task's two small visible
// shapes): cu_seqlens is the shape's ragged batch and reaches the host mirror; the reference (each
// sequence through the dense fp64 reference) equals the fp64 CPU definition; and cuDNN's SDPA on
// the ragged layout, given the lengths through the mirror, matches the reference within the
// task's tolerance. Without a mirror the baseline refuses.
#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "baselines/cudnn_sdpa.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/host_mirror.hpp"
#include "device_copies.hpp"
#include "families/structured_values.hpp"
#include "reference/attention_varlen_fp64.hpp"
#include "tasks/spec.hpp"
#include "worker/problem.hpp"

namespace ptxb {
namespace {

const std::filesystem::path kTasksRoot = std::filesystem::path(PTXB_SOURCE_DIR) / "tasks";

using testing::to_host;

std::vector<double> bf16_as_double(const void* device, int64_t count) {
  const std::vector<__nv_bfloat16> h = to_host<__nv_bfloat16>(device, count);
  std::vector<double> out(h.size());
  for (size_t i = 0; i < h.size(); ++i) out[i] = __bfloat162float(h[i]);
  return out;
}

TEST(AttentionVarlenGpu, ReferenceAndBaselineFollowTheRaggedBatch) {
  const TaskSpec task =
      find_task(kTasksRoot, load_catalog(kTasksRoot / "catalog"), "sm90/attention/fwd-varlen");
  for (size_t index : {0, 1}) {
    const ShapeCase& sc = task.shapes[index];
    SCOPED_TRACE(sc.shape.to_string());
    const int64_t B = sc.shape.at("B"), T = sc.shape.at("T"), S = sc.shape.at("S");
    const int64_t H = sc.shape.at("H"), HKV = sc.shape.at("HKV"), D = sc.shape.at("D");
    Stream s;
    DeviceProblem p(task, sc.shape);
    p.generate_inputs(task.correctness.distributions[0], 1, s.get());
    const std::vector<int32_t> offsets = to_host<int32_t>(p.pristine("cu_seqlens"), B + 1);
    const std::vector<int64_t> want = shape_sequence_offsets(B, T, S);
    ASSERT_EQ(std::vector<int64_t>(offsets.begin(), offsets.end()), want);
    const std::vector<int64_t>* mirror = mirrored_host_integers(p.input("cu_seqlens"));
    ASSERT_NE(mirror, nullptr) << "the upload records the host copy";
    EXPECT_EQ(*mirror, want);

    p.compute_reference(s.get());
    VarlenAttentionShape v;
    v.heads = H, v.kv_heads = HKV, v.head_dim = D;
    v.causal = sc.shape.find("causal").value_or(0) != 0;
    v.scale = 1.0 / std::sqrt(static_cast<double>(D));
    v.offsets = want;
    const AttentionForward cpu = attention_varlen_forward_fp64(
        v, bf16_as_double(p.pristine("Q"), T * H * D), bf16_as_double(p.pristine("K"), T * HKV * D),
        bf16_as_double(p.pristine("V"), T * HKV * D));
    const std::vector<float> ref = to_host<float>(p.reference("O"), T * H * D);
    for (size_t i = 0; i < ref.size(); ++i)
      ASSERT_NEAR(ref[i], cpu.out[i], 1e-5 * (1 + std::fabs(cpu.out[i]))) << "element " << i;

    CudnnSdpa library(SdpaDirection::kVarlenForward);
    uint64_t workspace = 0;
    ASSERT_EQ(library.plan(p.problem(), &workspace), PTXB_OK) << library.plan_report().dump();
    ASSERT_EQ(library.tune(p.args(nullptr, 0, s.get())), PTXB_OK) << library.plan_report().dump();
    p.poison_outputs(s.get());
    ASSERT_EQ(library.run(p.args(nullptr, 0, s.get())), PTXB_OK);
    const DistributionSpec& dist = task.correctness.distributions[0];
    CompareTolerance tol;
    tol.atol = dist.atol;
    tol.rtol = dist.rtol;
    tol.atol_rms = dist.atol_rms;
    tol.max_rel_frobenius = dist.max_rel_frobenius;
    const CompareStats stats = p.compare_output(0, tol, s.get());
    EXPECT_TRUE(stats.passed(tol))
        << "mismatches " << stats.mismatches << ", max abs error " << stats.max_abs_error;

    // Without the host record of its lengths the library cannot place the sequences.
    forget_mirror(p.input("cu_seqlens"));
    EXPECT_NE(library.run(p.args(nullptr, 0, s.get())), PTXB_OK);
  }
}

}  // namespace
}  // namespace ptxb
