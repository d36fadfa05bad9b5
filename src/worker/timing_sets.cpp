#include "worker/timing_sets.hpp"

#include <algorithm>
#include <numeric>
#include <optional>

#include "core/error.hpp"
#include "cuda/cuda_check.hpp"
#include "sys/host_state.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

constexpr size_t kMemoryMargin = size_t{2} << 30;  // left free beside the sets

// Device memory the worker can still allocate: the device's free memory, and no more than the
// process's address-space headroom (the sandbox's RLIMIT_AS; CUDA maps every allocation into the
// process's address space, so that limit ends allocations long before an H200 is full).
size_t free_device_memory() {
  size_t free = 0, total = 0;
  PTXB_CHECK_CUDA(cudaMemGetInfo(&free, &total));
  if (const std::optional<int64_t> headroom = address_space_headroom_bytes())
    free = std::min(free, static_cast<size_t>(*headroom));
  return free;
}

}  // namespace

int pool_size(int calls) {
  // NOTE: a range of one call counts that call alone, and the next round redraws every set:
  // nothing can be done ahead, so one call needs no spare set (a 15 GB grouped-GEMM set redrawn
  // twice more a round cost 8 s of worker time on the H200).
  if (calls <= 1) return 1;
  return calls + std::max(kPoolExtraMin, calls / kPoolExtraDivisor);
}

std::unique_ptr<TimingSets> TimingSets::allocate(const TaskSpec& task, const Shape& shape,
                                                 int calls, int min_calls,
                                                 const DistributionSpec& dist, Seeds seeds,
                                                 cudaStream_t stream, std::string* why_not) {
  PTXB_ASSERT(min_calls >= 1 && min_calls <= calls, "TimingSets: 1 <= min_calls <= calls");
  std::unique_ptr<TimingSets> sets(new TimingSets);
  sets->dist_ = &dist;
  sets->seeds_ = std::move(seeds);
  const uint64_t structure = task.correctness.seeds.front();  // every set's structure
  // Derived inputs (attention backward: O and LSE, a reference forward pass per set) are derived
  // once per side and copied, with their sources, into the side's other sets, as the rounds keep
  // them; free inputs are drawn per set and redrawn every round.
  auto make = [&](int set, bool candidate) {
    auto problem = std::make_unique<DeviceProblem>(task, shape);
    const RoundSeeds s = sets->seeds_(-1, set);
    const auto& side = candidate ? sets->candidate_pool_ : sets->baseline_;
    if (set > 0 && problem->has_derived_inputs())
      problem->generate_inputs_sharing_derived(
          *side.front(), dist, candidate ? s.candidate : s.baseline, stream, structure);
    else
      problem->generate_inputs(dist, candidate ? s.candidate : s.baseline, stream, structure);
    return problem;
  };
  PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
  const size_t before = free_device_memory();
  sets->candidate_pool_.push_back(make(0, true));
  PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
  const size_t one = before - std::min(before, free_device_memory());
  const size_t free = free_device_memory();
  int fit = calls;
  auto needed = [&](int c) {
    return one * static_cast<size_t>(pool_size(c) + c - 1) + kMemoryMargin;
  };
  while (fit > min_calls && needed(fit) > free) --fit;
  if (needed(fit) > free) {
    if (why_not != nullptr)
      *why_not = "not enough device memory for " + std::to_string(pool_size(fit) + fit) +
                 " input sets: needs " + std::to_string(needed(fit) >> 20) + " MiB, " +
                 std::to_string(free >> 20) + " MiB free";
    return nullptr;
  }
  for (int p = 1; p < pool_size(fit); ++p) sets->candidate_pool_.push_back(make(p, true));
  for (int c = 0; c < fit; ++c) sets->baseline_.push_back(make(c, false));
  sets->chosen_.resize(fit);
  std::iota(sets->chosen_.begin(), sets->chosen_.end(), 0);
  return sets;
}

void TimingSets::next_round(int round, cudaStream_t stream) {
  // NOTE: every pool set is redrawn and poisoned, used or not: a set left as it was, or an output
  // left unpoisoned, would tell the candidate which sets the round will use.
  for (size_t p = 0; p < candidate_pool_.size(); ++p) {
    candidate_pool_[p]->redraw_free_inputs(*dist_, seeds_(round, static_cast<int>(p)).candidate,
                                           stream);
    candidate_pool_[p]->poison_outputs(stream);
  }
  for (size_t c = 0; c < baseline_.size(); ++c)
    baseline_[c]->redraw_free_inputs(*dist_, seeds_(round, static_cast<int>(c)).baseline, stream);
  std::vector<int> order(candidate_pool_.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), random_);
  std::copy_n(order.begin(), chosen_.size(), chosen_.begin());
}

void TimingSets::make_checks(const DistributionSpec& dist, Implementation* library, void* workspace,
                             uint64_t workspace_bytes, cudaStream_t stream) {
  checks_.clear();
  // After its round, a baseline set's output buffers receive the library's answer for the checked
  // candidate set's inputs (worker/round_check.hpp); the next round redraws that set's inputs.
  for (size_t p = 0; p < candidate_pool_.size(); ++p)
    checks_.push_back(std::make_unique<RoundCheck>(dist, *candidate_pool_[p],
                                                   *baseline_[p % baseline_.size()], library,
                                                   workspace, workspace_bytes, stream));
}

void TimingSets::check_round(int round) {
  for (size_t k = 0; k < chosen_.size() && !failed(); ++k) {
    checks_[chosen_[k]]->after_round(round);
    if (checks_[chosen_[k]]->failed()) {
      failed_call_ = static_cast<int>(k);
      failed_set_ = chosen_[k];
    }
  }
}

json TimingSets::report(bool quick_check) const {
  int rounds_checked = 0, outputs_checked = 0, confirmations = 0;
  for (const auto& check : checks_) {
    const json r = check->report();
    rounds_checked = std::max(rounds_checked, r["rounds_checked"].get<int>());
    outputs_checked += r["rounds_checked"].get<int>();
    confirmations += r["confirmations"].get<int>();
  }
  json failure;  // null while no check failed
  if (failed()) {
    failure = checks_[failed_set_]->report()["failure"];
    failure["call"] = failed_call_;
    failure["set"] = failed_set_;
  }
  json out = {{"rounds_checked", rounds_checked},
              {"outputs_checked", outputs_checked},
              {"confirmations", confirmations},
              {"quick_check", quick_check}};
  if (!failure.is_null()) out["failure"] = failure;
  return out;
}

}  // namespace ptxb
