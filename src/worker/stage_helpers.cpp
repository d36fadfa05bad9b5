#include "worker/stage_helpers.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "worker/result_channel.hpp"

namespace ptxb {

using nlohmann::json;

void check_after_candidate(cudaStream_t stream, const std::string& what) {
  cudaError_t err = cudaStreamSynchronize(stream);
  if (err == cudaSuccess) err = cudaGetLastError();
  if (err != cudaSuccess)
    throw CandidateFault(what + ": " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

json number_json(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return v;
}

json stats_json(const CompareStats& s) {
  json j = {{"count", s.count},
            {"mismatches", s.mismatches},
            {"nan_count", s.nan_count},
            {"max_abs_error", number_json(s.max_abs_error)},
            {"max_rel_error", number_json(s.max_rel_error)},
            {"rel_frobenius", number_json(s.rel_frobenius)},
            {"atol", number_json(s.atol)}};
  if (s.reference_rms > 0) j["reference_rms"] = number_json(s.reference_rms);
  if (s.first_mismatch) {
    const Mismatch& m = *s.first_mismatch;
    j["first_mismatch"] = {{"index", m.index},
                           {"row", m.row},
                           {"col", m.col},
                           {"got", number_json(m.got)},
                           {"want", number_json(m.want)}};
  }
  return j;
}

CompareTolerance tolerance_of(const DistributionSpec& d, const std::string& output) {
  CompareTolerance tol;
  tol.atol = d.atol;
  tol.rtol = d.rtol;
  tol.atol_rms = d.atol_rms;
  tol.max_rel_frobenius = d.max_rel_frobenius;
  tol.round_reference = d.round_reference;
  for (const OutputTolerance& o : d.outputs) {
    if (o.output != output) continue;
    tol.atol = o.atol;
    tol.atol_rms = o.atol_rms;
    tol.rtol = o.rtol;
    tol.max_rel_frobenius = o.max_rel_frobenius;
  }
  return tol;
}

OutputCheck check_against_reference(DeviceProblem& problem, const DistributionSpec& dist,
                                    cudaStream_t stream) {
  problem.compute_reference(stream);
  OutputCheck out;
  for (size_t o = 0; o < problem.num_outputs(); ++o) {
    const CompareTolerance tol = tolerance_of(dist, problem.output_name(o));
    const CompareStats stats = problem.compare_output(o, tol, stream);
    json entry = stats_json(stats);
    entry["name"] = problem.output_name(o);
    entry["passed"] = stats.passed(tol);
    out.passed = out.passed && stats.passed(tol);
    out.outputs.push_back(std::move(entry));
  }
  return out;
}

namespace {

// What ptxb_plan returned and asked for, as a Planned: the workspace limit applied here only.
Planned planned(int status, uint64_t bytes) {
  Planned out;
  out.status = status == 0 && bytes > PTXB_MAX_WORKSPACE_BYTES ? -1 : status;
  if (out.status == 0) out.workspace = DeviceBuffer(bytes);
  return out;
}

}  // namespace

void prebuild_timed_shapes(const TaskSpec& task, Implementation& library) {
  std::vector<std::unique_ptr<ProblemDescription>> timed;
  std::vector<const ptxb_problem*> problems;
  for (const ShapeCase& sc : task.shapes) {
    if (!sc.timed) continue;
    timed.push_back(std::make_unique<ProblemDescription>(task, sc.shape));
    problems.push_back(&timed.back()->problem);
  }
  library.prebuild(problems);
}

json choose_library_plans(const TaskSpec& task, Implementation& library,
                          const std::string& device) {
  json choices = json::array();
  for (const ShapeCase& sc : task.shapes) {
    if (!sc.timed) continue;
    const ProblemDescription description(task, sc.shape);
    uint64_t bytes = 0;
    try {
      if (library.plan(description.problem, &bytes) != 0) continue;
    } catch (const std::exception&) {
      continue;
    }
    json choice = library.plan_choice();
    if (!choice.is_object()) continue;
    choice["device"] = device;
    // Timed now, or taken from the choices the job brought (the parent's cache).
    choice["source"] = library.plan_report().value("choice", "") == "timed" ? "timed" : "cached";
    const bool seen = std::any_of(choices.begin(), choices.end(), [&](const json& c) {
      return c.value("problem", json()) == choice.value("problem", json());
    });
    if (!seen) choices.push_back(std::move(choice));
  }
  library.prefer(choices);
  return choices;
}

json choices_of_device(const json& choices, const std::string& device) {
  json out = json::array();
  if (!choices.is_array()) return out;
  for (const json& c : choices)
    if (c.is_object() && c.value("device", json()) == device) out.push_back(c);
  return out;
}

Planned plan_for(Implementation& impl, const DeviceProblem& p, cudaStream_t stream) {
  uint64_t bytes = 0;
  const int status = impl.plan(p.problem(), &bytes);
  check_after_candidate(stream, impl.name() + " ptxb_plan");
  Planned out = planned(status, bytes);
  if (out.status == 0) {
    out.status = impl.tune(p.args(out.workspace.data(), out.workspace.bytes(), stream));
    check_after_candidate(stream, impl.name() + " tune");
  }
  return out;
}

json host_time_details(const TimingSamples& samples) {
  json out = json::object();
  if (samples.gate_expired > 0) out["gate_expired"] = samples.gate_expired;
  if (!samples.host_bound.empty() && samples.host_bound[0] > 0)
    out["host_bound"] = samples.host_bound[0];
  return out;
}

Planned plan_candidate(Implementation& candidate, const DeviceProblem& p, StageContext& ctx,
                       const Shape& shape) {
  uint64_t bytes = 0;
  CandidateScope scope(ctx, "ptxb_plan at " + shape.to_string());
  scope.allow_default_streams();  // plan may launch kernels of its own (docs/abi.md)
  const int status = candidate.plan(p.problem(), &bytes);
  scope.close();
  return planned(status, bytes);
}

TimedCall counted_candidate_call(StageContext& ctx, CandidateScope& scope, size_t shape, int calls,
                                 std::function<int(int call)> run, std::string phase) {
  TimedCall timed{"candidate", [&scope, run = std::move(run)](cudaStream_t, int call) {
                    scope.arm();
                    const int status = run(call);
                    scope.disarm();
                    return status;
                  }};
  timed.host_time_counts = true;  // its host code could work while the gate holds the stream
  if (ctx.counters != nullptr) {
    timed.enter = [&ctx, shape, calls, phase] {
      const auto counting = ctx.phases.span(phase);
      const auto pushing = ctx.phases.span(phase + ".push");
      ctx.counters->begin(shape, calls);
    };
    timed.leave = [&ctx, phase](int flushes) {
      const auto counting = ctx.phases.span(phase);
      const auto popping = ctx.phases.span(phase + ".pop");
      const double passes_before = ctx.counters->pass_seconds();
      ctx.counters->end(flushes);
      if (const double spent = ctx.counters->pass_seconds() - passes_before; spent > 0)
        ctx.phases.add(phase + ".passes", spent);
    };
  }
  return timed;
}

TimingSamples time_with_candidate(const std::vector<TimedCall>& calls, const TimingOptions& options,
                                  cudaStream_t stream, StageContext& ctx, const char* phase,
                                  const std::string& what) {
  try {
    const auto timed = ctx.phases.span(phase);
    TimingOptions with_parts = options;
    with_parts.on_part = [&ctx, phase](const char* part, double seconds) {
      ctx.phases.add(std::string(phase) + "." + part, seconds);
    };
    return time_interleaved(calls, with_parts, stream);
  } catch (const ApiError& e) {
    throw CandidateFault("during " + what + ": " + e.what());
  }
}

}  // namespace ptxb
