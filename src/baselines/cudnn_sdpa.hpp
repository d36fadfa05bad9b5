// The attention baseline: cuDNN scaled-dot-product attention, forward or backward, through the
// header-only cudnn-frontend (bf16 in and out, fp32 intermediates and compute; docs/attention.md
// has the definitions). plan() builds every execution plan cuDNN's heuristics offer (modes A and
// FALLBACK), times each on scratch data of the shape (median of 10 after 3 warm-ups) and keeps the
// fastest, as the cuBLASLt GEMM baseline does. cuDNN is opened at run time
// (baselines/cudnn_library.hpp): this header pulls in neither cuDNN nor the frontend.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "timing/implementation.hpp"

namespace ptxb {
namespace cudnn_sdpa {
struct Dims;
}

/// Which pass a CudnnSdpa computes. Forward: inputs Q, K, V, outputs O, LSE. Backward: inputs
/// Q, K, V, O, dO, LSE, outputs dQ, dK, dV. Scalars of both: scale, causal (non-zero: causal).
/// Variable-length forward (a ragged batch, THD layout): inputs Q [T,H,D], K, V [T,HKV,D],
/// cu_seqlens [B+1] int32, output O [T,H,D]; scalars scale, causal, max_seqlen.
/// Paged decode (docs/attention.md): inputs Q [B,SQ,H,D], K_cache, V_cache [NP,P,HKV,D] (the
/// vLLM layout), seq_lens [B] and page_table [B,W] int32, outputs O [B,SQ,H,D], LSE [B,SQ,H];
/// scalars scale, max_seqlen; bottom-right causal when SQ > 1. cuDNN reads the lengths and the
/// table on the device: nothing is uploaded per call.
enum class SdpaDirection { kForward, kBackward, kVarlenForward, kPagedDecode };

/// What plan() and run() return besides PTXB_OK; plan_report()["error"] gives the details.
enum class CudnnSdpaStatus : int {
  kUnsupportedProblem = 1,  ///< not an attention problem of this direction, or cuDNN refuses it
  kNoPlan = 2,              ///< the heuristics offered no plan, or none of them built
  kNoPlanRan = 3,           ///< every built plan failed to execute on the scratch data
  kNotPlanned = 4,          ///< run() without a successful plan() for this problem
  kExecuteFailed = 5,       ///< run(): cuDNN did not enqueue the chosen plan
};

class CudnnSdpa final : public Implementation {
 public:
  /// Opens cuDNN (`library`: a soname searched the dlopen way, or a path; the first CudnnSdpa of
  /// the process decides) before any sandbox is applied. Never throws for a missing or unusable
  /// library: plan() does. Each built graph has a cuDNN handle of its own, on the device current
  /// where it was built; the chosen plan's is kept.
  explicit CudnnSdpa(SdpaDirection direction, const std::string& library = "libcudnn.so.9");
  ~CudnnSdpa() override;
  CudnnSdpa(const CudnnSdpa&) = delete;
  CudnnSdpa& operator=(const CudnnSdpa&) = delete;

  std::string name() const override { return "cudnn"; }
  bool times_plans() const override { return true; }

  /// Builds the graph and every offered plan of each problem ahead of plan(), one thread per
  /// problem (baselines/cudnn_sdpa_build.hpp): about 0.5-1.1 s of NVRTC compile per plan and 2-4
  /// plans per shape, which plan() otherwise builds one after another. Never throws.
  void prebuild(const std::vector<const ptxb_problem*>& problems) override;

  /// Builds the graph and every offered plan for this problem (or takes what prebuild() built
  /// for it, which it keeps for later plans of the problem; plan_report()["prebuilt"] says
  /// which), times them and keeps the fastest, or takes the preferred plan (prefer()) untimed.
  /// The workspace is the baseline's own (allocated here at the chosen plan's size; a backward
  /// plan can need more than PTXB_MAX_WORKSPACE_BYTES), so *workspace_bytes is always 0.
  /// Returns PTXB_OK or a CudnnSdpaStatus (the reason in plan_report()["error"]). Throws ApiError
  /// when cuDNN cannot be opened or a cuDNN/CUDA call fails outside the plan trials. Synchronizes.
  int plan(const ptxb_problem& problem, uint64_t* workspace_bytes) override;

  /// Enqueues the chosen plan on args.stream with args' pointers: no allocation, no
  /// synchronization. Never throws; returns PTXB_OK, kNotPlanned or kExecuteFailed.
  int run(const ptxb_args& args) override;

  /// Variable-length forward: uploads the sequence lengths and ragged offsets cuDNN needs, from
  /// the host copy of args' cu_seqlens (cuda/host_mirror.hpp), outside timing; run() uploads
  /// them again only when the lengths change. A no-op for the other directions.
  int tune(const ptxb_args& args) override;

  /// What the last plan() saw: library versions and files, the problem, every offered plan with
  /// its name, build result, workspace and median time, the chosen one; "error" on failure.
  nlohmann::json plan_report() const override { return report_; }
  /// {"library": cuDNN's and the frontend's versions, "problem": the direction and the problem's
  /// dimensions, "index": the plan's place in the heuristics' list, "name", "median_us"}.
  nlohmann::json plan_choice() const override;
  /// A preferred plan is taken when the heuristics offer a plan of the same name at the same
  /// place; prebuild() then builds only it (one NVRTC compile instead of every offered plan's).
  void prefer(const nlohmann::json& choices) override;

 private:
  struct State;
  static const char* direction_name(SdpaDirection direction);
  int plan_dims(const cudnn_sdpa::Dims& dims);
  std::string library_id() const;
  std::string problem_key(const cudnn_sdpa::Dims& dims) const;
  std::string refresh_ragged(const ptxb_args& args);
  int fail(CudnnSdpaStatus status, const std::string& why);

  SdpaDirection direction_;
  std::unique_ptr<State> state_;
  nlohmann::json report_;
};

}  // namespace ptxb
