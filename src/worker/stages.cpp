#include "worker/stages.hpp"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <optional>
#include <set>

#include "core/error.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "timing/interleaved.hpp"
#include "timing/median_json.hpp"
#include "timing/round_seeds.hpp"
#include "timing/stats.hpp"
#include "worker/environment.hpp"
#include "worker/problem.hpp"
#include "worker/round_check.hpp"
#include "worker/stage_helpers.hpp"
#include "worker/sustained.hpp"
#include "worker/timing_sets.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

// A candidate below 0.1x of the library is timed for this many calls only ("coarse"), rounded up
// to whole rounds.
constexpr int kCoarseCalls = 10;

// Indices of the visible and the hidden shape with the fewest elements in total.
std::set<size_t> smallest_shapes(const TaskSpec& task) {
  std::set<size_t> out;
  for (const bool hidden : {false, true}) {
    size_t best = task.shapes.size();
    double best_size = 0;
    for (size_t i = 0; i < task.shapes.size(); ++i) {
      if (task.shapes[i].hidden != hidden) continue;
      double size = 1;
      for (const std::string& dim : task.dims)
        size *= static_cast<double>(task.shapes[i].shape.at(dim));
      if (best == task.shapes.size() || size < best_size) best = i, best_size = size;
    }
    if (best < task.shapes.size()) out.insert(best);
  }
  return out;
}

}  // namespace

bool run_correctness(const TaskSpec& task, Implementation& candidate, StageContext& ctx,
                     bool quick) {
  const cudaStream_t stream = ctx.stream;
  const std::set<size_t> chosen = quick ? smallest_shapes(task) : std::set<size_t>{};
  bool all_passed = true;
  for (size_t si = 0; si < task.shapes.size(); ++si) {
    if (quick && chosen.count(si) == 0) continue;
    const ShapeCase& sc = task.shapes[si];
    std::optional<PhaseClock::Span> setup(std::in_place, ctx.phases, "correctness.setup");
    DeviceProblem problem(task, sc.shape);
    Planned planned = plan_candidate(candidate, problem, ctx, sc.shape);
    setup.reset();
    if (planned.status != 0) {
      ctx.out.send({{"type", "case"},
                    {"shape_index", si},
                    {"shape", shape_json(sc.shape)},
                    {"hidden", sc.hidden},
                    {"passed", false},
                    {"plan_status", planned.status},
                    {"reason", planned.status == -1 ? "ptxb_plan asked for more workspace than "
                                                      "PTXB_MAX_WORKSPACE_BYTES"
                                                    : "ptxb_plan returned non-zero"}});
      all_passed = false;
      continue;
    }
    for (uint64_t seed : task.correctness.seeds) {
      if (quick && seed != task.correctness.seeds.front()) break;
      for (const DistributionSpec& dist : task.correctness.distributions) {
        if (quick && &dist != &task.correctness.distributions.front()) break;
        {
          const auto inputs = ctx.phases.span("correctness.inputs");
          problem.generate_inputs(dist, seed, stream);
          problem.poison_outputs(stream);
          PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
        }
        int status = 0;
        // Counted calls are compared with the profiled call, whose problem has the first seed's
        // structure (group offsets): a call on another structure does other work and is not
        // counted. NOTE: the counter range opens before the monitor is armed and closes after
        // the scope drained the stream: PTXBench's own CUPTI calls are never candidate code.
        const bool counted =
            sc.timed && ctx.counters != nullptr &&
            (seed == task.correctness.seeds.front() || !problem.has_structure_inputs());
        if (counted) {
          const auto counting = ctx.phases.span("correctness.counters");
          ctx.counters->begin(si);
        }
        {
          const auto call = ctx.phases.span("correctness.candidate");
          CandidateScope scope(ctx, "ptxb_run at " + sc.shape.to_string());
          status = candidate.run(
              problem.args(planned.workspace.data(), planned.workspace.bytes(), stream));
          scope.close();
        }
        if (counted) {
          const auto counting = ctx.phases.span("correctness.counters");
          ctx.counters->end(0);
        }
        json msg = {{"type", "case"},      {"shape_index", si}, {"shape", shape_json(sc.shape)},
                    {"hidden", sc.hidden}, {"seed", seed},      {"distribution", dist.name},
                    {"run_status", status}};
        bool passed = status == 0;
        std::optional<PhaseClock::Span> guarding(std::in_place, ctx.phases, "correctness.guards");
        const auto [modified, guards] = problem.modified_bytes(stream);
        guarding.reset();
        msg["modified_input_bytes"] = modified;
        msg["modified_guard_bytes"] = guards;
        if (modified != 0 || guards != 0) passed = false;
        if (status == 0) {
          const auto reference = ctx.phases.span("correctness.references");
          OutputCheck check = check_against_reference(problem, dist, stream);
          passed = passed && check.passed;
          msg["outputs"] = std::move(check.outputs);
        }
        msg["passed"] = passed;
        all_passed = all_passed && passed;
        ctx.out.send(msg);
      }
    }
  }
  return all_passed;
}

void run_timing(const TaskSpec& task, Implementation& candidate, Implementation& baseline,
                const WorkerJob& job, StageContext& ctx) {
  const cudaStream_t stream = ctx.stream;
  const DistributionSpec& dist = task.correctness.distributions.front();
  for (size_t si = 0; si < task.shapes.size(); ++si) {
    const ShapeCase& sc = task.shapes[si];
    if (!sc.timed) continue;
    // Separate buffers and independent values (timing/round_seeds.hpp): while candidate code
    // runs, no output computed from its current inputs exists anywhere in the process. A round's
    // calls each get a set of their own, the candidate's from a larger pool
    // (worker/timing_sets.hpp).
    std::optional<PhaseClock::Span> setup(std::in_place, ctx.phases, "timing.setup");
    std::string no_sets;
    std::optional<PhaseClock::Span> allocating(std::in_place, ctx.phases, "timing.setup.sets");
    std::unique_ptr<TimingSets> sets = TimingSets::allocate(
        task, sc.shape, std::max(1, job.timing_block), 1, dist,
        [](int round, int set) { return round_seeds(round, set); }, stream, &no_sets);
    allocating.reset();
    // The shape's timing record (verdict/verdict_parts.hpp), sent whatever happens below.
    ShapeTiming timing;
    timing.shape = shape_json(sc.shape);
    timing.hidden = sc.hidden;
    timing.label = shape_label(task, sc);
    timing.flops = sc.flops;  // computed once, by the parent, when the task loaded
    timing.bytes = sc.bytes;
    timing.details = {{"shape_index", si}};
    auto send = [&] {
      json msg = timing;
      msg["type"] = "timing";
      ctx.out.send(msg);
    };
    if (!sets) {
      timing.error = no_sets;
      send();
      continue;
    }
    const int calls = sets->calls();
    Planned cand_plan = plan_candidate(candidate, sets->candidate(0), ctx, sc.shape);
    std::optional<PhaseClock::Span> library_plan(std::in_place, ctx.phases,
                                                 "timing.setup.library_plan");
    Planned base_plan = plan_for(baseline, sets->baseline(0), stream);
    library_plan.reset();
    setup.reset();
    if (cand_plan.status != 0 || base_plan.status != 0) {
      timing.error = "plan failed";
      timing.details["candidate_plan_status"] = cand_plan.status;
      timing.details["baseline_plan_status"] = base_plan.status;
      timing.details["baseline_plan"] = baseline.plan_report();
      send();
      continue;
    }
    std::vector<ptxb_args> cand_args(calls), base_args(calls);
    auto candidate_args = [&] {
      for (int k = 0; k < calls; ++k)
        cand_args[k] = sets->candidate(k).args(cand_plan.workspace.data(),
                                               cand_plan.workspace.bytes(), stream);
    };
    candidate_args();
    for (int k = 0; k < calls; ++k)
      base_args[k] =
          sets->baseline(k).args(base_plan.workspace.data(), base_plan.workspace.bytes(), stream);
    TimingOptions options;
    options.calls_per_sample = calls;
    options.warmup = job.timing_warmup;
    options.samples = job.timing_samples;
    options.min_total_us = 1000.0 * job.timing_min_ms;
    options.max_samples = job.timing_max_samples;
    options.max_speedup_halfwidth = job.timing_ci_permille / 1000.0;
    options.noisy_cap_us = 1000.0 * job.timing_noisy_cap_ms;
    if (job.baseline == "library") options.coarse_after = kCoarseCalls;  // not the self-check
    // Fresh input values for every call of every round (outside the timed events): a cached or
    // replayed output cannot be right, and no call finds its inputs already seen. Derived
    // inputs (attention backward: O, LSE) and their sources keep their first values.
    options.before_sample = [&](int sample) {
      const auto inputs = ctx.phases.span("timing.rounds.inputs");
      sets->next_round(sample, stream);
      candidate_args();
    };
    // Every call's output is checked after its round (the baseline's own buffers, done with their
    // timed calls, receive the library's answer for the candidate's inputs).
    sets->make_checks(dist, job.baseline == "library" ? &baseline : nullptr,
                      base_plan.workspace.data(), base_plan.workspace.bytes(), stream);
    options.after_sample = [&](int sample) {
      const auto checks = ctx.phases.span("timing.rounds.checks");
      sets->check_round(sample);
    };
    // The watchdog covers the whole timing of the shape; the monitor only the candidate's calls.
    const auto limit = std::max(std::chrono::seconds(60), 3 * ctx.call_deadline);
    CandidateScope scope(ctx, "timing at " + sc.shape.to_string(), limit);
    scope.disarm();
    TimedCall timed_candidate = counted_candidate_call(
        ctx, scope, si, calls, [&](int k) { return candidate.run(cand_args[k]); },
        "timing.rounds.counters");
    std::vector<TimedCall> timed = {
        std::move(timed_candidate),
        {"baseline", [&](cudaStream_t, int k) { return baseline.run(base_args[k]); }}};

    const json clocks_before = clock_snapshot(job.device);
    const TimingSamples samples =
        time_with_candidate(timed, options, stream, ctx, "timing.rounds", "timing");
    const json clocks_after = clock_snapshot(job.device);
    scope.close();

    timing.details["clocks_before"] = clocks_before;
    timing.details["clocks_after"] = clocks_after;
    timing.details["warmup"] = options.warmup;
    timing.details["calls_per_sample"] = calls;
    timing.details["pool_sets"] = sets->pool();
    timing.details["samples"] = samples.us.empty() ? 0 : samples.us[0].size();
    if (samples.coarse) timing.details["coarse"] = true;
    timing.details.update(host_time_details(samples));
    if (samples.failed_status != 0) {
      timing.error = samples.failed_name + " returned " + std::to_string(samples.failed_status);
      timing.details["failed_call"] = samples.failed_name;  // "candidate" or "baseline"
      send();
      continue;
    }
    // The last round's last candidate output, on that round's fresh inputs (every output of
    // every round passed the round checks).
    // NOTE: the span ends with the check: before, it ran to the end of the shape and counted the
    // sustained regime too (23.7 of the attention forward's "final check" seconds at 4b7a66c).
    std::optional<PhaseClock::Span> final_check(std::in_place, ctx.phases, "timing.final_check");
    DeviceProblem& last_set = sets->candidate(calls - 1);
    const DeviceProblem::ModifiedBytes last_modified = last_set.modified_bytes(stream);
    const bool inputs_intact = last_modified.inputs == 0 && last_modified.guards == 0;
    OutputCheck last = check_against_reference(last_set, dist, stream);
    final_check.reset();
    timing.verified = inputs_intact && last.passed && !sets->failed();
    timing.candidate = interval(median_ci(samples.us[0]));
    timing.baseline = interval(median_ci(samples.us[1]));
    timing.speedup = interval(median_ci(paired_ratios(samples.us[1], samples.us[0])));
    timing.details["verification"] = std::move(last.outputs);
    timing.details["rounds"] = sets->report(job.baseline == "library");
    timing.details["candidate_us"] = samples.us[0];
    timing.details["baseline_us"] = samples.us[1];
    timing.details["baseline_plan"] = baseline.plan_report();
    sets.reset();  // the sustained regime allocates its own
    if (job.sustained_calls > 0 && timing.verified == true && !samples.coarse)
      timing.sustained = run_sustained(task, si, candidate, baseline, job.baseline == "library",
                                       job, ctx, cand_plan, base_plan);
    send();
  }
}

void send_counters(const TaskSpec& task, CallCounters& counters, const ResultChannel& out) {
  const std::map<size_t, std::vector<CountedCalls>> shapes = counters.collect();
  if (!counters.failure().empty()) {
    out.send({{"type", "candidate_violation"},
              {"during", "reading the hardware counters of candidate calls"},
              {"finding", "the counters stopped working after candidate code ran (" +
                              counters.failure() + ")"}});
    return;
  }
  for (const auto& [si, groups] : shapes) {
    json list = json::array();
    for (const CountedCalls& g : groups)
      list.push_back({{"values", g.values}, {"count", g.count}, {"calls", g.calls}});
    out.send({{"type", "counters"},
              {"shape_index", si},
              {"shape", shape_json(task.shapes[si].shape)},
              {"groups", std::move(list)}});
  }
}

}  // namespace ptxb
