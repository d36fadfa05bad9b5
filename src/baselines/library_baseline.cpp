#include "baselines/library_baseline.hpp"

#include "baselines/cublaslt_gemm.hpp"
#include "baselines/cudnn_sdpa.hpp"
#include "core/error.hpp"

namespace ptxb {

std::unique_ptr<Implementation> make_library_baseline(const TaskSpec& task) {
  if (task.baseline.library == "cublaslt")
    return std::make_unique<CublasLtGemm>(task.baseline.heuristic_algos,
                                          task.baseline.workspace_bytes);
  // Task validation allows only cublaslt and cudnn.
  PTXB_ASSERT(task.baseline.library == "cudnn" && is_attention(task),
              "no baseline " + task.baseline.library + " for family " + task.family);
  return std::make_unique<CudnnSdpa>(task.family == "attention_bwd" ? SdpaDirection::kBackward
                                                                    : SdpaDirection::kForward);
}

}  // namespace ptxb
