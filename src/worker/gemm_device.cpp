// The GPU side of the GEMM family: C = A * B^T against an fp32 reference from the bf16 inputs,
// timed against cuBLASLt.
#include "baselines/cublaslt_gemm.hpp"
#include "core/error.hpp"
#include "verify/gpu_verify.hpp"
#include "worker/family_device.hpp"

namespace ptxb {
namespace {

class GemmDevice final : public FamilyDevice {
 public:
  std::string_view name() const override { return "gemm"; }

  void compute_reference(DeviceProblem& p, cudaStream_t stream) const override {
    const Shape& s = p.shape();
    reference_gemm_bf16(p.pristine("A"), p.pristine("B"), p.reference("C"), s.at("M"), s.at("N"),
                        s.at("K"), stream);
  }

  std::unique_ptr<Implementation> make_baseline(const TaskSpec& task) const override {
    PTXB_ASSERT(task.baseline.library == "cublaslt", "gemm baseline " + task.baseline.library);
    return std::make_unique<CublasLtGemm>(task.baseline.heuristic_algos,
                                          task.baseline.workspace_bytes);
  }
};

}  // namespace

const FamilyDevice& gemm_device() {
  static const GemmDevice kDevice;
  return kDevice;
}

}  // namespace ptxb
