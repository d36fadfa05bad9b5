// The worker's evidence stage, run under Nsight Compute (eval/ncu_evidence.hpp drives it):
// profiler ranges around the controls and around each profiled candidate call, a marker kernel
// after each call so the parent can split ncu's kernel list by call, and before each profiled call
// a random number of unprofiled ones, so that it looks like any timed call. Nothing here reads
// counters: the parent parses what ncu measured. In-process (a SassMetrics collector given), each
// range is a collection whose records go out with the control's or call's message, and no marker
// is needed; the hardware counters come from counted runs before (run_evidence_counters).
#include <cuda_profiler_api.h>

#include <map>
#include <random>
#include <set>

#include "controls/evidence_controls.hpp"
#include "controls/flop_control.hpp"
#include "cuda/cuda_check.hpp"
#include "worker/stage_helpers.hpp"
#include "worker/stages.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

// {"functions": [mangled names], "pcs": [[function index, PC offset, warps, threads], ...]}: the
// records without one copy of the name each.
json records_json(const std::vector<PcRecord>& records) {
  json functions = json::array(), pcs = json::array();
  std::map<std::string, size_t> index;
  for (const PcRecord& r : records) {
    const auto [at, added] = index.emplace(r.function, index.size());
    if (added) functions.push_back(r.function);
    pcs.push_back({at->second, r.pc, r.warps, r.threads});
  }
  return {{"functions", std::move(functions)}, {"pcs", std::move(pcs)}};
}

// One profiled stretch: the CUDA error after it and, in-process, what the collection counted.
struct Profiled {
  cudaError_t error = cudaSuccess;
  json records;  ///< null under ncu
};

// Enqueues `work` inside a profiler range (under ncu) or a SASS-metrics collection (`sass`) and
// waits for it. After a CUDA error the collection is left open (the context is lost; the
// collector's destructor closes it).
template <typename Work>
Profiled profiled(SassMetrics* sass, Work&& work) {
  PTXB_CHECK_CUDA(cudaDeviceSynchronize());
  Profiled out;
  if (sass == nullptr) {
    PTXB_CHECK_CUDA(cudaProfilerStart());
    work();
    out.error = cudaDeviceSynchronize();
    PTXB_CHECK_CUDA(cudaProfilerStop());
    return out;
  }
  sass->begin();
  work();
  out.error = cudaDeviceSynchronize();
  if (out.error == cudaSuccess) out.records = records_json(sass->end());
  return out;
}

// The hardware counters of one run of `work`, summed over its kernel launches (one range each,
// CUPTI replaying each kernel for every pass), with the CUDA error after it.
template <typename Work>
std::pair<cudaError_t, json> counted_run(RangeProfiler& counters, Work&& work) {
  PTXB_CHECK_CUDA(cudaDeviceSynchronize());
  counters.start();
  work();
  const cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) return {err, nullptr};
  counters.stop();
  const std::vector<std::vector<double>> values = counters.decode();
  counters.reset();
  json sums = json::object();
  for (size_t m = 0; m < counters.metrics().size(); ++m) {
    double sum = 0;
    for (const std::vector<double>& range : values) sum += range[m];
    sums[counters.metrics()[m]] = sum;
  }
  return {cudaSuccess, json{{"launches", values.size()}, {"values", std::move(sums)}}};
}

// Distinct marker grid sizes in [1, 65535], unknown to the candidate before its call.
std::vector<unsigned> draw_nonces(size_t count) {
  std::random_device rd;
  std::uniform_int_distribution<unsigned> pick(1, 65535);
  std::set<unsigned> seen;
  std::vector<unsigned> out;
  while (out.size() < count) {
    const unsigned n = pick(rd);
    if (seen.insert(n).second) out.push_back(n);
  }
  return out;
}

constexpr int kMaxUnprofiledCalls = 32;

}  // namespace

// The controls of the evidence run, in their order.
struct Control {
  const char* kernel;
  bool live;
  cudaError_t (*launch)(bool, cudaStream_t);
};
const Control kControls[] = {{kControlKernelName, true, &launch_evidence_control},
                             {kControlKernelName, false, &launch_evidence_control},
                             {kFlopControlKernelName, true, &launch_flop_control}};

void run_evidence_controls(const ResultChannel& out, cudaStream_t stream, SassMetrics* sass) {
  for (const Control& c : kControls) {
    cudaError_t launch = cudaSuccess;
    Profiled run = profiled(sass, [&] { launch = c.launch(c.live, stream); });
    const cudaError_t err = run.error;
    const cudaError_t first = launch != cudaSuccess ? launch : err;
    json msg = {{"type", "evidence_control"},
                {"kernel", c.kernel},
                {"live", c.live},
                {"ok", first == cudaSuccess},
                {"error", first == cudaSuccess ? "" : cudaGetErrorString(first)},
                {"mma_flops_by_opcode", evidence_control_mma_flops()}};
    if (sass != nullptr) msg["records"] = std::move(run.records);
    out.send(msg);
    if (err != cudaSuccess) PTXB_CHECK_CUDA(err);  // a broken control is PTXBench's fault
  }
}

void run_evidence(const TaskSpec& task, Implementation& candidate, StageContext& ctx) {
  const ResultChannel& out = ctx.out;
  const cudaStream_t stream = ctx.stream;
  std::vector<const ShapeCase*> shapes;
  for (const ShapeCase& sc : task.shapes)
    if (sc.timed) shapes.push_back(&sc);
  const std::vector<unsigned> nonces = draw_nonces(shapes.size());
  const DistributionSpec& dist = task.correctness.distributions.front();
  std::random_device rd;
  std::uniform_int_distribution<int> unprofiled_calls(1, kMaxUnprofiledCalls);
  std::uniform_int_distribution<uint64_t> seeds(1, uint64_t(1) << 40);
  for (size_t i = 0; i < shapes.size(); ++i) {
    const ShapeCase& sc = *shapes[i];
    // If the run ends before this shape's "evidence_call", the parent knows candidate code was
    // running (e.g. a fault the profiler's serialisation exposes): crashed, not unavailable.
    out.send({{"type", "evidence_shape_start"}, {"shape", shape_json(sc.shape)}});
    DeviceProblem problem(task, sc.shape);
    problem.generate_inputs(dist, task.correctness.seeds.front(), stream);
    Planned planned = plan_candidate(candidate, problem, ctx, sc.shape);
    json msg = {{"type", "evidence_call"},
                {"shape", shape_json(sc.shape)},
                {"hidden", sc.hidden},
                {"nonce", nonces[i]},
                {"plan_status", planned.status}};
    if (planned.status != 0) {
      out.send(msg);
      continue;
    }
    const ptxb_args args =
        problem.args(planned.workspace.data(), planned.workspace.bytes(), stream);
    const int warm_calls = unprofiled_calls(rd);
    msg["unprofiled_calls_before"] = warm_calls;
    {
      // Unprofiled calls on fresh inputs: whatever a candidate does on its first calls, or on a
      // count of them, the profiled call comes after a number of calls it cannot predict.
      CandidateScope scope(ctx, "ptxb_run (unprofiled) at " + sc.shape.to_string(),
                           std::max(std::chrono::seconds(60), 3 * ctx.call_deadline));
      for (int c = 0; c < warm_calls; ++c) {
        problem.redraw_free_inputs(dist, seeds(rd), stream);
        problem.poison_outputs(stream);
        scope.arm();
        const int warm_status = candidate.run(args);
        scope.disarm();
        if (warm_status != 0) msg["unprofiled_status"] = warm_status;
      }
      scope.close();
    }
    problem.redraw_free_inputs(dist, seeds(rd), stream);
    problem.poison_outputs(stream);
    PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
    int status = 0;
    cudaError_t marker = cudaSuccess;
    const std::string what = "ptxb_run under the profiler at " + sc.shape.to_string();
    // Profiling replays each kernel several times: a longer deadline than a plain call's.
    CandidateScope scope(ctx, what, std::max(std::chrono::seconds(60), 3 * ctx.call_deadline));
    Profiled run = profiled(ctx.sass, [&] {
      status = candidate.run(args);
      // Launch order is ncu's result order: every kernel the call launched comes before this.
      // In-process the collection itself ends the call.
      if (ctx.sass == nullptr) marker = launch_evidence_marker(nonces[i], stream);
    });
    const cudaError_t err = run.error;
    if (err != cudaSuccess)
      throw CandidateFault(what + ": " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
    scope.close();
    PTXB_CHECK_CUDA(marker);
    msg["run_status"] = status;
    if (ctx.sass != nullptr) msg["records"] = std::move(run.records);
    const DeviceProblem::ModifiedBytes modified = problem.modified_bytes(stream);
    bool correct = status == 0 && modified.inputs == 0 && modified.guards == 0;
    if (status == 0) correct = correct && check_against_reference(problem, dist, stream).passed;
    msg["correct"] = correct;
    out.send(msg);
  }
}

void run_evidence_counters(const TaskSpec& task, Implementation& candidate, StageContext& ctx,
                           RangeProfiler& counters) {
  const ResultChannel& out = ctx.out;
  const cudaStream_t stream = ctx.stream;
  for (const Control& c : kControls) {
    cudaError_t launch = cudaSuccess;
    auto [err, counted] = counted_run(counters, [&] { launch = c.launch(c.live, stream); });
    if (launch != cudaSuccess) PTXB_CHECK_CUDA(launch);  // a broken control is PTXBench's fault
    PTXB_CHECK_CUDA(err);
    out.send({{"type", "evidence_counters"}, {"control", c.kernel}, {"counted", counted}});
  }
  const DistributionSpec& dist = task.correctness.distributions.front();
  for (const ShapeCase& sc : task.shapes) {
    if (!sc.timed) continue;
    out.send({{"type", "evidence_shape_start"}, {"shape", shape_json(sc.shape)}});
    DeviceProblem problem(task, sc.shape);
    problem.generate_inputs(dist, task.correctness.seeds.front(), stream);
    Planned planned = plan_candidate(candidate, problem, ctx, sc.shape);
    json msg = {{"type", "evidence_counters"},
                {"shape", shape_json(sc.shape)},
                {"plan_status", planned.status}};
    if (planned.status == 0) {
      const ptxb_args args =
          problem.args(planned.workspace.data(), planned.workspace.bytes(), stream);
      problem.poison_outputs(stream);
      const std::string what = "ptxb_run counted per kernel at " + sc.shape.to_string();
      CandidateScope scope(ctx, what, std::max(std::chrono::seconds(60), 3 * ctx.call_deadline));
      int status = 0;
      auto [err, counted] = counted_run(counters, [&] { status = candidate.run(args); });
      if (err != cudaSuccess)
        throw CandidateFault(what + ": " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
      scope.close();
      msg["run_status"] = status;
      msg["counted"] = std::move(counted);
    }
    out.send(msg);
  }
}

}  // namespace ptxb
