// The GPU side of the block-scaled fp8 GEMM family: the reference applies the block scales to the
// widened operands in fp64 (verify/gpu_verify.hpp, reference_gemm_blockwise), the baseline is
// cuBLASLt's fp8 matmul with its VEC128_32F (A) and BLK128x128_32F (B) scale modes.
#include "baselines/cublaslt_gemm.hpp"
#include "core/error.hpp"
#include "verify/gpu_verify.hpp"
#include "worker/family_device.hpp"

namespace ptxb {
namespace {

class GemmFp8BlockwiseDevice final : public FamilyDevice {
 public:
  std::string_view name() const override { return "gemm_fp8_blockwise"; }

  void compute_reference(DeviceProblem& p, cudaStream_t stream) const override {
    const Shape& s = p.shape();
    reference_gemm_blockwise(p.pristine("A"), p.pristine("B"),
                             static_cast<const float*>(p.pristine("scale_a")),
                             static_cast<const float*>(p.pristine("scale_b")), p.reference("C"),
                             s.at("M"), s.at("N"), s.at("K"), stream);
  }

  std::unique_ptr<Implementation> make_baseline(const TaskSpec& task) const override {
    PTXB_ASSERT(task.baseline.library == "cublaslt", "baseline " + task.baseline.library);
    return std::make_unique<CublasLtGemm>(task.baseline.heuristic_algos,
                                          task.baseline.workspace_bytes, GemmEpilogue::kNone,
                                          GemmScaling::kBlockwise);
  }
};

}  // namespace

const FamilyDevice& gemm_fp8_blockwise_device() {
  static const GemmFp8BlockwiseDevice kDevice;
  return kDevice;
}

}  // namespace ptxb
