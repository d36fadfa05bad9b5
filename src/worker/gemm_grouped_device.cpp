// The GPU side of the grouped GEMM family: the reference is one fp64 GEMM per non-empty group
// (bf16 widened exactly, rounded once to fp32) over the pristine inputs, its group sizes read
// back from the pristine offsets; the baseline is cuBLASLt, one call per group
// (baselines/cublaslt_grouped_gemm.hpp).
#include <vector>

#include "baselines/cublaslt_grouped_gemm.hpp"
#include "core/error.hpp"
#include "cuda/cuda_check.hpp"
#include "verify/gpu_verify.hpp"
#include "worker/family_device.hpp"

namespace ptxb {
namespace {

class GemmGroupedDevice final : public FamilyDevice {
 public:
  std::string_view name() const override { return "gemm_grouped"; }

  void compute_reference(DeviceProblem& p, cudaStream_t stream) const override {
    const Shape& s = p.shape();
    const int64_t G = s.at("G"), M = s.at("M"), N = s.at("N"), K = s.at("K");
    std::vector<int32_t> offsets(static_cast<size_t>(G + 1));
    PTXB_CHECK_CUDA(cudaMemcpyAsync(offsets.data(), p.pristine("offsets"),
                                    offsets.size() * sizeof(int32_t), cudaMemcpyDeviceToHost,
                                    stream));
    PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
    PTXB_ASSERT(offsets.front() == 0 && offsets.back() == M, "group offsets from 0 to M");
    const auto* a = static_cast<const uint8_t*>(p.pristine("A"));
    const auto* b = static_cast<const uint8_t*>(p.pristine("B"));
    float* ref = p.reference("C");
    for (int64_t g = 0; g < G; ++g) {
      const int64_t row0 = offsets[g], rows = offsets[g + 1] - row0;
      PTXB_ASSERT(rows >= 0, "non-decreasing group offsets");
      if (rows == 0) continue;
      reference_gemm_bf16(a + row0 * K * 2, b + g * N * K * 2, ref + row0 * N, rows, N, K, stream);
    }
  }

  std::unique_ptr<Implementation> make_baseline(const TaskSpec& task) const override {
    PTXB_ASSERT(task.baseline.library == "cublaslt", "baseline " + task.baseline.library);
    return std::make_unique<CublasLtGroupedGemm>(task.baseline.heuristic_algos,
                                                 task.baseline.workspace_bytes);
  }
};

}  // namespace

const FamilyDevice& gemm_grouped_device() {
  static const GemmGroupedDevice kDevice;
  return kDevice;
}

}  // namespace ptxb
