// ptxbench-worker: the child process that loads candidate code. Usage: ptxbench-worker JOB.json
// Results go to fd 3 as protocol messages (worker/protocol.hpp); stdout and stderr belong to
// the candidate and are never parsed.
#include <fcntl.h>

#include <iostream>
#include <memory>

#include "baselines/cublaslt_gemm.hpp"
#include "core/error.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "sys/files.hpp"
#include "worker/gpu_environment.hpp"
#include "worker/gpu_shared_object.hpp"
#include "worker/gpu_stages.hpp"

namespace {

using nlohmann::json;
using ptxb::WorkerExit;

int exit_code(WorkerExit e) { return static_cast<int>(e); }

int run_job(const ptxb::WorkerJob& job, const ptxb::ResultChannel& out) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices <= job.device) {
    out.send({{"type", "no_gpu"}, {"message", "no CUDA device is available to this process"}});
    return exit_code(WorkerExit::kNoGpu);
  }
  PTXB_CHECK_CUDA(cudaSetDevice(job.device));
  out.send({{"type", "environment"}, {"device", ptxb::device_environment(job.device)}});

  const ptxb::Catalog catalog = ptxb::load_catalog(job.catalog_dir);
  const ptxb::TaskSpec task = ptxb::load_task(job.task_toml, catalog);
  ptxb::Stream stream;

  std::unique_ptr<ptxb::SharedObjectImplementation> candidate;
  try {
    candidate = std::make_unique<ptxb::SharedObjectImplementation>(job.shared_object);
  } catch (const ptxb::InputError& e) {
    out.send({{"type", "load_error"}, {"message", e.what()}});
    return exit_code(WorkerExit::kOk);
  }

  bool correct = true;
  if (job.run_correctness) {
    correct = ptxb::run_correctness(task, *candidate, out, stream.get());
    out.send({{"type", "correctness_done"}, {"passed", correct}});
  }
  if (job.run_timing && correct) {
    std::unique_ptr<ptxb::Implementation> baseline;
    if (job.baseline == "self") {
      baseline = std::make_unique<ptxb::SharedObjectImplementation>(job.shared_object);
    } else {
      PTXB_ASSERT(task.baseline.library == "cublaslt", "no baseline " + task.baseline.library);
      baseline = std::make_unique<ptxb::CublasLtGemm>(task.baseline.heuristic_algos,
                                                      task.baseline.workspace_bytes);
    }
    ptxb::run_timing(task, *candidate, *baseline, job, out, stream.get());
  }
  out.send({{"type", "done"}});
  return exit_code(WorkerExit::kOk);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || fcntl(ptxb::kWorkerResultFd, F_GETFD) < 0) {
    std::cerr << "usage: ptxbench-worker JOB.json (with the result pipe on fd 3)\n";
    return exit_code(WorkerExit::kHarnessError);
  }
  const ptxb::ResultChannel out(ptxb::kWorkerResultFd);
  try {
    out.send({{"type", "hello"}, {"protocol", ptxb::kWorkerProtocolVersion}});
    const ptxb::WorkerJob job = ptxb::worker_job_from_json(json::parse(ptxb::read_file(argv[1])));
    return run_job(job, out);
  } catch (const ptxb::CandidateFault& e) {
    out.send({{"type", "candidate_fault"}, {"message", e.what()}});
    return exit_code(WorkerExit::kCandidateFault);
  } catch (const std::exception& e) {
    out.send({{"type", "harness_error"}, {"message", e.what()}});
    return exit_code(WorkerExit::kHarnessError);
  }
}
