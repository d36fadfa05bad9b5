#include "worker/round_check.hpp"

#include "cuda/cuda_check.hpp"
#include "worker/stage_helpers.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

constexpr int kMaxPassedConfirmations = 2;

CompareTolerance doubled(CompareTolerance t) {
  t.atol *= 2;
  t.atol_rms *= 2;
  t.rtol *= 2;
  t.max_rel_frobenius *= 2;
  t.round_reference = false;  // the library's output is already rounded
  return t;
}

}  // namespace

RoundCheck::RoundCheck(const DistributionSpec& dist, DeviceProblem& candidate,
                       DeviceProblem& scratch, Implementation* library, void* workspace,
                       uint64_t workspace_bytes, cudaStream_t stream)
    : dist_(dist),
      candidate_(candidate),
      scratch_(scratch),
      library_(library),
      workspace_(workspace),
      workspace_bytes_(workspace_bytes),
      stream_(stream) {}

void RoundCheck::after_round(int round) {
  if (failed()) return;
  ++rounds_checked_;
  const DeviceProblem::ModifiedBytes modified = candidate_.modified_bytes(stream_);
  if (modified.inputs != 0 || modified.guards != 0) {
    failure_ = json{{"round", round},
                    {"what", "inputs or guard regions modified"},
                    {"modified_input_bytes", modified.inputs},
                    {"modified_guard_bytes", modified.guards}};
    return;
  }
  // NOTE: a passing candidate passes the doubled check (triangle inequality), so confirmations
  // that pass mean this library and task disagree with it; after two, the fp32 check of the last
  // round and the input checks remain, and the quick check stops instead of costing a reference
  // per round.
  if (library_ == nullptr || confirmations_ >= kMaxPassedConfirmations) return;
  const int status =
      library_->run(candidate_.args_into(scratch_, workspace_, workspace_bytes_, stream_));
  PTXB_CHECK_CUDA(cudaStreamSynchronize(stream_));
  if (status != 0) throw ApiError("the library failed on a timed round's inputs (verification)");
  bool quick_ok = true;
  for (size_t o = 0; o < candidate_.num_outputs() && quick_ok; ++o) {
    const CompareTolerance tol = doubled(tolerance_of(dist_, candidate_.output_name(o)));
    quick_ok = candidate_.compare_output_with(scratch_, o, tol, stream_).passed(tol);
  }
  if (quick_ok) return;
  ++confirmations_;
  if (OutputCheck check = check_against_reference(candidate_, dist_, stream_); !check.passed)
    failure_ = json{{"round", round}, {"what", "wrong output"}, {"outputs", check.outputs}};
}

json RoundCheck::report() const {
  json r = {{"rounds_checked", rounds_checked_},
            {"quick_check", library_ != nullptr},
            {"confirmations", confirmations_}};
  if (failure_) r["failure"] = *failure_;
  return r;
}

}  // namespace ptxb
