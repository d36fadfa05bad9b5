#include "baselines/library_baseline.hpp"

#include "baselines/cublaslt_gemm.hpp"
#include "baselines/cudnn_sdpa.hpp"
#include "core/error.hpp"
#include "families/registry.hpp"

namespace ptxb {

std::unique_ptr<Implementation> make_library_baseline(const TaskSpec& task) {
  if (task.baseline.library == "cublaslt")
    return std::make_unique<CublasLtGemm>(task.baseline.heuristic_algos,
                                          task.baseline.workspace_bytes);
  // NOTE: the loader allows only a family's own baselines (families/family.hpp): cudnn means
  // an attention family.
  PTXB_ASSERT(task.baseline.library == "cudnn", "no baseline " + task.baseline.library);
  return std::make_unique<CudnnSdpa>(task.family == attention_bwd_family().name()
                                         ? SdpaDirection::kBackward
                                         : SdpaDirection::kForward);
}

}  // namespace ptxb
