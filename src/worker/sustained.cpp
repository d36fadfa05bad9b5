#include "worker/sustained.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "core/error.hpp"
#include "cuda/cuda_check.hpp"
#include "sys/host_state.hpp"
#include "timing/interleaved.hpp"
#include "timing/median_json.hpp"
#include "timing/round_seeds.hpp"
#include "timing/stats.hpp"
#include "worker/environment.hpp"
#include "worker/problem.hpp"
#include "worker/round_check.hpp"
#include "worker/stage_helpers.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

constexpr size_t kMemoryMargin = size_t{2} << 30;  // left free beside the input sets

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

// R problems per side with their first inputs drawn; the first one's size (measured with its
// inputs, so with the scratch derived inputs need) decides whether the rest fit.
struct InputSets {
  std::vector<std::unique_ptr<DeviceProblem>> candidate, baseline;
  std::string error;
};

InputSets allocate_sets(const TaskSpec& task, const Shape& shape, int calls,
                        const DistributionSpec& dist, cudaStream_t stream) {
  InputSets sets;
  auto make = [&](int call, bool candidate) {
    auto problem = std::make_unique<DeviceProblem>(task, shape);
    const RoundSeeds seeds = sustained_seeds(-1, call);
    const uint64_t seed = candidate ? seeds.candidate : seeds.baseline;
    const uint64_t structure = task.correctness.seeds.front();  // the cold regime's structure
    const auto& side = candidate ? sets.candidate : sets.baseline;
    // Derived inputs (attention backward: O and LSE, a reference forward pass per set, 7.8 s of
    // the backward's worker on the H200) are derived once per side and copied, with their
    // sources, into the side's other sets, as the cold rounds keep them; free inputs are drawn
    // per set and redrawn every round.
    if (call > 0 && problem->has_derived_inputs())
      problem->generate_inputs_sharing_derived(*side.front(), dist, seed, stream, structure);
    else
      problem->generate_inputs(dist, seed, stream, structure);
    return problem;
  };
  PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
  const size_t before = free_device_memory();
  sets.candidate.push_back(make(0, true));
  PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
  const size_t one = before - std::min(before, free_device_memory());
  const size_t needed = one * (2 * static_cast<size_t>(calls) - 1) + kMemoryMargin;
  if (needed > free_device_memory()) {
    sets.error = "not enough device memory for " + std::to_string(2 * calls) +
                 " input sets: needs " + std::to_string(needed >> 20) + " MiB, " +
                 std::to_string(free_device_memory() >> 20) + " MiB free";
    sets.candidate.clear();
    return sets;
  }
  for (int r = 1; r < calls; ++r) sets.candidate.push_back(make(r, true));
  for (int r = 0; r < calls; ++r) sets.baseline.push_back(make(r, false));
  return sets;
}

// One call per problem, back to back on `stream`; the first non-zero status, else 0.
int run_batch(Implementation& impl, const std::vector<ptxb_args>& args) {
  for (const ptxb_args& a : args)
    if (const int status = impl.run(a); status != 0) return status;
  return 0;
}

std::vector<double> per_call(const std::vector<double>& batch_us, int calls) {
  std::vector<double> out;
  for (double us : batch_us) out.push_back(us / calls);
  return out;
}

}  // namespace

SustainedTiming run_sustained(const TaskSpec& task, size_t shape_index, Implementation& candidate,
                              Implementation& baseline, bool library, const WorkerJob& job,
                              StageContext& ctx, const Planned& cand_plan,
                              const Planned& base_plan) {
  const ShapeCase& sc = task.shapes[shape_index];
  const cudaStream_t stream = ctx.stream;
  const DistributionSpec& dist = task.correctness.distributions.front();
  const int calls = job.sustained_calls;
  SustainedTiming out;
  out.calls = calls;

  std::optional<PhaseClock::Span> setup(std::in_place, ctx.phases, "timing.sustained.setup");
  InputSets sets = allocate_sets(task, sc.shape, calls, dist, stream);
  if (!sets.error.empty()) {
    out.error = sets.error;
    return out;
  }
  PTXB_ASSERT(cand_plan.status == 0 && base_plan.status == 0,
              "the sustained regime runs only after planned cold timing");
  std::vector<ptxb_args> cand_args, base_args;
  std::vector<std::unique_ptr<RoundCheck>> checks;
  for (int r = 0; r < calls; ++r) {
    cand_args.push_back(
        sets.candidate[r]->args(cand_plan.workspace.data(), cand_plan.workspace.bytes(), stream));
    base_args.push_back(
        sets.baseline[r]->args(base_plan.workspace.data(), base_plan.workspace.bytes(), stream));
    // After its batch, the baseline's output buffers receive the library's answer for the
    // candidate's inputs (worker/round_check.hpp); the next round redraws those inputs.
    checks.push_back(std::make_unique<RoundCheck>(
        dist, *sets.candidate[r], *sets.baseline[r], library ? &baseline : nullptr,
        base_plan.workspace.data(), base_plan.workspace.bytes(), stream));
  }
  setup.reset();

  TimingOptions options;
  options.warmup = 1;
  const RoundLimits limits = sustained_round_limits(job.sustained_rounds, job.sustained_min_ms);
  options.samples = limits.min_samples;
  options.max_samples = limits.max_samples;
  options.min_total_us = limits.min_total_us;
  options.before_sample = [&](int round) {
    const auto inputs = ctx.phases.span("timing.sustained.inputs");
    for (int r = 0; r < calls; ++r) {
      const RoundSeeds seeds = sustained_seeds(round, r);
      sets.candidate[r]->redraw_free_inputs(dist, seeds.candidate, stream);
      sets.baseline[r]->redraw_free_inputs(dist, seeds.baseline, stream);
      sets.candidate[r]->poison_outputs(stream);
    }
  };
  options.after_sample = [&](int round) {
    const auto checking = ctx.phases.span("timing.sustained.checks");
    for (const auto& check : checks) check->after_round(round);
  };
  const auto limit = std::max(std::chrono::seconds(60), 3 * ctx.call_deadline);
  CandidateScope scope(ctx, "sustained timing at " + sc.shape.to_string(), limit);
  scope.disarm();
  TimedCall cand_batch = counted_candidate_call(
      ctx, scope, shape_index, calls, [&] { return run_batch(candidate, cand_args); },
      "timing.sustained.counters");
  const std::vector<TimedCall> batches = {
      std::move(cand_batch),
      {"baseline", [&](cudaStream_t) { return run_batch(baseline, base_args); }}};
  const json clocks_before = clock_snapshot(job.device);
  const TimingSamples samples = time_with_candidate(batches, options, stream, ctx,
                                                    "timing.sustained.rounds", "sustained timing");
  out.details["clocks_before"] = clocks_before;
  out.details["clocks_after"] = clock_snapshot(job.device);
  scope.close();
  out.details.update(host_time_details(samples));
  if (samples.failed_status != 0) {
    out.error = samples.failed_name + " returned " + std::to_string(samples.failed_status);
    out.details["failed_call"] = samples.failed_name;  // "candidate" or "baseline"
    return out;
  }

  // The last call of the last round against the fp32 reference, like the cold regime's last round.
  std::optional<PhaseClock::Span> final_check(std::in_place, ctx.phases,
                                              "timing.sustained.final_check");
  OutputCheck last = check_against_reference(*sets.candidate.back(), dist, stream);
  final_check.reset();
  int rounds_checked = 0, outputs_checked = 0, confirmations = 0;
  json failure;  // the first call whose check failed, null while none
  for (int r = 0; r < calls; ++r) {
    const json report = checks[r]->report();
    rounds_checked = std::max(rounds_checked, report["rounds_checked"].get<int>());
    outputs_checked += report["rounds_checked"].get<int>();
    confirmations += report["confirmations"].get<int>();
    if (checks[r]->failed() && failure.is_null()) {
      failure = report["failure"];
      failure["call"] = r;
    }
  }
  json rounds = {{"rounds_checked", rounds_checked},
                 {"outputs_checked", outputs_checked},
                 {"confirmations", confirmations},
                 {"quick_check", library}};
  if (!failure.is_null()) rounds["failure"] = failure;
  const std::vector<double> cand_us = per_call(samples.us[0], calls),
                            base_us = per_call(samples.us[1], calls);
  out.candidate = interval(median_ci(cand_us));
  out.baseline = interval(median_ci(base_us));
  out.speedup = interval(median_ci(paired_ratios(base_us, cand_us)));
  out.verified = last.passed && failure.is_null();
  out.details["rounds"] = rounds;
  out.details["verification"] = std::move(last.outputs);
  out.details["warmup"] = options.warmup;
  out.details["samples"] = cand_us.size();
  out.details["candidate_us"] = cand_us;
  out.details["baseline_us"] = base_us;
  return out;
}

}  // namespace ptxb
