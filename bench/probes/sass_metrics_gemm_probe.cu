// Do CUPTI's SASS metrics, collected inside the process, count what Nsight Compute's per-opcode
// metric counts for a real submission? Loads a GEMM submission built as a shared object (the ABI
// of include/ptxbench/abi.h), runs one C = A * B^T bf16 call at M N K uncollected (warm-up),
// then CALLS calls each in an enable/flush/disable range of smsp__sass_inst_executed and
// smsp__sass_thread_inst_executed_pred_on (lazy patching, GPU granularity), and writes every
// record of the last collected call to RECORDS (function, PC offset, warp and thread counts, tab
// separated). Prints host seconds per call and per-function warp totals. `plain` instead of
// RECORDS: the calls without CUPTI, for Nsight Compute to profile the same work
// (bench/probes/sass_metrics_gemm_probe.sh runs both and compares them by opcode).
// Usage: sass_metrics_gemm_probe KERNEL.so M N K RECORDS|plain [CALLS=3]
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_sass_metrics.h>
#include <cupti_version.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "../gemm_dev/probe_common.hpp"
#include "probe_clock.hpp"
#include "sass_metrics_common.hpp"

namespace {

SassMetricIds g_ids;  // set by configure()

// Sets the two SASS metrics for device 0 (once per process: a second configuration fails).
void configure() {
  const char* chip = profiler_chip();
  uint32_t api_version = 0;
  CUPTI_OK(cuptiGetVersion(&api_version));
  std::fprintf(stderr, "chip %s, CUPTI API version %u\n", chip, api_version);
  // NOTE: kept alive, as sass_metrics_probe.cu keeps its own: whether CUPTI copies the array is
  // not documented.
  static std::vector<CUpti_SassMetrics_Config> configs = sass_metric_configs(chip, &g_ids);
  CUpti_SassMetricsSetConfig_Params set{CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
  set.numOfMetricConfig = configs.size();
  set.pConfigs = configs.data();
  set.deviceIndex = 0;
  CUPTI_OK(cuptiSassMetricsSetConfig(&set));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s KERNEL.so M N K RECORDS|plain [CALLS]\n", argv[0]);
    return 2;
  }
  const int64_t M = std::atoll(argv[2]), N = std::atoll(argv[3]), K = std::atoll(argv[4]);
  const bool plain = std::strcmp(argv[5], "plain") == 0;
  const int calls = argc > 6 ? std::atoi(argv[6]) : 3;
  const Submission sub = load_submission(argv[1]);
  const GemmCall call(sub, M, N, K);
  auto run = [&] {
    const double begin = seconds();
    CHECK(sub.run(&call.args));
    CHECK(cudaStreamSynchronize(call.stream));
    return seconds() - begin;
  };
  std::fprintf(stderr, "uncollected call %.4f s\n", run());
  if (plain) {
    for (int i = 0; i < calls; ++i) std::fprintf(stderr, "plain call %.4f s\n", run());
    return 0;
  }
  CUcontext ctx = nullptr;
  cuCtxGetCurrent(&ctx);
  double begin = seconds();
  configure();
  std::fprintf(stderr, "configured in %.3f s\n", seconds() - begin);
  std::vector<Record> records;
  for (int i = 0; i < calls; ++i) {
    begin = seconds();
    CUpti_SassMetricsEnable_Params en{CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
    en.ctx = ctx;
    en.enableLazyPatching = 1;
    CUPTI_OK(cuptiSassMetricsEnable(&en));
    const double ran = run();
    records = flush_records(ctx, g_ids);
    CUpti_SassMetricsDisable_Params dis{CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
    dis.ctx = ctx;
    CUPTI_OK(cuptiSassMetricsDisable(&dis));
    std::map<std::string, uint64_t> per_function;
    for (const Record& r : records) per_function[r.function] += r.executed;
    std::fprintf(stderr, "collected call %d: %.4f s (the call %.4f), %zu records, dropped %zu\n", i,
                 seconds() - begin, ran, records.size(), dis.numOfDroppedRecords);
    for (const auto& [name, n] : per_function)
      std::fprintf(stderr, "  %s: inst_executed %llu\n", name.c_str(),
                   static_cast<unsigned long long>(n));
  }
  std::fprintf(stderr, "uncollected call after %.4f s\n", run());
  FILE* f = std::fopen(argv[5], "w");
  if (f == nullptr) return 1;
  for (const Record& r : records)
    std::fprintf(f, "%s\t%u\t%llu\t%llu\n", r.function.c_str(), r.pc,
                 static_cast<unsigned long long>(r.executed),
                 static_cast<unsigned long long>(r.threads));
  std::fclose(f);
  return 0;
}
