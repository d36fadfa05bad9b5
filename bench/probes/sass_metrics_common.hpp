// What the SASS-metrics probes (sass_metrics_probe.cu, sass_metrics_gemm_probe.cu) share: an exit
// on a failing CUPTI call, the profiler's chip name, the configuration of the two per-instruction
// metrics (warp executions, thread executions with all predicates true; GPU granularity) and the
// records one flush returns.
#pragma once

#include <cuda.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

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

// One instruction's counts in a flush: function (mangled), PC offset, warps, threads.
struct Record {
  std::string function;
  uint32_t pc;
  uint64_t executed = 0, threads = 0;
};

// The metric IDs of smsp__sass_inst_executed and smsp__sass_thread_inst_executed_pred_on.
struct SassMetricIds {
  uint64_t executed = 0, threads = 0;
};

// Initializes CUPTI's profiler and names device 0's chip.
inline const char* profiler_chip() {
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CUPTI_OK(cuptiProfilerInitialize(&init));
  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = 0;
  CUPTI_OK(cuptiDeviceGetChipName(&chip));
  return chip.pChipName;
}

// The configurations of the two metrics on `chip`; their IDs into *ids.
inline std::vector<CUpti_SassMetrics_Config> sass_metric_configs(const char* chip,
                                                                 SassMetricIds* ids) {
  std::vector<CUpti_SassMetrics_Config> configs;
  for (const char* name : {"smsp__sass_inst_executed", "smsp__sass_thread_inst_executed_pred_on"}) {
    CUpti_SassMetrics_GetProperties_Params prop{CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
    prop.pChipName = chip;
    prop.pMetricName = name;
    CUPTI_OK(cuptiSassMetricsGetProperties(&prop));
    (std::strcmp(name, "smsp__sass_inst_executed") == 0 ? ids->executed : ids->threads) =
        prop.metric.metricId;
    configs.push_back({prop.metric.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
  }
  return configs;
}

// The records collected on `ctx` since the last flush, both metrics summed into each.
inline std::vector<Record> flush_records(CUcontext ctx, const SassMetricIds& ids) {
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
      if (v.metricId == ids.executed) r.executed += v.value;
      if (v.metricId == ids.threads) r.threads += v.value;
    }
    out.push_back(r);
  }
  return out;
}
