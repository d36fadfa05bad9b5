// The GPU side of the GEMM + bias + GELU family: the fp32 reference is the GEMM reference plus
// the epilogue applied in fp32 (worker/gemm_bias_gelu_reference.cu), and the baseline is cuBLASLt
// with its GELU_BIAS epilogue.
#include "baselines/cublaslt_gemm.hpp"
#include "core/error.hpp"
#include "verify/gpu_verify.hpp"
#include "worker/family_device.hpp"

namespace ptxb {

/// c = gelu(c + bias) per row, bias a bf16 vector of N (worker/gemm_bias_gelu_reference.cu).
void add_bias_gelu(float* c, const void* bias_bf16, int64_t M, int64_t N, cudaStream_t stream);

namespace {

class GemmBiasGeluDevice final : public FamilyDevice {
 public:
  std::string_view name() const override { return "gemm_bias_gelu"; }

  void compute_reference(DeviceProblem& p, cudaStream_t stream) const override {
    const Shape& s = p.shape();
    const int64_t M = s.at("M"), N = s.at("N");
    float* c = p.reference("C");
    reference_gemm_bf16(p.pristine("A"), p.pristine("B"), c, M, N, s.at("K"), stream);
    add_bias_gelu(c, p.pristine("bias"), M, N, stream);
  }

  std::unique_ptr<Implementation> make_baseline(const TaskSpec& task) const override {
    PTXB_ASSERT(task.baseline.library == "cublaslt", "baseline " + task.baseline.library);
    return std::make_unique<CublasLtGemm>(task.baseline.heuristic_algos,
                                          task.baseline.workspace_bytes, GemmEpilogue::kBiasGelu);
  }
};

}  // namespace

const FamilyDevice& gemm_bias_gelu_device() {
  static const GemmBiasGeluDevice kDevice;
  return kDevice;
}

}  // namespace ptxb
