#include "worker/gpu_stages.hpp"

#include <unistd.h>

#include <cerrno>
#include <cmath>

#include "core/error.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "timing/interleaved.hpp"
#include "timing/stats.hpp"
#include "worker/gpu_environment.hpp"
#include "worker/gpu_problem.hpp"
#include "worker/gpu_stage_helpers.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

json median_json(const MedianCI& m) {
  return {{"median", m.median}, {"low", m.low}, {"high", m.high}, {"count", m.count}};
}

}  // namespace

void ResultChannel::send(const json& message) const {
  const std::string line = message.dump() + "\n";
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw_api("POSIX", "write(result fd)", errno, "", "", __FILE__, __LINE__);
    done += static_cast<size_t>(n);
  }
}

bool run_correctness(const TaskSpec& task, Implementation& candidate, const ResultChannel& out,
                     cudaStream_t stream) {
  bool all_passed = true;
  for (size_t si = 0; si < task.shapes.size(); ++si) {
    const ShapeCase& sc = task.shapes[si];
    DeviceProblem problem(task, sc.shape);
    Planned planned = plan_for(candidate, problem, stream);
    if (planned.status != 0) {
      out.send({{"type", "case"},
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
      for (const DistributionSpec& dist : task.correctness.distributions) {
        problem.generate_inputs(dist, seed, stream);
        problem.poison_outputs(stream);
        const int status = candidate.run(
            problem.args(planned.workspace.data(), planned.workspace.bytes(), stream));
        check_after_candidate(stream, "ptxb_run at " + sc.shape.to_string());
        json msg = {{"type", "case"},      {"shape_index", si}, {"shape", shape_json(sc.shape)},
                    {"hidden", sc.hidden}, {"seed", seed},      {"distribution", dist.name},
                    {"run_status", status}};
        bool passed = status == 0;
        const int64_t modified = problem.modified_input_bytes(stream);
        msg["modified_input_bytes"] = modified;
        if (modified != 0) passed = false;
        if (status == 0) {
          problem.compute_reference(stream);
          json outputs = json::array();
          for (size_t o = 0; o < problem.num_outputs(); ++o) {
            const CompareStats stats = problem.compare_output(o, tolerance_of(dist), stream);
            json entry = stats_json(stats);
            entry["name"] = problem.output_name(o);
            entry["passed"] = stats.passed(tolerance_of(dist));
            passed = passed && entry["passed"].get<bool>();
            outputs.push_back(std::move(entry));
          }
          msg["outputs"] = std::move(outputs);
        }
        msg["passed"] = passed;
        all_passed = all_passed && passed;
        out.send(msg);
      }
    }
  }
  return all_passed;
}

void run_timing(const TaskSpec& task, Implementation& candidate, Implementation& baseline,
                const WorkerJob& job, const ResultChannel& out, cudaStream_t stream) {
  const int device = job.device;
  for (size_t si = 0; si < task.shapes.size(); ++si) {
    const ShapeCase& sc = task.shapes[si];
    if (!sc.timed) continue;
    DeviceProblem problem(task, sc.shape);
    problem.generate_inputs(task.correctness.distributions.front(), task.correctness.seeds.front(),
                            stream);
    Planned cand_plan = plan_for(candidate, problem, stream);
    Planned base_plan = plan_for(baseline, problem, stream);
    if (cand_plan.status != 0 || base_plan.status != 0) {
      out.send({{"type", "timing"},
                {"shape_index", si},
                {"shape", shape_json(sc.shape)},
                {"error", "plan failed"},
                {"candidate_plan_status", cand_plan.status},
                {"baseline_plan_status", base_plan.status}});
      continue;
    }
    const ptxb_args cand_args =
        problem.args(cand_plan.workspace.data(), cand_plan.workspace.bytes(), stream);
    const ptxb_args base_args =
        problem.args(base_plan.workspace.data(), base_plan.workspace.bytes(), stream);
    std::vector<TimedCall> calls = {
        {"candidate", [&](cudaStream_t) { return candidate.run(cand_args); }},
        {"baseline", [&](cudaStream_t) { return baseline.run(base_args); }}};
    TimingOptions options;
    options.warmup = job.timing_warmup;
    options.samples = job.timing_samples;

    const json clocks_before = clock_snapshot(device);
    TimingSamples samples;
    try {
      samples = time_interleaved(calls, options, stream);
    } catch (const ApiError& e) {
      throw CandidateFault(std::string("during timing: ") + e.what());
    }
    const json clocks_after = clock_snapshot(device);

    json msg = {{"type", "timing"},
                {"shape_index", si},
                {"shape", shape_json(sc.shape)},
                {"flops", problem_flops(task, sc.shape)},
                {"clocks_before", clocks_before},
                {"clocks_after", clocks_after},
                {"warmup", options.warmup},
                {"samples", options.samples}};
    if (samples.failed_status != 0) {
      msg["error"] = samples.failed_name + " returned " + std::to_string(samples.failed_status);
      out.send(msg);
      continue;
    }
    msg["candidate_us"] = samples.us[0];
    msg["baseline_us"] = samples.us[1];
    msg["candidate"] = median_json(median_ci(samples.us[0]));
    msg["baseline"] = median_json(median_ci(samples.us[1]));
    msg["speedup"] = median_json(median_ci(paired_ratios(samples.us[1], samples.us[0])));
    msg["baseline_plan"] = baseline.plan_report();
    out.send(msg);
  }
}

}  // namespace ptxb
