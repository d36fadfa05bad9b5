// The GPU side of the per-tensor scaled fp8 GEMM family: the reference is the fp64 GEMM of the
// widened E4M3 operands times s_a s_b (read from the pristine scale inputs), and the baseline is
// cuBLASLt's fp8 matmul with the scales as its A/B scale pointers, fast accumulation off.
#include "baselines/cublaslt_gemm.hpp"
#include "core/error.hpp"
#include "cuda/cuda_check.hpp"
#include "verify/gpu_verify.hpp"
#include "worker/family_device.hpp"

namespace ptxb {
namespace {

// The value of a 1-element f32 input (waits for the stream).
double scalar_input(const DeviceProblem& p, std::string_view name, cudaStream_t stream) {
  float value = 0;
  PTXB_CHECK_CUDA(
      cudaMemcpyAsync(&value, p.pristine(name), sizeof value, cudaMemcpyDeviceToHost, stream));
  PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
  return value;
}

class GemmFp8Device final : public FamilyDevice {
 public:
  std::string_view name() const override { return "gemm_fp8"; }

  void compute_reference(DeviceProblem& p, cudaStream_t stream) const override {
    const Shape& s = p.shape();
    const double alpha = scalar_input(p, "scale_a", stream) * scalar_input(p, "scale_b", stream);
    reference_gemm(p.pristine("A"), DType::kF8E4M3, p.pristine("B"), DType::kF8E4M3, alpha,
                   p.reference("C"), s.at("M"), s.at("N"), s.at("K"), stream);
  }

  std::unique_ptr<Implementation> make_baseline(const TaskSpec& task) const override {
    PTXB_ASSERT(task.baseline.library == "cublaslt", "baseline " + task.baseline.library);
    return std::make_unique<CublasLtGemm>(task.baseline.heuristic_algos,
                                          task.baseline.workspace_bytes, GemmEpilogue::kNone,
                                          GemmScaling::kPerTensor);
  }
};

}  // namespace

const FamilyDevice& gemm_fp8_device() {
  static const GemmFp8Device kDevice;
  return kDevice;
}

}  // namespace ptxb
