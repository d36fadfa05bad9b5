// ptxbench-worker: the child process that loads candidate code. Usage: ptxbench-worker JOB.json
// Results go to fd 3 as protocol messages (protocol/protocol.hpp); stdout and stderr belong to
// the candidate and are never parsed.
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compile/elf_imports.hpp"
#include "core/arch.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "sys/files.hpp"
#include "sys/process.hpp"
#include "sys/sandbox.hpp"
#include "tasks/task_wire.hpp"
#include "worker/call_counters.hpp"
#include "worker/candidate_scope.hpp"
#include "worker/cupti_library.hpp"
#include "worker/environment.hpp"
#include "worker/family_device.hpp"
#include "worker/monitor.hpp"
#include "worker/problem.hpp"
#include "worker/range_profiler.hpp"
#include "worker/sass_metrics.hpp"
#include "worker/shared_object.hpp"
#include "worker/stage_helpers.hpp"
#include "worker/stages.hpp"
#include "worker/watchdog.hpp"

namespace {

using nlohmann::json;
using ptxb::WorkerExit;

int exit_code(WorkerExit e) { return static_cast<int>(e); }

// Set once candidate code may have run: from then on a failing CUDA call of PTXBench's own (out
// of memory after the candidate grabbed it all, a context it broke) is the candidate's doing.
bool candidate_code_ran = false;

// The device as the library's plan choices name it (choose_library_plans): the GPU, its SM count,
// the driver and the CUDA runtime; a choice made on another is not taken.
std::string device_fingerprint(const json& environment) {
  return environment.value("gpu", std::string()) + ", " +
         std::to_string(environment.value("sm_count", 0)) + " SMs, driver " +
         environment.value("driver", std::string()) + ", CUDA driver API " +
         std::to_string(environment.value("cuda_driver_api", 0)) + ", runtime " +
         std::to_string(environment.value("cuda_runtime", 0));
}

// The library's plans for every timed shape, prepared at once (prebuild_timed_shapes) while no
// candidate code, sandbox or CUPTI monitor exists yet; seconds taken.
double timed_prebuild(const ptxb::TaskSpec& task, ptxb::Implementation& library) {
  const auto start = ptxb::PhaseClock::Clock::now();
  ptxb::prebuild_timed_shapes(task, library);
  return ptxb::seconds_since(start);
}

// The hardware counters of candidate calls (worker/call_counters.hpp), checked on the
// controls; nullptr when unavailable, which the "counters_setup" message explains. Not under ncu,
// which holds the profiling interface itself. With the seconds of each set-up step for the
// phases: "create" (its parts "create.initialize", ... as RangeProfiler::setup_seconds()) and
// "check".
struct OpenedCounters {
  std::unique_ptr<ptxb::CallCounters> counters;
  std::map<std::string, double> seconds;
};

OpenedCounters open_counters(const std::vector<ptxb::CounterSpec>& specs,
                             const ptxb::WorkerJob& job, cudaStream_t stream,
                             const ptxb::ResultChannel& out) {
  OpenedCounters opened;
  std::string why;
  const auto create_start = ptxb::PhaseClock::Clock::now();
  opened.counters = ptxb::CallCounters::create(specs, job.device, &why);
  opened.seconds["create"] = ptxb::seconds_since(create_start);
  if (opened.counters)
    for (const auto& [step, s] : opened.counters->setup_seconds())
      opened.seconds["create." + step] = s;
  const auto check_start = ptxb::PhaseClock::Clock::now();
  json setup =
      opened.counters ? opened.counters->check(stream) : json{{"ok", false}, {"problem", why}};
  opened.seconds["check"] = ptxb::seconds_since(check_start);
  out.send({{"type", "counters_setup"}, {"setup", setup}});
  if (opened.counters && !opened.counters->ok()) opened.counters.reset();
  return opened;
}

// The in-process evidence's collectors (WorkerJob::evidence_in_process), each announced in a
// message ("sass_metrics", "kernel_counters") with why it is missing; `sass` null: no evidence.
struct InProcessEvidence {
  std::unique_ptr<ptxb::SassMetrics> sass;
  std::unique_ptr<ptxb::RangeProfiler> kernel_counters;  ///< null: no metrics asked for, or refused
};

InProcessEvidence open_in_process_evidence(const ptxb::WorkerJob& job,
                                           const ptxb::ResultChannel& out) {
  InProcessEvidence opened;
  const auto sass_start = ptxb::PhaseClock::Clock::now();
  std::string why;
  opened.sass = ptxb::SassMetrics::create(ptxb::current_cuda_context(), job.device, &why);
  out.send({{"type", "sass_metrics"},
            {"available", opened.sass != nullptr},
            {"reason", why},
            {"cupti_version", opened.sass ? opened.sass->cupti_version() : 0},
            {"seconds", ptxb::seconds_since(sass_start)}});
  if (!opened.sass || job.evidence_metrics.empty()) return opened;
  const auto counters_start = ptxb::PhaseClock::Clock::now();
  // NOTE: room for the controls' and the largest call's launches (the parent's kernel limit).
  opened.kernel_counters =
      ptxb::RangeProfiler::create(ptxb::current_cuda_context(), job.device, job.evidence_metrics,
                                  256, &why, true, ptxb::RangeMode::kPerKernel);
  out.send({{"type", "kernel_counters"},
            {"available", opened.kernel_counters != nullptr},
            {"reason", opened.kernel_counters ? "" : why},
            {"seconds", ptxb::seconds_since(counters_start)}});
  return opened;
}

int run_job(const ptxb::WorkerJob& job, const ptxb::ResultChannel& out) {
  const auto started = ptxb::PhaseClock::Clock::now();
  int devices = 0;
  const cudaError_t counted = cudaGetDeviceCount(&devices);
  if (counted != cudaSuccess || devices <= job.device) {
    // The CUDA error names the cause (no driver, no device, devices busy or unavailable).
    const std::string why =
        counted != cudaSuccess
            ? std::string(cudaGetErrorName(counted)) + ", " + cudaGetErrorString(counted)
            : std::to_string(devices) + " device(s), device " + std::to_string(job.device) +
                  " asked for";
    out.send({{"type", "no_gpu"},
              {"cause", "cuda"},
              {"message", "no CUDA device is available to this process: " + why}});
    return exit_code(WorkerExit::kNoGpu);
  }
  PTXB_CHECK_CUDA(cudaSetDevice(job.device));
  PTXB_CHECK_CUDA(cudaFree(nullptr));  // the context exists before any candidate code
  const json environment = ptxb::device_environment(job.device);
  out.send({{"type", "environment"}, {"device", environment}});
  const double cuda_seconds = ptxb::seconds_since(started);

  const ptxb::TaskSpec task = ptxb::task_from_json(job.task);
  const std::vector<ptxb::CounterSpec> counter_specs = ptxb::counters_from_json(job.counters);
  // Arch-specific code runs only on that exact architecture (core/arch.hpp).
  cudaDeviceProp prop{};
  PTXB_CHECK_CUDA(cudaGetDeviceProperties(&prop, job.device));
  const ptxb::Arch* device_arch = ptxb::arch_for_device(prop.major, prop.minor);
  if (device_arch == nullptr || device_arch->name != task.arch) {
    out.send({{"type", "no_gpu"},
              {"cause", "arch"},
              {"message", "this task needs an " + task.arch + " GPU; device " +
                              std::to_string(job.device) + " has compute capability " +
                              std::to_string(prop.major) + "." + std::to_string(prop.minor)}});
    return exit_code(WorkerExit::kNoGpu);
  }
  ptxb::Stream stream;

  // Everything PTXBench needs from the system is opened before the sandbox closes it off.
  std::unique_ptr<ptxb::Implementation> library_baseline;
  double prebuild_seconds = 0, choices_seconds = 0;
  if (job.run_timing && job.baseline == "library") {
    library_baseline = ptxb::family_device(task.family).make_baseline(task);
    const std::string device = device_fingerprint(environment);
    library_baseline->prefer(ptxb::choices_of_device(job.library_choices, device));
    prebuild_seconds = timed_prebuild(task, *library_baseline);
    if (library_baseline->times_plans()) {
      // The library's plan choices are made (or taken from earlier evaluations) here, before any
      // candidate code: the parent caches only what this message says, and only from before the
      // "sandbox" message (eval/worker_fold.cpp).
      const auto choices_start = ptxb::PhaseClock::Clock::now();
      const json choices = ptxb::choose_library_plans(task, *library_baseline, device);
      choices_seconds = ptxb::seconds_since(choices_start);
      out.send({{"type", "library_choices"}, {"choices", choices}});
    }
  }
  std::unique_ptr<ptxb::CandidateMonitor> monitor;
  std::string monitor_problem = "not used in the evidence run (ncu holds the profiling interface)";
  if (!job.run_evidence) monitor = ptxb::CandidateMonitor::create(&monitor_problem);
  if (monitor && job.own_device_code_rule) {
    // The candidate's compiled device code: modules loaded while it runs must be part of it. A
    // shared object without the section has none (every module it loads is foreign).
    std::optional<std::string> own = ptxb::read_elf_section_file(job.shared_object, ".nv_fatbin");
    monitor->set_own_device_code(own ? std::move(*own) : std::string());
  }
  out.send({{"type", "monitor"},
            {"available", monitor != nullptr},
            {"reason", monitor ? "" : monitor_problem}});
  std::unique_ptr<ptxb::CallCounters> counters;
  std::map<std::string, double> counters_steps;
  double controls_seconds = 0, counters_seconds = 0;
  InProcessEvidence in_process;
  if (job.run_evidence && job.evidence_in_process) {
    in_process = open_in_process_evidence(job, out);
    if (!in_process.sass) {
      out.send({{"type", "done"}});
      return exit_code(WorkerExit::kOk);
    }
  }
  std::unique_ptr<ptxb::SassMetrics>& sass = in_process.sass;
  std::unique_ptr<ptxb::RangeProfiler>& kernel_counters = in_process.kernel_counters;
  if (job.run_evidence && !sass) {
    const auto controls_start = ptxb::PhaseClock::Clock::now();
    // Before the environment changes: ncu sets up its collection on the first profiled kernel.
    ptxb::run_evidence_controls(out, stream.get());
    controls_seconds = ptxb::seconds_since(controls_start);
  } else if (!job.run_evidence) {
    const auto counters_start = ptxb::PhaseClock::Clock::now();
    OpenedCounters opened = open_counters(counter_specs, job, stream.get(), out);
    counters = std::move(opened.counters);
    counters_steps = std::move(opened.seconds);
    counters_seconds = ptxb::seconds_since(counters_start);
  }
  // CUDA and any profiler's injection have initialised: from here on the process's environment
  // is the job's, the same under ncu as in the timing process (docs/evidence.md).
  if (!job.environment.empty()) ptxb::replace_environment(job.environment);
  ptxb::CallWatchdog watchdog(out);
  out.send({{"type", "sandbox"},
            {"report", job.sandbox ? ptxb::apply_sandbox(*job.sandbox) : json("off")}});
  // The worker dies with its parent (PTXBench, or ncu in the evidence run); the change of user
  // in the sandbox cleared what the parent set before exec (sys/process.cpp).
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);

  ptxb::StageContext ctx{out, watchdog};
  ctx.monitor = monitor.get();
  ctx.counters = counters.get();
  ctx.sass = sass.get();
  if (job.candidate_functions)
    ctx.candidate_functions.emplace(job.candidate_functions->begin(),
                                    job.candidate_functions->end());
  ctx.call_deadline = std::chrono::seconds(job.call_deadline_s);
  ctx.candidate_library = std::filesystem::weakly_canonical(job.shared_object).string();
  ctx.stream = stream.get();
  if (monitor) {
    ctx.stream_id = monitor->stream_id(stream.get());
    // Best effort: a default stream CUPTI cannot name stays refused to ptxb_plan (never a harness
    // failure).
    for (const cudaStream_t d : {cudaStreamLegacy, cudaStreamPerThread}) {
      try {
        ctx.default_stream_ids.insert(monitor->stream_id(d));
      } catch (const ptxb::ApiError&) {
        continue;
      }
    }
  }

  std::unique_ptr<ptxb::SharedObjectImplementation> candidate;
  const auto load_start = ptxb::PhaseClock::Clock::now();
  try {
    // Loading runs the candidate's static constructors: candidate code, watched like a call.
    ptxb::CandidateScope scope(ctx, "loading the shared object");
    candidate_code_ran = true;
    candidate = std::make_unique<ptxb::SharedObjectImplementation>(job.shared_object);
    scope.close();
  } catch (const ptxb::InputError& e) {
    out.send({{"type", "load_error"}, {"message", e.what()}});
    return exit_code(WorkerExit::kOk);
  }
  ctx.phases.add("setup", ptxb::seconds_since(started));
  ctx.phases.add("setup.baseline_prebuild", prebuild_seconds);
  ctx.phases.add("setup.library_choices", choices_seconds);
  ctx.phases.add("setup.cuda", cuda_seconds);
  ctx.phases.add("setup.load", ptxb::seconds_since(load_start));
  if (!job.run_evidence) ctx.phases.add("setup.counters", counters_seconds);
  for (const auto& [step, s] : counters_steps) ctx.phases.add("setup.counters." + step, s);
  if (job.run_evidence) ctx.phases.add("setup.evidence_controls", controls_seconds);

  if (job.run_evidence) {
    if (kernel_counters) {
      // NOTE: the counted runs first, then the range profiler disabled: with it enabled (and the
      // CUPTI monitor subscribed) SASS-metrics collections returned no records
      // (bench/probes/sass_coexistence_probe.cpp).
      const auto phase = ctx.phases.span("evidence.counters");
      ptxb::run_evidence_counters(task, *candidate, ctx, *kernel_counters);
      kernel_counters.reset();
    }
    if (sass) {
      const auto phase = ctx.phases.span("evidence.controls");
      ptxb::run_evidence_controls(out, stream.get(), sass.get());
    }
    {
      const auto phase = ctx.phases.span("evidence");
      ptxb::run_evidence(task, *candidate, ctx);
    }
    out.send({{"type", "phases"}, {"seconds", ctx.phases.to_json()}});
    out.send({{"type", "done"}});
    return exit_code(WorkerExit::kOk);
  }
  bool correct = true;
  if (job.run_correctness) {
    const auto phase = ctx.phases.span("correctness");
    correct = ptxb::run_correctness(task, *candidate, ctx, job.quick_correctness);
    out.send({{"type", "correctness_done"}, {"passed", correct}});
  }
  if (job.run_timing && correct) {
    const auto phase = ctx.phases.span("timing");
    std::unique_ptr<ptxb::Implementation> self_baseline;
    if (job.baseline == "self")
      self_baseline = std::make_unique<ptxb::SharedObjectImplementation>(job.shared_object);
    ptxb::run_timing(task, *candidate, self_baseline ? *self_baseline : *library_baseline, job,
                     ctx);
  }
  if (counters) {
    const auto collecting = ctx.phases.span("counters");
    ptxb::send_counters(task, *counters, out);
  }
  out.send({{"type", "phases"}, {"seconds", ctx.phases.to_json()}});
  out.send({{"type", "done"}});
  return exit_code(WorkerExit::kOk);
}

// The channel for messages: the job's result_file when it names one, else fd 3. -1 on failure.
int result_fd(const ptxb::WorkerJob& job) {
  if (job.result_file.empty())
    return fcntl(ptxb::kWorkerResultFd, F_GETFD) < 0 ? -1 : ptxb::kWorkerResultFd;
  return open(job.result_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: ptxbench-worker JOB.json (messages on fd 3 or the job's result_file)\n";
    return exit_code(WorkerExit::kHarnessError);
  }
  ptxb::WorkerJob job;
  std::string job_error;
  try {
    job = ptxb::worker_job_from_json(json::parse(ptxb::read_file(argv[1])));
    // The job holds the message key: gone from the file system before candidate code runs.
    if (!job.message_key.empty()) ::unlink(argv[1]);
  } catch (const std::exception& e) {
    job_error = e.what();
  }
  const int fd = result_fd(job);
  if (fd < 0) {
    std::cerr << "ptxbench-worker: no result channel (fd 3 closed or result_file unwritable)\n";
    return exit_code(WorkerExit::kHarnessError);
  }
  const ptxb::ResultChannel out(fd, job.message_key);
  try {
    out.send({{"type", "hello"}, {"protocol", ptxb::kWorkerProtocolVersion}});
    if (!job_error.empty()) throw ptxb::InputError(job_error);
    return run_job(job, out);
  } catch (const ptxb::CandidateFault& e) {
    out.send({{"type", "candidate_fault"}, {"message", e.what()}});
    return exit_code(WorkerExit::kCandidateFault);
  } catch (const ptxb::ApiError& e) {
    if (!candidate_code_ran) {
      out.send({{"type", "harness_error"}, {"message", e.what()}});
      return exit_code(WorkerExit::kHarnessError);
    }
    out.send({{"type", "candidate_fault"},
              {"message", std::string("a CUDA call of PTXBench failed after candidate code ran: ") +
                              e.what()}});
    return exit_code(WorkerExit::kCandidateFault);
  } catch (const std::exception& e) {
    out.send({{"type", "harness_error"}, {"message", e.what()}});
    return exit_code(WorkerExit::kHarnessError);
  }
}
