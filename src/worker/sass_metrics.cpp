#include "worker/sass_metrics.hpp"

#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>
#include <cupti_version.h>

#include <cstring>

#include "core/error.hpp"
#include "worker/cupti_library.hpp"

namespace ptxb {
namespace {

// The CUPTI entry points used here, looked up once in the shared libcupti.
struct SassApi {
  decltype(&cuptiGetVersion) version = nullptr;
  decltype(&cuptiProfilerInitialize) initialize = nullptr;
  decltype(&cuptiDeviceGetChipName) chip_name = nullptr;
  decltype(&cuptiSassMetricsGetProperties) properties = nullptr;
  decltype(&cuptiSassMetricsSetConfig) set_config = nullptr;
  decltype(&cuptiSassMetricsEnable) enable = nullptr;
  decltype(&cuptiSassMetricsDisable) disable = nullptr;
  decltype(&cuptiSassMetricsGetDataProperties) data_properties = nullptr;
  decltype(&cuptiSassMetricsFlushData) flush = nullptr;
};

const SassApi* sass_api(std::string* why_not) {
  static const std::pair<const SassApi*, std::string> loaded = [] {
    auto* api = new SassApi;  // NOTE: lives as long as the process, like the library
    std::string why;
    const bool ok = bind_cupti("cuptiGetVersion", &api->version, &why) &&
                    bind_cupti("cuptiProfilerInitialize", &api->initialize, &why) &&
                    bind_cupti("cuptiDeviceGetChipName", &api->chip_name, &why) &&
                    bind_cupti("cuptiSassMetricsGetProperties", &api->properties, &why) &&
                    bind_cupti("cuptiSassMetricsSetConfig", &api->set_config, &why) &&
                    bind_cupti("cuptiSassMetricsEnable", &api->enable, &why) &&
                    bind_cupti("cuptiSassMetricsDisable", &api->disable, &why) &&
                    bind_cupti("cuptiSassMetricsGetDataProperties", &api->data_properties, &why) &&
                    bind_cupti("cuptiSassMetricsFlushData", &api->flush, &why);
    if (!ok) return std::pair<const SassApi*, std::string>{nullptr, why};
    return std::pair<const SassApi*, std::string>{api, ""};
  }();
  if (loaded.first == nullptr && why_not != nullptr) *why_not = loaded.second;
  return loaded.first;
}

constexpr const char* kWarpMetric = "smsp__sass_inst_executed";
constexpr const char* kThreadMetric = "smsp__sass_thread_inst_executed_pred_on";

}  // namespace

struct SassMetrics::Impl {
  const SassApi* api = nullptr;
  CUcontext context = nullptr;
  uint64_t warp_id = 0, thread_id = 0;
  bool open = false;
};

std::unique_ptr<SassMetrics> SassMetrics::create(CUcontext context, int device,
                                                 std::string* why_not) {
  std::string why;
  const SassApi* api = sass_api(&why);
  auto fail = [&](std::string text) {
    if (why_not != nullptr) *why_not = std::move(text);
    return nullptr;
  };
  if (api == nullptr) return fail(why);
  uint32_t version = 0;
  if (api->version(&version) != CUPTI_SUCCESS) return fail("cuptiGetVersion failed");
  if (version < kSassMetricsMinCuptiVersion)
    return fail("CUPTI API version " + std::to_string(version) + " reports SASS metrics of " +
                "the first patched function only; " + std::to_string(kSassMetricsMinCuptiVersion) +
                " or later is needed");
  auto init =
      cupti_params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  if (const CUptiResult r = api->initialize(&init); r != CUPTI_SUCCESS)
    return fail("cuptiProfilerInitialize: " + cupti_result_text(r));
  auto chip =
      cupti_params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = static_cast<size_t>(device);
  if (const CUptiResult r = api->chip_name(&chip); r != CUPTI_SUCCESS)
    return fail("cuptiDeviceGetChipName: " + cupti_result_text(r));

  auto out = std::unique_ptr<SassMetrics>(new SassMetrics);
  out->cupti_version_ = version;
  out->impl_ = std::make_unique<Impl>();
  Impl& impl = *out->impl_;
  impl.api = api;
  impl.context = context;
  std::vector<CUpti_SassMetrics_Config> configs;
  for (const char* name : {kWarpMetric, kThreadMetric}) {
    auto prop = cupti_params<CUpti_SassMetrics_GetProperties_Params>(
        CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE);
    prop.pChipName = chip.pChipName;
    prop.pMetricName = name;
    if (const CUptiResult r = api->properties(&prop); r != CUPTI_SUCCESS)
      return fail(std::string("cuptiSassMetricsGetProperties(") + name +
                  "): " + cupti_result_text(r));
    (std::strcmp(name, kWarpMetric) == 0 ? impl.warp_id : impl.thread_id) = prop.metric.metricId;
    configs.push_back({prop.metric.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
  }
  auto set = cupti_params<CUpti_SassMetricsSetConfig_Params>(
      CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE);
  set.numOfMetricConfig = configs.size();
  set.pConfigs = configs.data();
  set.deviceIndex = static_cast<uint32_t>(device);
  if (const CUptiResult r = api->set_config(&set); r != CUPTI_SUCCESS)
    return fail("cuptiSassMetricsSetConfig: " + cupti_result_text(r) +
                " (a second configuration in a process fails)");
  return out;
}

SassMetrics::~SassMetrics() {
  if (impl_ == nullptr || !impl_->open) return;
  auto dis =
      cupti_params<CUpti_SassMetricsDisable_Params>(CUpti_SassMetricsDisable_Params_STRUCT_SIZE);
  dis.ctx = impl_->context;
  impl_->api->disable(&dis);
}

void SassMetrics::begin() {
  PTXB_ASSERT(!impl_->open, "SassMetrics::begin while a collection is open");
  auto en =
      cupti_params<CUpti_SassMetricsEnable_Params>(CUpti_SassMetricsEnable_Params_STRUCT_SIZE);
  en.ctx = impl_->context;
  en.enableLazyPatching = 1;
  PTXB_CHECK_CUPTI(impl_->api->enable(&en));
  impl_->open = true;
}

std::vector<PcRecord> SassMetrics::end() {
  PTXB_ASSERT(impl_->open, "SassMetrics::end without a collection");
  const SassApi& api = *impl_->api;
  auto props = cupti_params<CUpti_SassMetricsGetDataProperties_Params>(
      CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE);
  props.ctx = impl_->context;
  PTXB_CHECK_CUPTI(api.data_properties(&props));
  std::vector<PcRecord> out;
  if (props.numOfPatchedInstructionRecords > 0) {
    const size_t per_record = props.numOfInstances * 2;  // two metrics
    std::vector<CUpti_SassMetrics_Data> data(props.numOfPatchedInstructionRecords);
    std::vector<CUpti_SassMetrics_InstanceValue> values(data.size() * per_record);
    for (size_t i = 0; i < data.size(); ++i) {
      data[i].structSize = sizeof(CUpti_SassMetrics_Data);
      data[i].pInstanceValues = &values[i * per_record];
    }
    auto flush = cupti_params<CUpti_SassMetricsFlushData_Params>(
        CUpti_SassMetricsFlushData_Params_STRUCT_SIZE);
    flush.ctx = impl_->context;
    flush.numOfPatchedInstructionRecords = props.numOfPatchedInstructionRecords;
    flush.numOfInstances = props.numOfInstances;
    flush.pMetricsData = data.data();
    PTXB_CHECK_CUPTI(api.flush(&flush));
    for (const CUpti_SassMetrics_Data& d : data) {
      PcRecord r{d.functionName != nullptr ? d.functionName : "", d.pcOffset};
      for (size_t k = 0; k < per_record; ++k) {
        const CUpti_SassMetrics_InstanceValue& v = d.pInstanceValues[k];
        if (v.metricId == impl_->warp_id) r.warps += static_cast<int64_t>(v.value);
        if (v.metricId == impl_->thread_id) r.threads += static_cast<int64_t>(v.value);
      }
      // NOTE: CUPTI 13.0 returned each metric in a record of its own; either count keeps it.
      if (r.warps > 0 || r.threads > 0) out.push_back(std::move(r));
    }
  }
  auto dis =
      cupti_params<CUpti_SassMetricsDisable_Params>(CUpti_SassMetricsDisable_Params_STRUCT_SIZE);
  dis.ctx = impl_->context;
  impl_->open = false;
  PTXB_CHECK_CUPTI(api.disable(&dis));
  if (dis.numOfDroppedRecords != 0)
    throw_api("CUPTI", "cuptiSassMetricsDisable", 0,
              std::to_string(dis.numOfDroppedRecords) + " records dropped",
              "the collection's counts are incomplete", __FILE__, __LINE__);
  return out;
}

}  // namespace ptxb
