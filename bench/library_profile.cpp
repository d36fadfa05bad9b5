// ptxbench-library-profile: the non-target arithmetic of a task's library baseline, measured the
// way the evidence stage measures a candidate's (docs/evidence.md, "All the arithmetic counts"),
// so that each task's max_nontarget_flop_share can be set from the library and the expert alike.
// Three steps (ncu, then a CUPTI-free process):
//   ptxbench-library-profile metrics TASK_ID            -> the evidence run's --metrics list
//   ncu --profile-from-start off --metrics <that list> --csv --print-metric-instances details
//       --log-file lib.csv ptxbench-library-profile run TASK_ID
//   ptxbench-library-profile judge TASK_ID lib.csv      -> JSON: per timed shape, share and kernels
// "run" profiles the FLOP control once, then one library call per timed shape followed by the
// evidence marker kernel (grid = the shape's number), each in its own profiler range.
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "controls/evidence_controls.hpp"
#include "controls/flop_control.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "eval/ncu_evidence.hpp"
#include "instrument/ncu_csv.hpp"
#include "instrument/nontarget_flops.hpp"
#include "sys/process.hpp"
#include "tasks/spec.hpp"
#include "worker/family_device.hpp"
#include "worker/problem.hpp"
#include "worker/stage_helpers.hpp"

namespace {

using nlohmann::json;

int run(const ptxb::TaskSpec& task) {
  PTXB_CHECK_CUDA(cudaSetDevice(0));
  ptxb::Stream stream;
  const cudaStream_t s = stream.get();
  PTXB_CHECK_CUDA(cudaDeviceSynchronize());
  PTXB_CHECK_CUDA(cudaProfilerStart());
  PTXB_CHECK_CUDA(ptxb::launch_flop_control(true, s));
  PTXB_CHECK_CUDA(cudaDeviceSynchronize());
  PTXB_CHECK_CUDA(cudaProfilerStop());
  const ptxb::DistributionSpec& dist = task.correctness.distributions.front();
  unsigned marker = 0;
  for (const ptxb::ShapeCase& sc : task.shapes) {
    if (!sc.timed) continue;
    ++marker;
    ptxb::DeviceProblem problem(task, sc.shape);
    problem.generate_inputs(dist, task.correctness.seeds.front(), s);
    auto library = ptxb::family_device(task.family).make_baseline(task);
    ptxb::Planned plan = ptxb::plan_for(*library, problem, s);
    if (plan.status != 0) throw ptxb::ApiError("library plan failed at " + sc.shape.to_string());
    PTXB_CHECK_CUDA(cudaDeviceSynchronize());
    PTXB_CHECK_CUDA(cudaProfilerStart());
    library->run(problem.args(plan.workspace.data(), plan.workspace.bytes(), s));
    PTXB_CHECK_CUDA(ptxb::launch_evidence_marker(marker, s));
    PTXB_CHECK_CUDA(cudaDeviceSynchronize());
    PTXB_CHECK_CUDA(cudaProfilerStop());
  }
  return 0;
}

int judge(const ptxb::TaskSpec& task, const ptxb::Catalog& catalog, const std::string& csv) {
  const auto kernels = ptxb::parse_ncu_csv(ptxb::read_text_file(csv, 256 << 20));
  if (kernels.empty()) throw ptxb::InputError(csv + ": no kernels");
  std::string problem;
  const auto weights = ptxb::calibrate_flop_weights(kernels.front(), &problem);
  if (!weights) throw ptxb::InputError("FLOP control: " + problem);
  std::vector<const ptxb::InstructionEntry*> mma_targets;
  for (const ptxb::TargetSpec& t : task.targets)
    if (const auto* e = catalog.find(t.instruction, task.arch);
        e->flop_rule != ptxb::FlopRule::kNone)
      mma_targets.push_back(e);
  json out = {{"task", task.id}, {"weights", *weights}, {"shapes", json::array()}};
  size_t next = 1;  // kernels[0] is the FLOP control
  for (const ptxb::ShapeCase& sc : task.shapes) {
    if (!sc.timed) continue;
    const double flops = sc.flops;
    json shape = {
        {"shape", ptxb::shape_json(sc.shape)}, {"flops", flops}, {"kernels", json::array()}};
    double total = 0;
    for (; next < kernels.size() &&
           !ptxb::kernel_name_is(kernels[next].name, ptxb::kMarkerKernelName);
         ++next) {
      const ptxb::NonTargetFlops n = ptxb::nontarget_flops(kernels[next], *weights, mma_targets);
      total += n.flops;
      shape["kernels"].push_back({{"name", kernels[next].name},
                                  {"nontarget_flops", n.flops},
                                  {"by_source", n.by_source},
                                  {"unreadable", n.unreadable}});
    }
    ++next;  // the marker
    shape["nontarget_share"] = total / flops;
    out["shapes"].push_back(std::move(shape));
  }
  std::cout << out.dump(2) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 2 ? argv[1] : "";
    if ((mode != "run" || argc != 3) && (mode != "metrics" || argc != 3) &&
        (mode != "judge" || argc != 4)) {
      std::cerr << "usage: ptxbench-library-profile metrics|run TASK_ID | judge TASK_ID NCU.csv\n";
      return 2;
    }
    const std::filesystem::path root = ptxb::default_tasks_root();
    const ptxb::Catalog catalog = ptxb::load_catalog(root / "catalog");
    const ptxb::TaskSpec task = ptxb::find_task(root, catalog, argv[2]);
    if (mode == "metrics") {
      std::cout << ptxb::evidence_ncu_metrics(task, catalog) << "\n";
      return 0;
    }
    return mode == "run" ? run(task) : judge(task, catalog, argv[3]);
  } catch (const std::exception& e) {
    std::cerr << "ptxbench-library-profile: " << e.what() << "\n";
    return 2;
  }
}
