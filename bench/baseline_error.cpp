// ptxbench-baseline-error: a task's library baseline (or a submission built as a shared object)
// held to the task's reference on every shape, input kind and seed of the task, to set
// tolerances as a multiple of the library's own error and to see where a submission stands.
// Per case and output: the verdict's statistics at the task's tolerance, and the library's error
// in units of the element rule |out - ref| <= tau * (rms(ref) + |ref|) (atol_rms = rtol = tau,
// the rule of the GEMM tasks' float input kinds): the smallest tau with no element outside it,
// found by bisection with the judge's own comparison (`tau_star`; 0: exact). Kinds whose rule is
// bit-exact (rtol = atol = atol_rms = 0) report tau_star only as "exact" or not.
// Usage: ptxbench-baseline-error TASK_ID [SUBMISSION.so] > result.json (needs a GPU; no sandbox:
// run no untrusted submission with it). One line per case on stderr, the largest tau_star and
// rel_frobenius per input kind last.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "tasks/catalog.hpp"
#include "tasks/spec.hpp"
#include "worker/environment.hpp"
#include "worker/family_device.hpp"
#include "worker/problem.hpp"
#include "worker/shared_object.hpp"
#include "worker/stage_helpers.hpp"

namespace {

using nlohmann::json;

// The smallest tau (to 1%) with no element of output `o` outside tau * (rms + |ref|): 0 where
// the output matches the reference exactly, else a bisection in log space over [2^-30, 1];
// 1 or more means "1 or more".
double tau_star(const ptxb::DeviceProblem& p, size_t o, bool round_reference, cudaStream_t s) {
  const auto clean = [&](double tau) {
    ptxb::CompareTolerance tol;
    tol.atol_rms = tau;
    tol.rtol = tau;
    tol.round_reference = round_reference;
    const ptxb::CompareStats stats = p.compare_output(o, tol, s);
    return stats.mismatches == 0 && stats.nan_count == 0;
  };
  if (clean(0)) return 0;
  double lo = std::ldexp(1.0, -30), hi = 1;
  if (!clean(hi)) return hi;
  while (hi / lo > 1.01) {
    const double mid = std::sqrt(lo * hi);
    (clean(mid) ? hi : lo) = mid;
  }
  return hi;
}

// The library baseline of `task`, or the submission at `so` where it is not empty.
std::unique_ptr<ptxb::Implementation> implementation(const ptxb::TaskSpec& task,
                                                     const std::filesystem::path& so) {
  if (so.empty()) return ptxb::family_device(task.family).make_baseline(task);
  return std::make_unique<ptxb::SharedObjectImplementation>(so);
}

json one_case(const ptxb::TaskSpec& task, const std::filesystem::path& so,
              const ptxb::ShapeCase& sc, const ptxb::DistributionSpec& dist, uint64_t seed,
              cudaStream_t stream) {
  json out = {{"shape", ptxb::shape_json(sc.shape)}, {"input_kind", dist.name}, {"seed", seed}};
  ptxb::DeviceProblem p(task, sc.shape);
  p.generate_inputs(dist, seed, stream);
  const auto impl = implementation(task, so);
  ptxb::Planned plan = ptxb::plan_for(*impl, p, stream);
  if (plan.status != 0) {
    out["unavailable"] = so.empty() ? impl->plan_report() : json("ptxb_plan failed");
    return out;
  }
  const int status = impl->run(p.args(plan.workspace.data(), plan.workspace.bytes(), stream));
  PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
  if (status != 0) {
    out["error"] = impl->name() + " returned " + std::to_string(status);
    return out;
  }
  ptxb::OutputCheck check = ptxb::check_against_reference(p, dist, stream);
  for (size_t o = 0; o < p.num_outputs(); ++o)
    check.outputs[o]["tau_star"] =
        tau_star(p, o, ptxb::tolerance_of(dist, p.output_name(o)).round_reference, stream);
  out["outputs"] = std::move(check.outputs);
  return out;
}

int run(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::cerr << "usage: ptxbench-baseline-error TASK_ID [SUBMISSION.so]\n";
    return 2;
  }
  const std::filesystem::path so = argc == 3 ? std::filesystem::absolute(argv[2]) : "";
  const std::filesystem::path root = ptxb::default_tasks_root();
  const ptxb::Catalog catalog = ptxb::load_catalog(root / "catalog");
  const ptxb::TaskSpec task = ptxb::find_task(root, catalog, argv[1]);
  PTXB_CHECK_CUDA(cudaSetDevice(0));
  ptxb::Stream stream;
  json result = {{"task", task.id},
                 {"measured", so.empty() ? "library" : so.string()},
                 {"device", ptxb::device_environment(0)}};
  json cases = json::array();
  std::map<std::string, std::pair<double, double>> worst;  // kind -> (tau_star, rel_frobenius)
  for (const ptxb::ShapeCase& sc : task.shapes)
    for (const ptxb::DistributionSpec& dist : task.correctness.distributions)
      for (const uint64_t seed : task.correctness.seeds) {
        json c = one_case(task, so, sc, dist, seed, stream.get());
        std::cerr << sc.shape.to_string() << " " << dist.name << " seed " << seed << ": ";
        if (!c.contains("outputs")) {
          std::cerr << (c.contains("error") ? c["error"].get<std::string>() : "unavailable")
                    << "\n";
        } else {
          for (const json& o : c["outputs"]) {
            const double tau = o["tau_star"], frob = o["rel_frobenius"];
            std::cerr << o["name"].get<std::string>() << " tau* " << tau << " rel frob " << frob
                      << (o["passed"].get<bool>() ? " (passes)" : " (FAILS the task's rule)");
            auto& w = worst[dist.name];
            w = {std::max(w.first, tau), std::max(w.second, frob)};
          }
          std::cerr << "\n";
        }
        cases.push_back(std::move(c));
      }
  json summary = json::object();
  for (const auto& [kind, w] : worst) {
    summary[kind] = {{"max_tau_star", w.first}, {"max_rel_frobenius", w.second}};
    std::cerr << kind << ": largest tau* " << w.first << ", largest rel frob " << w.second << "\n";
  }
  result["cases"] = std::move(cases);
  result["worst"] = std::move(summary);
  std::cout << result.dump(2) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "ptxbench-baseline-error: " << e.what() << "\n";
    return 2;
  }
}
