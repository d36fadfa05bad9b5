// ptxbench-baseline-self: a task's library baseline timed against a second instance of itself on
// every timed shape, through the worker's own interleaved timing (fresh free inputs per round,
// L2 flushed). The ratio must be 1.00 within noise: the check that the timing method favours
// neither side. Also gives the library's TFLOP/s per shape with the plans it chose, and holds the
// library's last outputs to the task's correctness rule ("correct").
// Usage: ptxbench-baseline-self TASK_ID [SAMPLES] [--prebuild] > result.json (needs a GPU; no
// sandbox). --prebuild: each instance first prebuilds every timed shape's plan as the worker does
// at start (Implementation::prebuild: cuDNN builds in threads that then exit), then plans from it.
#include <cuda_runtime.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "tasks/catalog.hpp"
#include "tasks/spec.hpp"
#include "timing/interleaved.hpp"
#include "timing/median_json.hpp"
#include "timing/stats.hpp"
#include "worker/environment.hpp"
#include "worker/family_device.hpp"
#include "worker/problem.hpp"
#include "worker/stage_helpers.hpp"

namespace {

using nlohmann::json;

json time_shape(const ptxb::TaskSpec& task, const ptxb::ShapeCase& sc, int samples, bool prebuild,
                cudaStream_t stream) {
  const ptxb::DistributionSpec& dist = task.correctness.distributions.front();
  ptxb::DeviceProblem first(task, sc.shape), second(task, sc.shape);
  first.generate_inputs(dist, task.correctness.seeds.front(), stream);
  second.generate_inputs(dist, task.correctness.seeds.front(), stream);
  auto a = ptxb::family_device(task.family).make_baseline(task),
       b = ptxb::family_device(task.family).make_baseline(task);
  if (prebuild) {
    ptxb::prebuild_timed_shapes(task, *a);
    ptxb::prebuild_timed_shapes(task, *b);
  }
  ptxb::Planned plan_a = ptxb::plan_for(*a, first, stream);
  ptxb::Planned plan_b = ptxb::plan_for(*b, second, stream);
  json out = {{"shape", ptxb::shape_json(sc.shape)}, {"flops", sc.flops}};
  if (plan_a.status != 0 || plan_b.status != 0) {
    out["error"] = "plan failed";
    out["plan"] = a->plan_report();
    return out;
  }
  const ptxb_args args_a = first.args(plan_a.workspace.data(), plan_a.workspace.bytes(), stream);
  const ptxb_args args_b = second.args(plan_b.workspace.data(), plan_b.workspace.bytes(), stream);
  ptxb::TimingOptions options;
  options.samples = samples;
  options.before_sample = [&](int sample) {
    const uint64_t seed = 0x7157'0000ull + static_cast<uint64_t>(sample);
    first.redraw_free_inputs(dist, seed, stream);
    second.redraw_free_inputs(dist, seed, stream);
  };
  const ptxb::TimingSamples t =
      ptxb::time_interleaved({{"first", [&](cudaStream_t, int) { return a->run(args_a); }},
                              {"second", [&](cudaStream_t, int) { return b->run(args_b); }}},
                             options, stream);
  if (t.failed_status != 0) {
    out["error"] = t.failed_name + " returned " + std::to_string(t.failed_status);
    return out;
  }
  const ptxb::MedianCI us_a = ptxb::median_ci(t.us[0]);
  out["first_us"] = ptxb::median_json(us_a);
  out["second_us"] = ptxb::median_json(ptxb::median_ci(t.us[1]));
  out["ratio"] = ptxb::median_json(ptxb::median_ci(ptxb::paired_ratios(t.us[1], t.us[0])));
  out["tflops"] = sc.flops / (us_a.median * 1e6);
  out["plan"] = a->plan_report();
  // The library held to the task's own correctness rule on the last round's inputs, which it
  // must have left unchanged.
  ptxb::OutputCheck check = ptxb::check_against_reference(first, dist, stream);
  out["correct"] = first.modified_input_bytes(stream) == 0 && check.passed;
  out["outputs"] = std::move(check.outputs);
  return out;
}

int run(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: ptxbench-baseline-self TASK_ID [SAMPLES] [--prebuild]\n";
    return 2;
  }
  const int samples = argc > 2 && argv[2][0] != '-' ? std::atoi(argv[2]) : 50;
  const bool prebuild = std::string(argv[argc - 1]) == "--prebuild";
  const std::filesystem::path root = ptxb::default_tasks_root();
  const ptxb::Catalog catalog = ptxb::load_catalog(root / "catalog");
  const ptxb::TaskSpec task = ptxb::find_task(root, catalog, argv[1]);
  PTXB_CHECK_CUDA(cudaSetDevice(0));
  ptxb::Stream stream;
  json result = {{"task", task.id},
                 {"samples", samples},
                 {"prebuild", prebuild},
                 {"device", ptxb::device_environment(0)},
                 {"shapes", json::array()}};
  for (const ptxb::ShapeCase& sc : task.shapes) {
    if (!sc.timed) continue;
    json shape = time_shape(task, sc, samples, prebuild, stream.get());
    std::cerr << sc.shape.to_string() << ": "
              << (shape.contains("ratio")
                      ? "ratio " + shape["ratio"]["median"].dump() + ", " + shape["tflops"].dump() +
                            " TFLOP/s, correct " + shape["correct"].dump()
                      : shape["error"].get<std::string>())
              << "\n";
    result["shapes"].push_back(std::move(shape));
  }
  std::cout << result.dump(2) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "ptxbench-baseline-self: " << e.what() << "\n";
    return 2;
  }
}
