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
#include "worker/timing_sets.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

// One call per argument set, back to back on `stream`; the first non-zero status, else 0.
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
  std::unique_ptr<TimingSets> sets = TimingSets::allocate(
      task, sc.shape, calls, calls, dist,
      [](int round, int set) { return sustained_seeds(round, set); }, stream, &out.error);
  if (!sets) return out;
  PTXB_ASSERT(cand_plan.status == 0 && base_plan.status == 0,
              "the sustained regime runs only after planned cold timing");
  std::vector<ptxb_args> cand_args(calls), base_args(calls);
  auto candidate_args = [&] {
    for (int r = 0; r < calls; ++r)
      cand_args[r] =
          sets->candidate(r).args(cand_plan.workspace.data(), cand_plan.workspace.bytes(), stream);
  };
  candidate_args();
  for (int r = 0; r < calls; ++r)
    base_args[r] =
        sets->baseline(r).args(base_plan.workspace.data(), base_plan.workspace.bytes(), stream);
  // After its batch, the baseline's output buffers receive the library's answer for the
  // candidate's inputs (worker/round_check.hpp); the next round redraws those inputs.
  sets->make_checks(dist, library ? &baseline : nullptr, base_plan.workspace.data(),
                    base_plan.workspace.bytes(), stream);
  setup.reset();

  TimingOptions options;
  options.warmup = 1;
  // Whole order-balanced pairs, and more of them while their speedup swings (the cold regime's
  // noisy-shape rule at the sustained threshold, within the same cap; docs/timing.md). One call
  // a round (the batch), so rounds and calls are one count.
  const RoundRule rule = sustained_round_rule(job.sustained_rounds, job.sustained_min_ms,
                                              job.sustained_ci_permille, job.timing_noisy_cap_ms);
  options.samples = rule.min_rounds;
  options.max_samples = rule.max_rounds;
  options.min_total_us = rule.min_total_us;
  options.whole_pairs = rule.whole_pairs;
  options.max_speedup_halfwidth = rule.max_speedup_halfwidth;
  options.noisy_cap_us = rule.noisy_cap_us;
  options.noisy_max_samples = rule.noisy_max_rounds;
  options.before_sample = [&](int round) {
    const auto inputs = ctx.phases.span("timing.sustained.inputs");
    sets->next_round(round, stream);
    candidate_args();
  };
  options.after_sample = [&](int round) {
    const auto checking = ctx.phases.span("timing.sustained.checks");
    sets->check_round(round);
  };
  const auto limit = std::max(std::chrono::seconds(60), 3 * ctx.call_deadline);
  CandidateScope scope(ctx, "sustained timing at " + sc.shape.to_string(), limit);
  scope.disarm();
  TimedCall cand_batch = counted_candidate_call(
      ctx, scope, shape_index, calls, [&](int) { return run_batch(candidate, cand_args); },
      "timing.sustained.counters");
  const std::vector<TimedCall> batches = {
      std::move(cand_batch),
      {"baseline", [&](cudaStream_t, int) { return run_batch(baseline, base_args); }}};
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
  OutputCheck last = check_against_reference(sets->candidate(calls - 1), dist, stream);
  final_check.reset();
  const json rounds = sets->report(library);
  const std::vector<double> cand_us = per_call(samples.us[0], calls),
                            base_us = per_call(samples.us[1], calls);
  out.candidate = interval(median_ci(cand_us));
  out.baseline = interval(median_ci(base_us));
  out.speedup = interval(median_ci(balanced_pair_ratios(base_us, cand_us)));
  out.verified = last.passed && !sets->failed();
  out.details["rounds"] = rounds;
  out.details["verification"] = std::move(last.outputs);
  out.details["warmup"] = options.warmup;
  out.details["samples"] = cand_us.size();
  out.details["candidate_us"] = cand_us;
  out.details["baseline_us"] = base_us;
  return out;
}

}  // namespace ptxb
