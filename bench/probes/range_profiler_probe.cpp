// Probe: can the timing process read hardware counters of individual candidate calls through
// CUPTI's range profiler (user ranges, user replay) while PTXBench's CUPTI monitor (callbacks and
// kernel activity) is subscribed in the same process? Prints what it finds; see
// bench/results/*-range-profiler-probe for the H200 output.
// Usage: ptxbench-range-probe TASKS_DIR EXPERT.so [ncu|cost|availability with|without]
// (EXPERT.so: the GEMM expert compiled as a submission). With "ncu" it only runs the control
// kernels and one expert call per shape of PROBE_SHAPES (MxNxK,...; default 4096x4096x4096) inside
// cudaProfilerStart/Stop ranges, for Nsight Compute to count, and prints its environment. With
// "cost" it measures what a range costs in host time as the worker uses it (gate, L2 flush, call
// inside the range), for ranges holding 1 to 20 calls, and what a pass costs by capacity. With
// "availability" it opens the profiler with or without the counter availability image
// (availability_mode).
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "controls/evidence_controls.hpp"
#include "controls/flop_control.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "sys/process.hpp"
#include "tasks/catalog.hpp"
#include "tasks/spec.hpp"
#include "timing/l2_flush.hpp"
#include "timing/launch_gate.hpp"
#include "worker/cupti_library.hpp"
#include "worker/environment.hpp"
#include "worker/monitor.hpp"
#include "worker/problem.hpp"
#include "worker/range_profiler.hpp"
#include "worker/shared_object.hpp"
#include "worker/stage_helpers.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double us_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

void print_values(const char* what, const ptxb::RangeProfiler& rp,
                  const std::vector<std::vector<double>>& values) {
  std::printf("%s: %zu range(s)\n", what, values.size());
  for (size_t r = 0; r < values.size(); ++r)
    for (size_t m = 0; m < rp.metrics().size(); ++m)
      std::printf("  range %zu %-48s %.0f\n", r, rp.metrics()[m].c_str(), values[r][m]);
}

void attempt(const char* what, const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    std::printf("%s: FAILED: %s\n", what, e.what());
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

extern char** environ;

// The kernels Nsight Compute should count, each once, inside profiler ranges.
int ncu_mode(const char* tasks_dir, const char* expert_so) {
  for (char** e = environ; *e != nullptr; ++e) std::printf("env %s\n", *e);
  const ptxb::Catalog catalog = ptxb::load_catalog(std::string(tasks_dir) + "/catalog");
  const ptxb::TaskSpec task =
      ptxb::load_task(std::string(tasks_dir) + "/sm90/gemm/bf16-wgmma-tma/task.toml", catalog);
  ptxb::SharedObjectImplementation expert(expert_so);
  ptxb::Stream stream;
  const cudaStream_t s = stream.get();
  // PROBE_CLEARENV=early: the environment emptied before the first profiled kernel; =late: after
  // one profiled kernel. Does Nsight Compute's injection need its variables later on?
  const char* clear = std::getenv("PROBE_CLEARENV");
  const std::string when = clear != nullptr ? clear : "";
  const std::vector<std::string> minimal = {"PATH=/usr/bin:/bin", "HOME=/tmp"};
  if (std::getenv("PROBE_NVML") != nullptr)  // the worker reads NVML before profiling starts
    std::printf("nvml %s\n", ptxb::device_environment(0).dump().c_str());
  if (when == "early") ptxb::replace_environment(minimal);
  PTXB_CHECK_CUDA(cudaDeviceSynchronize());
  PTXB_CHECK_CUDA(cudaProfilerStart());
  PTXB_CHECK_CUDA(ptxb::launch_evidence_control(true, s));
  PTXB_CHECK_CUDA(cudaDeviceSynchronize());
  PTXB_CHECK_CUDA(cudaProfilerStop());
  if (when == "late") ptxb::replace_environment(minimal);
  PTXB_CHECK_CUDA(cudaProfilerStart());
  PTXB_CHECK_CUDA(ptxb::launch_flop_control(true, s));
  PTXB_CHECK_CUDA(ptxb::launch_flop_control(false, s));
  PTXB_CHECK_CUDA(cudaDeviceSynchronize());
  PTXB_CHECK_CUDA(cudaProfilerStop());
  const char* shapes = std::getenv("PROBE_SHAPES");
  std::string list = shapes != nullptr ? shapes : "4096x4096x4096";
  for (size_t at = 0; at < list.size();) {
    const size_t comma = std::min(list.find(',', at), list.size());
    int m = 0, n = 0, k = 0;
    if (std::sscanf(list.substr(at, comma - at).c_str(), "%dx%dx%d", &m, &n, &k) != 3) {
      std::fprintf(stderr, "PROBE_SHAPES: '%s' is not MxNxK\n",
                   list.substr(at, comma - at).c_str());
      return 2;
    }
    at = comma + 1;
    // Set-up outside the profiler range, so that ncu counts the expert's kernels only.
    ptxb::DeviceProblem problem(task, ptxb::Shape{{{"M", m}, {"N", n}, {"K", k}}});
    problem.generate_inputs(task.correctness.distributions.front(), 1, s);
    ptxb::Planned plan = ptxb::plan_for(expert, problem, s);
    PTXB_CHECK_CUDA(cudaDeviceSynchronize());
    std::printf("expert %dx%dx%d\n", m, n, k);
    PTXB_CHECK_CUDA(cudaProfilerStart());
    expert.run(problem.args(plan.workspace.data(), plan.workspace.bytes(), s));
    PTXB_CHECK_CUDA(cudaDeviceSynchronize());
    PTXB_CHECK_CUDA(cudaProfilerStop());
  }
  return 0;
}

// What a counter range costs the worker: per range of k candidate calls (each behind the launch
// gate and the L2 flush, as in a timed round), the host time of push and pop and the wall time of
// the range against the same calls without a range; per pass, start, stop and decode by capacity.
int cost_mode(const char* tasks_dir, const char* expert_so) {
  std::string why;
  auto monitor = ptxb::CandidateMonitor::create(&why);
  std::printf("monitor: %s %s\n", monitor ? "subscribed" : "NOT available", why.c_str());
  const ptxb::Catalog catalog = ptxb::load_catalog(std::string(tasks_dir) + "/catalog");
  std::vector<std::string> metrics;
  for (const ptxb::CounterSpec& c : catalog.counters_for("sm_90a")) metrics.push_back(c.metric);
  const ptxb::TaskSpec task =
      ptxb::load_task(std::string(tasks_dir) + "/sm90/gemm/bf16-wgmma-tma/task.toml", catalog);
  ptxb::SharedObjectImplementation expert(expert_so);
  CUcontext ctx = ptxb::current_cuda_context();
  ptxb::Stream stream;
  const cudaStream_t s = stream.get();
  ptxb::L2Flusher flusher;
  ptxb::LaunchGate gate;
  auto rp = ptxb::RangeProfiler::create(ctx, 0, metrics, 64, &why);
  if (!rp) {
    std::printf("range profiler: NOT available: %s\n", why.c_str());
    return 1;
  }
  std::printf("metrics %zu\n", metrics.size());
  const int reps = 32;
  for (const char* dims : {"128x8192x8192", "4096x4096x4096"}) {
    int m = 0, n = 0, k = 0;
    std::sscanf(dims, "%dx%dx%d", &m, &n, &k);
    const ptxb::Shape shape{{{"M", m}, {"N", n}, {"K", k}}};
    for (const int calls : {1, 2, 4, 8, 20}) {
      attempt("cost", [&] {
        std::vector<std::unique_ptr<ptxb::DeviceProblem>> problems;
        std::vector<ptxb::Planned> plans;
        std::vector<ptxb_args> args;
        for (int c = 0; c < calls; ++c) {
          problems.push_back(std::make_unique<ptxb::DeviceProblem>(task, shape));
          problems.back()->generate_inputs(task.correctness.distributions.front(), 1 + c, s);
          plans.push_back(ptxb::plan_for(expert, *problems.back(), s));
          args.push_back(problems.back()->args(plans.back().workspace.data(),
                                               plans.back().workspace.bytes(), s));
        }
        auto run_calls = [&] {
          for (int c = 0; c < calls; ++c) {
            gate.hold(s);
            flusher.flush(s);
            expert.run(args[c]);
            gate.release();
          }
        };
        for (int w = 0; w < 3; ++w) run_calls();
        PTXB_CHECK_CUDA(cudaStreamSynchronize(s));
        std::vector<double> plain, ranged, push, pop, pass;
        for (int r = 0; r < reps; ++r) {
          const auto t0 = Clock::now();
          run_calls();
          PTXB_CHECK_CUDA(cudaStreamSynchronize(s));
          plain.push_back(us_since(t0));
        }
        rp->reset();
        rp->start();
        for (int r = 0; r < reps; ++r) {
          const std::string name = "r" + std::to_string(r);
          const auto t0 = Clock::now();
          rp->push(name.c_str());
          push.push_back(us_since(t0));
          run_calls();
          const auto t1 = Clock::now();
          rp->pop();
          pop.push_back(us_since(t1));
          PTXB_CHECK_CUDA(cudaStreamSynchronize(s));
          ranged.push_back(us_since(t0));
        }
        const auto t2 = Clock::now();
        rp->stop();
        const auto values = rp->decode();
        const double pass_us = us_since(t2);
        std::printf(
            "cost %s calls %2d: wall/range plain %8.1f us ranged %8.1f us (+%7.1f us, +%6.1f "
            "us/call); push %6.1f pop %7.1f; stop+decode %zu ranges %7.0f us\n",
            dims, calls, median(plain), median(ranged), median(ranged) - median(plain),
            (median(ranged) - median(plain)) / calls, median(push), median(pop), values.size(),
            pass_us);
      });
    }
  }
  rp.reset();
  for (const size_t capacity : {64u, 256u, 1024u, 4096u}) {
    attempt("capacity", [&] {
      why.clear();
      auto cap = ptxb::RangeProfiler::create(ctx, 0, metrics, capacity, &why);
      if (!cap) {
        std::printf("capacity %zu: FAILED %s\n", capacity, why.c_str());
        return;
      }
      auto t0 = Clock::now();
      cap->reset();
      const double reset_us = us_since(t0);
      t0 = Clock::now();
      cap->start();
      const double start_us = us_since(t0);
      std::vector<double> push, pop;
      for (size_t r = 0; r < capacity; ++r) {
        const std::string name = "c" + std::to_string(r);
        auto t1 = Clock::now();
        cap->push(name.c_str());
        push.push_back(us_since(t1));
        PTXB_CHECK_CUDA(ptxb::launch_flop_control(true, s));
        t1 = Clock::now();
        cap->pop();
        pop.push_back(us_since(t1));
      }
      t0 = Clock::now();
      cap->stop();
      const double stop_us = us_since(t0);
      t0 = Clock::now();
      const auto values = cap->decode();
      std::printf(
          "capacity %4zu: reset %7.0f us start %7.0f us stop %7.0f us decode %7.0f us (%zu "
          "ranges); push %6.1f pop %6.1f us\n",
          capacity, reset_us, start_us, stop_us, us_since(t0), values.size(), median(push),
          median(pop));
    });
  }
  return 0;
}

// Can the timing worker skip the counter availability image (0.5 s of an H100 worker's start,
// setup.counters.create.availability)? Opens the range profiler for the catalog's counters with
// the image ("with") or without it ("without"; run each in a process of its own: the first
// profiler of a process pays its one-time costs), prints create()'s steps in seconds, and whether
// its config image equals the host API's image built without one (bytes compared). Equal images
// configure the same collection; the worker's controls check (CallCounters::check) stays the guard.
int availability_mode(const char* tasks_dir, bool with_image) {
  const ptxb::Catalog catalog = ptxb::load_catalog(std::string(tasks_dir) + "/catalog");
  std::vector<std::string> metrics;
  for (const ptxb::CounterSpec& c : catalog.counters_for("sm_90a")) metrics.push_back(c.metric);
  std::string why;
  auto rp =
      ptxb::RangeProfiler::create(ptxb::current_cuda_context(), 0, metrics, 64, &why, with_image);
  if (!rp) {
    std::printf("range profiler: NOT available: %s\n", why.c_str());
    return 1;
  }
  std::printf("availability image %s:", with_image ? "queried" : "not queried");
  for (const auto& [step, seconds] : rp->setup_seconds())
    std::printf(" %s %.3f", step.c_str(), seconds);
  const std::vector<uint8_t> host =
      ptxb::RangeProfiler::host_config_image(rp->chip(), metrics, &why);
  std::printf("\nconfig image %zu bytes, host API image without availability %zu bytes: %s %s\n",
              rp->config_image().size(), host.size(),
              rp->config_image() == host ? "EQUAL" : "DIFFERENT", why.c_str());
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3 || argc > 5) {
    std::fprintf(stderr, "usage: %s TASKS_DIR EXPERT.so [ncu|cost|availability with|without]\n",
                 argv[0]);
    return 2;
  }
  PTXB_CHECK_CUDA(cudaSetDevice(0));
  PTXB_CHECK_CUDA(cudaFree(nullptr));
  if (argc == 5 && std::string(argv[3]) == "availability")
    return availability_mode(argv[1], std::string(argv[4]) == "with");
  if (argc == 4 && std::string(argv[3]) == "cost") return cost_mode(argv[1], argv[2]);
  if (argc == 4) return ncu_mode(argv[1], argv[2]);
  ptxb::Stream stream, side;
  std::string why;
  auto monitor = ptxb::CandidateMonitor::create(&why);
  std::printf("monitor: %s %s\n", monitor ? "subscribed" : "NOT available", why.c_str());

  // Which hardware metrics fit one pass? Singles and pairs first, then a greedy set in order of
  // preference (what the evidence check needs most comes first).
  const std::vector<std::string> preferred = {"sm__inst_executed_pipe_tensor_op_gmma.sum",
                                              "sm__inst_executed_pipe_fma.sum",
                                              "sm__inst_executed_pipe_tensor_op_hmma.sum",
                                              "sm__inst_executed_pipe_fp64.sum",
                                              "smsp__inst_executed.sum",
                                              "sm__inst_executed.sum",
                                              "sm__inst_executed_pipe_tensor_op_imma.sum",
                                              "sm__inst_executed_pipe_tensor_op_dmma.sum",
                                              "sm__inst_executed_pipe_fma_type_fp16.sum",
                                              "sm__inst_executed_pipe_alu.sum",
                                              "sm__inst_executed_pipe_tensor.sum",
                                              "sm__cycles_elapsed.max"};
  CUcontext ctx = ptxb::current_cuda_context();
  std::string chip;
  {
    auto first = ptxb::RangeProfiler::create(ctx, 0, {preferred[0]}, 4, &why);
    if (!first) {
      std::printf("range profiler: NOT available even for %s: %s\n", preferred[0].c_str(),
                  why.c_str());
      return 1;
    }
    chip = first->chip();
  }
  for (size_t i = 0; i < preferred.size(); ++i) {
    why.clear();
    std::printf("passes %zu for %s %s\n",
                ptxb::RangeProfiler::passes_needed(chip, {preferred[i]}, &why),
                preferred[i].c_str(), why.c_str());
    for (size_t j = i + 1; j < preferred.size(); ++j) {
      why.clear();
      const size_t p = ptxb::RangeProfiler::passes_needed(chip, {preferred[i], preferred[j]}, &why);
      if (p != 1)
        std::printf("  pair needs %zu: %s + %s %s\n", p, preferred[i].c_str(), preferred[j].c_str(),
                    why.c_str());
    }
  }
  std::vector<std::string> core;
  for (const std::string& m : preferred) {
    std::vector<std::string> trial = core;
    trial.push_back(m);
    why.clear();
    if (ptxb::RangeProfiler::passes_needed(chip, trial, &why) == 1) core = trial;
  }
  std::printf("one-pass set:");
  for (const std::string& m : core) std::printf(" %s", m.c_str());
  std::printf("\n");
  auto rp = ptxb::RangeProfiler::create(ctx, 0, core, 64, &why);
  if (!rp) {
    std::printf("range profiler: NOT available: %s\n", why.c_str());
    return 1;
  }
  std::printf("range profiler: chip %s, metrics %zu, 1 pass\n", rp->chip().c_str(), core.size());
  for (const char* part : {"inst_executed_pipe", "gmma"}) {
    std::printf("base metrics containing '%s':", part);
    for (const std::string& m : ptxb::RangeProfiler::base_metrics(rp->chip(), part))
      std::printf(" %s", m.c_str());
    std::printf("\n");
  }

  const cudaStream_t s = stream.get();
  auto one_range = [&](const char* what, const std::function<void()>& launch) {
    attempt(what, [&] {
      PTXB_CHECK_CUDA(cudaDeviceSynchronize());
      const auto t0 = Clock::now();
      rp->start();
      rp->push(what);
      launch();
      rp->pop();
      rp->stop();
      const double enqueue_us = us_since(t0);
      PTXB_CHECK_CUDA(cudaDeviceSynchronize());
      const auto t1 = Clock::now();
      const auto values = rp->decode();
      std::printf("[%s] start..stop %.1f us, decode+evaluate %.1f us\n", what, enqueue_us,
                  us_since(t1));
      print_values(what, *rp, values);
    });
  };
  // A: one full pass per call, known kernels.
  one_range("A evidence control live",
            [&] { PTXB_CHECK_CUDA(ptxb::launch_evidence_control(true, s)); });
  one_range("A evidence control dead",
            [&] { PTXB_CHECK_CUDA(ptxb::launch_evidence_control(false, s)); });
  one_range("A flop control live", [&] { PTXB_CHECK_CUDA(ptxb::launch_flop_control(true, s)); });
  one_range("A flop control dead", [&] { PTXB_CHECK_CUDA(ptxb::launch_flop_control(false, s)); });
  one_range("D flop control on another stream",
            [&] { PTXB_CHECK_CUDA(ptxb::launch_flop_control(true, side.get())); });
  one_range("A same range twice: flop x2", [&] {
    PTXB_CHECK_CUDA(ptxb::launch_flop_control(true, s));
    PTXB_CHECK_CUDA(ptxb::launch_flop_control(true, s));
  });
  // B: three passes without decoding between them, then one decode.
  attempt("B three passes then one decode", [&] {
    for (int i = 0; i < 3; ++i) {
      rp->start();
      rp->push("B");
      PTXB_CHECK_CUDA(ptxb::launch_flop_control(true, s));
      rp->pop();
      rp->stop();
    }
    PTXB_CHECK_CUDA(cudaDeviceSynchronize());
    print_values("B three passes then one decode", *rp, rp->decode());
  });
  // C: one pass with five ranges.
  attempt("C one pass, five ranges", [&] {
    rp->start();
    for (int i = 0; i < 5; ++i) {
      rp->push("C");
      for (int k = 0; k <= i; ++k) PTXB_CHECK_CUDA(ptxb::launch_flop_control(true, s));
      rp->pop();
    }
    rp->stop();
    PTXB_CHECK_CUDA(cudaDeviceSynchronize());
    print_values("C one pass, five ranges (1..5 flop launches)", *rp, rp->decode());
  });
  // C2: decode without a sync first.
  attempt("C2 decode without synchronize", [&] {
    rp->start();
    rp->push("C2");
    PTXB_CHECK_CUDA(ptxb::launch_flop_control(true, s));
    rp->pop();
    rp->stop();
    print_values("C2 decode without synchronize", *rp, rp->decode());
  });

  // E: the GEMM expert, one pass per shape: an L2-flush-like kernel, then push (unique name),
  // events around the call, pop; every other call outside any range. Decoded once per shape.
  const ptxb::Catalog catalog = ptxb::load_catalog(std::string(argv[1]) + "/catalog");
  const ptxb::TaskSpec task =
      ptxb::load_task(std::string(argv[1]) + "/sm90/gemm/bf16-wgmma-tma/task.toml", catalog);
  ptxb::SharedObjectImplementation expert(argv[2]);
  for (const size_t capacity : {2048u, 1024u, 512u}) {
    why.clear();
    auto big = ptxb::RangeProfiler::create(ctx, 0, core, capacity, &why);
    std::printf("capacity %zu ranges: %s %s\n", capacity, big ? "ok" : "FAILED", why.c_str());
    if (!big) continue;
    rp = std::move(big);
    break;
  }
  ptxb::DeviceBuffer flush_buf(size_t(120) << 20);
  for (const ptxb::ShapeCase& sc : task.shapes) {
    if (!sc.timed) continue;
    attempt("E expert", [&] {
      ptxb::DeviceProblem problem(task, sc.shape);
      problem.generate_inputs(task.correctness.distributions.front(), 1, s);
      ptxb::Planned plan = ptxb::plan_for(expert, problem, s);
      const ptxb_args args = problem.args(plan.workspace.data(), plan.workspace.bytes(), s);
      ptxb::Event e0, e1;
      std::vector<double> plain_us, ranged_us, push_us, pop_us;
      for (int i = 0; i < 3; ++i) expert.run(args);
      rp->reset();
      auto t_start = Clock::now();
      rp->start();
      const double start_us = us_since(t_start);
      const int rounds = 200;
      for (int round = 0; round < rounds; ++round) {
        const bool ranged = round % 2 == 1;
        PTXB_CHECK_CUDA(cudaMemsetAsync(flush_buf.data(), round & 0xff, flush_buf.bytes(), s));
        const std::string name = "call" + std::to_string(round);
        auto t0 = Clock::now();
        if (ranged) rp->push(name.c_str());
        const double push = us_since(t0);
        e0.record(s);
        expert.run(args);
        e1.record(s);
        t0 = Clock::now();
        if (ranged) rp->pop();
        const double pop = us_since(t0);
        PTXB_CHECK_CUDA(cudaStreamSynchronize(s));
        const double us = 1000.0 * e1.elapsed_ms_since(e0);
        (ranged ? ranged_us : plain_us).push_back(us);
        if (ranged) {
          push_us.push_back(push);
          pop_us.push_back(pop);
        }
      }
      t_start = Clock::now();
      rp->stop();
      const double stop_us = us_since(t_start);
      t_start = Clock::now();
      const auto values = rp->decode();
      const double decode_us = us_since(t_start);
      std::vector<double> first_metric, second_metric;
      for (const auto& v : values) {
        first_metric.push_back(v[0]);
        second_metric.push_back(v[1]);
      }
      std::printf(
          "E %s: plain %.1f us, ranged %.1f us (x%.4f); host push %.1f us, pop %.1f us, "
          "start %.0f us, stop %.0f us, decode+evaluate of %zu ranges %.0f us; "
          "%s min %.0f max %.0f; %s min %.0f max %.0f\n",
          sc.shape.to_string().c_str(), median(plain_us), median(ranged_us),
          median(ranged_us) / median(plain_us), median(push_us), median(pop_us), start_us, stop_us,
          values.size(), decode_us, core[0].c_str(),
          *std::min_element(first_metric.begin(), first_metric.end()),
          *std::max_element(first_metric.begin(), first_metric.end()), core[1].c_str(),
          *std::min_element(second_metric.begin(), second_metric.end()),
          *std::max_element(second_metric.begin(), second_metric.end()));
      print_values("E first range of the shape", *rp, {values.front()});
    });
  }
  // F: after reset, a fresh image holds only the new ranges.
  attempt("F reset", [&] {
    rp->reset();
    rp->start();
    for (int i = 0; i < 3; ++i) {
      const std::string name = "F" + std::to_string(i);
      rp->push(name.c_str());
      PTXB_CHECK_CUDA(ptxb::launch_flop_control(true, s));
      rp->pop();
    }
    rp->stop();
    print_values("F three ranges after reset", *rp, rp->decode());
  });
  if (monitor) {
    const ptxb::MonitorReport report = monitor->collect();
    std::printf("monitor after all: %zu kernel records, %llu dropped, %zu errors\n",
                report.kernels.size(), static_cast<unsigned long long>(report.dropped_records),
                report.monitor_errors.size());
    for (const auto& e : report.monitor_errors) std::printf("  monitor error: %s\n", e.c_str());
  }
  return 0;
}
