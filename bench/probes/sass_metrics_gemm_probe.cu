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
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>
#include <cupti_version.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "../gemm_dev/probe_common.hpp"

namespace {

#define CUPTI_OK(call)                                                                   \
  do {                                                                                   \
    if (CUptiResult r_ = (call); r_ != CUPTI_SUCCESS) {                                  \
      const char* s_ = nullptr;                                                          \
      cuptiGetResultString(r_, &s_);                                                     \
      std::fprintf(stderr, "%s failed: %d %s (line %d)\n", #call, int(r_), s_ ? s_ : "", \
                   __LINE__);                                                            \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

double seconds() {
  static const auto start = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Record {
  std::string function;
  uint32_t pc;
  uint64_t executed = 0, threads = 0;
};

uint64_t g_executed_id = 0, g_threads_id = 0;

// The records collected on `ctx` since the last flush.
std::vector<Record> flush(CUcontext ctx) {
  CUpti_SassMetricsGetDataProperties_Params props{
      CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
  props.ctx = ctx;
  CUPTI_OK(cuptiSassMetricsGetDataProperties(&props));
  std::vector<Record> out;
  if (props.numOfPatchedInstructionRecords == 0) return out;
  std::vector<CUpti_SassMetrics_Data> data(props.numOfPatchedInstructionRecords);
  std::vector<CUpti_SassMetrics_InstanceValue> values(props.numOfPatchedInstructionRecords *
                                                      props.numOfInstances * 2);
  for (size_t i = 0; i < data.size(); ++i) {
    data[i].structSize = sizeof(CUpti_SassMetrics_Data);
    data[i].pInstanceValues = &values[i * props.numOfInstances * 2];
  }
  CUpti_SassMetricsFlushData_Params fl{CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
  fl.ctx = ctx;
  fl.numOfPatchedInstructionRecords = props.numOfPatchedInstructionRecords;
  fl.numOfInstances = props.numOfInstances;
  fl.pMetricsData = data.data();
  CUPTI_OK(cuptiSassMetricsFlushData(&fl));
  for (const CUpti_SassMetrics_Data& d : data) {
    Record r{d.functionName ? d.functionName : "?", d.pcOffset};
    for (size_t k = 0; k < props.numOfInstances * 2; ++k) {
      const CUpti_SassMetrics_InstanceValue& v = d.pInstanceValues[k];
      if (v.metricId == g_executed_id) r.executed += v.value;
      if (v.metricId == g_threads_id) r.threads += v.value;
    }
    out.push_back(r);
  }
  return out;
}

// Sets the two SASS metrics for device 0 (once per process: a second configuration fails).
void configure() {
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CUPTI_OK(cuptiProfilerInitialize(&init));
  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = 0;
  CUPTI_OK(cuptiDeviceGetChipName(&chip));
  uint32_t api_version = 0;
  CUPTI_OK(cuptiGetVersion(&api_version));
  std::fprintf(stderr, "chip %s, CUPTI API version %u\n", chip.pChipName, api_version);
  std::vector<CUpti_SassMetrics_Config> configs;
  for (const char* name : {"smsp__sass_inst_executed", "smsp__sass_thread_inst_executed_pred_on"}) {
    CUpti_SassMetrics_GetProperties_Params prop{CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
    prop.pChipName = chip.pChipName;
    prop.pMetricName = name;
    CUPTI_OK(cuptiSassMetricsGetProperties(&prop));
    (std::strcmp(name, "smsp__sass_inst_executed") == 0 ? g_executed_id : g_threads_id) =
        prop.metric.metricId;
    configs.push_back({prop.metric.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
  }
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
  void* a = random_bf16(M * K, 1);
  void* b = random_bf16(N * K, 2);
  void* c = nullptr;
  CHECK(cudaMalloc(&c, M * N * 2));
  const ptxb_tensor_desc inputs[2] = {row_major(M, K), row_major(N, K)};
  const ptxb_tensor_desc outputs[1] = {row_major(M, N)};
  const ptxb_problem problem{PTXB_ABI_VERSION, 2, 1, 0, inputs, outputs, nullptr};
  const Workspace workspace = plan_workspace(sub, problem);
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  const void* in_ptrs[2] = {a, b};
  void* out_ptrs[1] = {c};
  const ptxb_args args{&problem, in_ptrs, out_ptrs, workspace.data, workspace.bytes, stream};
  auto run = [&] {
    const double begin = seconds();
    CHECK(sub.run(&args));
    CHECK(cudaStreamSynchronize(stream));
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
    records = flush(ctx);
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
