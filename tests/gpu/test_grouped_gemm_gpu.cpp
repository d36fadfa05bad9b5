// The grouped GEMM family on the GPU: drawn offsets (some groups empty, some of one row) reach
// the host mirror, the reference equals a per-group fp64 CPU product, and the library baseline,
// given the group sizes through the mirror, matches the reference on both of its paths (the
// cuBLASLt loop, cublasGemmGroupedBatchedEx); without a mirror it refuses.
#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "baselines/cublaslt_grouped_gemm.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/host_mirror.hpp"
#include "device_copies.hpp"
#include "tasks/spec.hpp"
#include "worker/problem.hpp"

namespace ptxb {
namespace {

const std::filesystem::path kTasksRoot = std::filesystem::path(PTXB_SOURCE_DIR) / "tasks";

// The shipped task; its first shape is G 4, M 1000, N 512, K 512.
TaskSpec grouped_task() {
  return find_task(kTasksRoot, load_catalog(kTasksRoot / "catalog"), "sm90/gemm/bf16-grouped");
}

using testing::to_host;

TEST(GroupedGemmGpu, ReferenceAndBaselineFollowTheOffsets) {
  const TaskSpec task = grouped_task();
  const ShapeCase& sc = task.shapes[0];
  const int64_t G = 4, M = 1000, N = 512, K = 512;
  ASSERT_EQ(sc.shape, (Shape{{{"G", G}, {"M", M}, {"N", N}, {"K", K}}}));
  Stream s;
  DeviceProblem p(task, sc.shape);
  p.generate_inputs(task.correctness.distributions[0], 4, s.get());
  const std::vector<int32_t> offsets = to_host<int32_t>(p.pristine("offsets"), G + 1);
  const std::vector<int64_t>* mirror = mirrored_host_integers(p.input("offsets"));
  ASSERT_NE(mirror, nullptr) << "the upload records the host copy";
  ASSERT_EQ(mirror->size(), offsets.size());
  int empty = 0;
  for (int64_t g = 0; g <= G; ++g) EXPECT_EQ((*mirror)[g], offsets[g]);
  for (int64_t g = 0; g < G; ++g) empty += offsets[g + 1] == offsets[g];
  EXPECT_GT(empty, 0) << "the draw leaves some groups empty (seed 4: two, and one of one row)";

  p.compute_reference(s.get());
  const std::vector<__nv_bfloat16> a = to_host<__nv_bfloat16>(p.pristine("A"), M * K);
  const std::vector<__nv_bfloat16> b = to_host<__nv_bfloat16>(p.pristine("B"), G * N * K);
  const std::vector<float> ref = to_host<float>(p.reference("C"), M * N);
  for (int64_t g = 0; g < G; ++g)
    for (int64_t m = offsets[g]; m < offsets[g + 1]; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double want = 0;
        for (int64_t k = 0; k < K; ++k)
          want += double(__bfloat162float(a[m * K + k])) *
                  double(__bfloat162float(b[(g * N + n) * K + k]));
        ASSERT_NEAR(ref[m * N + n], want, 1e-5 * (1 + std::fabs(want)))
            << g << " " << m << " " << n;
      }

  CublasLtGroupedGemm library(8, 32 << 20);
  uint64_t workspace = 0;
  ASSERT_EQ(library.plan(p.problem(), &workspace), PTXB_OK) << library.plan_report().dump();
  p.poison_outputs(s.get());
  ASSERT_EQ(library.run(p.args(nullptr, 0, s.get())), PTXB_OK);
  CompareTolerance tol;
  tol.atol = 0.01;
  tol.rtol = 0.0078125;
  EXPECT_TRUE(p.compare_output(0, tol, s.get()).passed(tol));

  // The other path, one cublasGemmGroupedBatchedEx call, computes the same; tune() times both
  // on these buffers and reports the one it keeps.
  library.use_path(CublasLtGroupedGemm::Path::kGroupedBatched);
  p.poison_outputs(s.get());
  ASSERT_EQ(library.run(p.args(nullptr, 0, s.get())), PTXB_OK);
  EXPECT_TRUE(p.compare_output(0, tol, s.get()).passed(tol));
  ASSERT_EQ(library.tune(p.args(nullptr, 0, s.get())), PTXB_OK);
  const nlohmann::json report = library.plan_report();
  EXPECT_GT(report["paths"]["loop"]["median_us"].get<double>(), 0) << report.dump();
  EXPECT_GT(report["paths"]["grouped_batched"]["median_us"].get<double>(), 0) << report.dump();
  EXPECT_TRUE(report["chosen_path"] == "loop" || report["chosen_path"] == "grouped_batched");

  // Without the host record of its offsets the library cannot know the groups.
  forget_mirror(p.input("offsets"));
  EXPECT_EQ(library.run(p.args(nullptr, 0, s.get())), 7);
}

}  // namespace
}  // namespace ptxb
