// The worker's evidence stage, run under Nsight Compute (instrument/ncu_evidence.hpp drives it):
// profiler ranges around the controls and around each candidate call, a marker kernel after each
// call so the parent can split ncu's kernel list by call. Nothing here reads counters: the
// parent parses what ncu measured.
#include <cuda_profiler_api.h>

#include <random>
#include <set>

#include "controls/evidence_controls.hpp"
#include "cuda/cuda_check.hpp"
#include "worker/gpu_stage_helpers.hpp"
#include "worker/gpu_stages.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

// Enqueues `work` inside a profiler range and waits for it; the CUDA error is returned.
template <typename Work>
cudaError_t profiled(Work&& work) {
  PTXB_CHECK_CUDA(cudaDeviceSynchronize());
  PTXB_CHECK_CUDA(cudaProfilerStart());
  work();
  const cudaError_t err = cudaDeviceSynchronize();
  PTXB_CHECK_CUDA(cudaProfilerStop());
  return err;
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

void run_controls(const ResultChannel& out, cudaStream_t stream) {
  for (const bool live : {true, false}) {
    cudaError_t launch = cudaSuccess;
    const cudaError_t err = profiled([&] { launch = launch_evidence_control(live, stream); });
    const cudaError_t first = launch != cudaSuccess ? launch : err;
    out.send({{"type", "evidence_control"},
              {"live", live},
              {"ok", first == cudaSuccess},
              {"error", first == cudaSuccess ? "" : cudaGetErrorString(first)},
              {"mma_flops", evidence_control_mma_flops()}});
    if (err != cudaSuccess) PTXB_CHECK_CUDA(err);  // a broken control is PTXBench's fault
  }
}

}  // namespace

void run_evidence(const TaskSpec& task, Implementation& candidate, StageContext& ctx) {
  const ResultChannel& out = ctx.out;
  const cudaStream_t stream = ctx.stream;
  run_controls(out, stream);
  std::vector<const ShapeCase*> shapes;
  for (const ShapeCase& sc : task.shapes)
    if (sc.timed) shapes.push_back(&sc);
  const std::vector<unsigned> nonces = draw_nonces(shapes.size());
  const DistributionSpec& dist = task.correctness.distributions.front();
  for (size_t i = 0; i < shapes.size(); ++i) {
    const ShapeCase& sc = *shapes[i];
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
    problem.poison_outputs(stream);
    PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
    int status = 0;
    cudaError_t marker = cudaSuccess;
    const std::string what = "ptxb_run under the profiler at " + sc.shape.to_string();
    // Profiling replays each kernel several times: a longer deadline than a plain call's.
    CandidateScope scope(ctx, what, std::max(std::chrono::seconds(60), 3 * ctx.call_deadline));
    const cudaError_t err = profiled([&] {
      status =
          candidate.run(problem.args(planned.workspace.data(), planned.workspace.bytes(), stream));
      // Launch order is ncu's result order: every kernel the call launched comes before this.
      marker = launch_evidence_marker(nonces[i], stream);
    });
    if (err != cudaSuccess)
      throw CandidateFault(what + ": " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
    scope.close();
    PTXB_CHECK_CUDA(marker);
    msg["run_status"] = status;
    bool correct = status == 0 && problem.modified_input_bytes(stream) == 0 &&
                   problem.modified_guard_bytes(stream) == 0;
    if (status == 0) {
      problem.compute_reference(stream);
      for (size_t o = 0; o < problem.num_outputs(); ++o) {
        const CompareTolerance tol = tolerance_of(dist, problem.output_name(o));
        correct = correct && problem.compare_output(o, tol, stream).passed(tol);
      }
    }
    msg["correct"] = correct;
    out.send(msg);
  }
}

}  // namespace ptxb
