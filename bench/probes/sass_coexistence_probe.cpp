// Probe: can one process hold what the timing worker holds (the CUPTI monitor, the range profiler
// with the catalog's counters) and also collect CUPTI SASS metrics (worker/sass_metrics.hpp), and
// does code run and count as before once a collection has ended? Needs a CUPTI of API 13.2 or
// later first on LD_LIBRARY_PATH. For each shape of the TMA GEMM task: the expert's call timed
// (events, median of 7) and counted by the range profiler before any collection; one collection
// of a call (records summed by function, host seconds); the call timed and counted again after
// it; a second collection. Then collections with the range profiler disabled, and with the
// monitor gone too. Prints one line per step; "same" lines compare the counters.
// Usage: ptxbench-sass-coexistence-probe TASKS_DIR EXPERT.so MxNxK...
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "tasks/catalog.hpp"
#include "tasks/spec.hpp"
#include "worker/cupti_library.hpp"
#include "worker/monitor.hpp"
#include "worker/problem.hpp"
#include "worker/range_profiler.hpp"
#include "worker/sass_metrics.hpp"
#include "worker/shared_object.hpp"
#include "worker/stage_helpers.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Median device milliseconds of `calls` calls, each alone between two events.
template <typename Call>
double median_ms(cudaStream_t s, int calls, Call&& call) {
  std::vector<float> ms;
  cudaEvent_t a, b;
  PTXB_CHECK_CUDA(cudaEventCreate(&a));
  PTXB_CHECK_CUDA(cudaEventCreate(&b));
  for (int i = 0; i < calls; ++i) {
    PTXB_CHECK_CUDA(cudaEventRecord(a, s));
    call();
    PTXB_CHECK_CUDA(cudaEventRecord(b, s));
    PTXB_CHECK_CUDA(cudaEventSynchronize(b));
    float t = 0;
    PTXB_CHECK_CUDA(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// The counters of one call in a range of its own.
template <typename Call>
std::vector<double> counted(ptxb::RangeProfiler& rp, cudaStream_t s, Call&& call) {
  rp.start();
  rp.push("call");
  call();
  PTXB_CHECK_CUDA(cudaStreamSynchronize(s));
  rp.pop();
  rp.stop();
  std::vector<std::vector<double>> values = rp.decode();
  rp.reset();
  return values.empty() ? std::vector<double>() : values.front();
}

void print_counters(const char* when, const ptxb::RangeProfiler& rp, const std::vector<double>& v) {
  std::printf("  counters %s:", when);
  for (size_t i = 0; i < v.size() && i < rp.metrics().size(); ++i)
    std::printf(" %s=%.0f", rp.metrics()[i].c_str(), v[i]);
  std::printf("\n");
}

// One collection of one call: host seconds, records and warp executions per function.
template <typename Call>
void collect(ptxb::SassMetrics& sass, cudaStream_t s, const char* what, Call&& call) {
  const auto t0 = Clock::now();
  sass.begin();
  call();
  PTXB_CHECK_CUDA(cudaStreamSynchronize(s));
  const std::vector<ptxb::PcRecord> records = sass.end();
  std::map<std::string, int64_t> warps;
  for (const ptxb::PcRecord& r : records) warps[r.function] += r.warps;
  std::printf("  collection %s: %.4f s, %zu records\n", what, seconds_since(t0), records.size());
  for (const auto& [fn, n] : warps)
    std::printf("    %s: %lld warp instructions\n", fn.c_str(), static_cast<long long>(n));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s TASKS_DIR EXPERT.so MxNxK...\n", argv[0]);
    return 2;
  }
  PTXB_CHECK_CUDA(cudaSetDevice(0));
  PTXB_CHECK_CUDA(cudaFree(nullptr));
  std::string why;
  auto monitor = ptxb::CandidateMonitor::create(&why);
  std::printf("monitor: %s %s\n", monitor ? "subscribed" : "NOT available", why.c_str());
  const ptxb::Catalog catalog = ptxb::load_catalog(std::string(argv[1]) + "/catalog");
  const ptxb::TaskSpec task =
      ptxb::load_task(std::string(argv[1]) + "/sm90/gemm/bf16-wgmma-tma/task.toml", catalog);
  std::vector<std::string> metrics;
  for (const ptxb::CounterSpec& c : catalog.counters_for(task.arch)) metrics.push_back(c.metric);
  auto rp = ptxb::RangeProfiler::create(ptxb::current_cuda_context(), 0, metrics, 4, &why);
  std::printf("range profiler: %s %s\n", rp ? "enabled" : "NOT available", why.c_str());
  const auto t0 = Clock::now();
  auto sass = ptxb::SassMetrics::create(ptxb::current_cuda_context(), 0, &why);
  std::printf("sass metrics (range profiler enabled): %s %s, CUPTI %u, %.3f s\n",
              sass ? "configured" : "NOT available", why.c_str(), sass ? sass->cupti_version() : 0u,
              seconds_since(t0));
  if (!sass || !rp) return 1;
  ptxb::SharedObjectImplementation expert(argv[2]);
  ptxb::Stream stream;
  const cudaStream_t s = stream.get();
  for (int a = 3; a < argc; ++a) {
    int m = 0, n = 0, k = 0;
    if (std::sscanf(argv[a], "%dx%dx%d", &m, &n, &k) != 3) return 2;
    ptxb::DeviceProblem problem(task, ptxb::Shape{{{"M", m}, {"N", n}, {"K", k}}});
    problem.generate_inputs(task.correctness.distributions.front(), 1, s);
    ptxb::Planned plan = ptxb::plan_for(expert, problem, s);
    const ptxb_args args = problem.args(plan.workspace.data(), plan.workspace.bytes(), s);
    auto call = [&] {
      if (expert.run(args) != 0) std::printf("  the call returned non-zero\n");
    };
    std::printf("shape %s\n", argv[a]);
    median_ms(s, 3, call);  // warm
    std::printf("  before: %.4f ms\n", median_ms(s, 7, call));
    const std::vector<double> before = counted(*rp, s, call);
    print_counters("before", *rp, before);
    collect(*sass, s, "1", call);
    std::printf("  after: %.4f ms\n", median_ms(s, 7, call));
    const std::vector<double> after = counted(*rp, s, call);
    print_counters("after", *rp, after);
    std::printf("  counters %s\n", before == after ? "same" : "DIFFER");
    collect(*sass, s, "2", call);
    std::printf("  after 2: %.4f ms\n", median_ms(s, 7, call));
  }
  // Which of the two keeps the collections empty: the range profiler disabled first, then the
  // monitor gone, each followed by a collection of the first shape's call.
  int m = 0, n = 0, k = 0;
  std::sscanf(argv[3], "%dx%dx%d", &m, &n, &k);
  ptxb::DeviceProblem problem(task, ptxb::Shape{{{"M", m}, {"N", n}, {"K", k}}});
  problem.generate_inputs(task.correctness.distributions.front(), 1, s);
  ptxb::Planned plan = ptxb::plan_for(expert, problem, s);
  const ptxb_args args = problem.args(plan.workspace.data(), plan.workspace.bytes(), s);
  auto call = [&] { expert.run(args); };
  rp.reset();
  collect(*sass, s, "with the range profiler disabled", call);
  monitor.reset();
  collect(*sass, s, "with the monitor gone too", call);
  return 0;
}
