#include "worker/range_profiler.hpp"

#include <chrono>

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "core/error.hpp"
#include "worker/cupti_library.hpp"

namespace ptxb {
namespace {

// The CUPTI entry points used here, looked up once in the shared libcupti.
struct ProfilerApi {
  decltype(&cuptiProfilerInitialize) initialize = nullptr;
  decltype(&cuptiDeviceGetChipName) chip_name = nullptr;
  decltype(&cuptiProfilerGetCounterAvailability) availability = nullptr;
  decltype(&cuptiProfilerHostInitialize) host_initialize = nullptr;
  decltype(&cuptiProfilerHostDeinitialize) host_deinitialize = nullptr;
  decltype(&cuptiProfilerHostConfigAddMetrics) host_add_metrics = nullptr;
  decltype(&cuptiProfilerHostGetConfigImageSize) host_config_size = nullptr;
  decltype(&cuptiProfilerHostGetConfigImage) host_config_image = nullptr;
  decltype(&cuptiProfilerHostGetNumOfPasses) host_passes = nullptr;
  decltype(&cuptiProfilerHostEvaluateToGpuValues) host_evaluate = nullptr;
  decltype(&cuptiProfilerHostGetBaseMetrics) host_base_metrics = nullptr;
  decltype(&cuptiRangeProfilerEnable) enable = nullptr;
  decltype(&cuptiRangeProfilerDisable) disable = nullptr;
  decltype(&cuptiRangeProfilerGetCounterDataSize) counter_data_size = nullptr;
  decltype(&cuptiRangeProfilerCounterDataImageInitialize) counter_data_init = nullptr;
  decltype(&cuptiRangeProfilerSetConfig) set_config = nullptr;
  decltype(&cuptiRangeProfilerStart) start = nullptr;
  decltype(&cuptiRangeProfilerStop) stop = nullptr;
  decltype(&cuptiRangeProfilerPushRange) push = nullptr;
  decltype(&cuptiRangeProfilerPopRange) pop = nullptr;
  decltype(&cuptiRangeProfilerDecodeData) decode = nullptr;
  decltype(&cuptiRangeProfilerGetCounterDataInfo) data_info = nullptr;
  decltype(&cuptiRangeProfilerCounterDataGetRangeInfo) range_info = nullptr;
};

/// The entry points, or nullptr with the reason (computed once).
const ProfilerApi* profiler_api(std::string* why_not) {
  static const std::pair<const ProfilerApi*, std::string> loaded = [] {
    auto* api = new ProfilerApi;  // NOTE: lives as long as the process, like the library
    std::string why;
    const bool ok =
        bind_cupti("cuptiProfilerInitialize", &api->initialize, &why) &&
        bind_cupti("cuptiDeviceGetChipName", &api->chip_name, &why) &&
        bind_cupti("cuptiProfilerGetCounterAvailability", &api->availability, &why) &&
        bind_cupti("cuptiProfilerHostInitialize", &api->host_initialize, &why) &&
        bind_cupti("cuptiProfilerHostDeinitialize", &api->host_deinitialize, &why) &&
        bind_cupti("cuptiProfilerHostConfigAddMetrics", &api->host_add_metrics, &why) &&
        bind_cupti("cuptiProfilerHostGetConfigImageSize", &api->host_config_size, &why) &&
        bind_cupti("cuptiProfilerHostGetConfigImage", &api->host_config_image, &why) &&
        bind_cupti("cuptiProfilerHostGetNumOfPasses", &api->host_passes, &why) &&
        bind_cupti("cuptiProfilerHostEvaluateToGpuValues", &api->host_evaluate, &why) &&
        bind_cupti("cuptiProfilerHostGetBaseMetrics", &api->host_base_metrics, &why) &&
        bind_cupti("cuptiRangeProfilerEnable", &api->enable, &why) &&
        bind_cupti("cuptiRangeProfilerDisable", &api->disable, &why) &&
        bind_cupti("cuptiRangeProfilerGetCounterDataSize", &api->counter_data_size, &why) &&
        bind_cupti("cuptiRangeProfilerCounterDataImageInitialize", &api->counter_data_init, &why) &&
        bind_cupti("cuptiRangeProfilerSetConfig", &api->set_config, &why) &&
        bind_cupti("cuptiRangeProfilerStart", &api->start, &why) &&
        bind_cupti("cuptiRangeProfilerStop", &api->stop, &why) &&
        bind_cupti("cuptiRangeProfilerPushRange", &api->push, &why) &&
        bind_cupti("cuptiRangeProfilerPopRange", &api->pop, &why) &&
        bind_cupti("cuptiRangeProfilerDecodeData", &api->decode, &why) &&
        bind_cupti("cuptiRangeProfilerGetCounterDataInfo", &api->data_info, &why) &&
        bind_cupti("cuptiRangeProfilerCounterDataGetRangeInfo", &api->range_info, &why);
    if (!ok) return std::pair<const ProfilerApi*, std::string>{nullptr, why};
    return std::pair<const ProfilerApi*, std::string>{api, ""};
  }();
  if (loaded.first == nullptr && why_not != nullptr) *why_not = loaded.second;
  return loaded.first;
}

std::vector<const char*> c_names(const std::vector<std::string>& names) {
  std::vector<const char*> out;
  for (const std::string& n : names) out.push_back(n.c_str());
  return out;
}

// A host object of the profiler host API for one chip; deinitialized on destruction.
class HostObject {
 public:
  HostObject(const ProfilerApi& api, const std::string& chip, const uint8_t* availability)
      : api_(api) {
    auto p = cupti_params<CUpti_Profiler_Host_Initialize_Params>(
        CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip.c_str();
    p.pCounterAvailabilityImage = availability;
    PTXB_CHECK_CUPTI(api_.host_initialize(&p));
    object_ = p.pHostObject;
  }
  ~HostObject() {
    auto p = cupti_params<CUpti_Profiler_Host_Deinitialize_Params>(
        CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    p.pHostObject = object_;
    api_.host_deinitialize(&p);
  }
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
  CUpti_Profiler_Host_Object* get() const { return object_; }

  /// The config image for `metrics`.
  std::vector<uint8_t> config_image(const std::vector<std::string>& metrics) {
    std::vector<const char*> names = c_names(metrics);
    auto add = cupti_params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = object_;
    add.ppMetricNames = names.data();
    add.numMetrics = names.size();
    PTXB_CHECK_CUPTI(api_.host_add_metrics(&add));
    auto size = cupti_params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    size.pHostObject = object_;
    PTXB_CHECK_CUPTI(api_.host_config_size(&size));
    std::vector<uint8_t> image(size.configImageSize);
    auto get = cupti_params<CUpti_Profiler_Host_GetConfigImage_Params>(
        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    get.pHostObject = object_;
    get.configImageSize = image.size();
    get.pConfigImage = image.data();
    PTXB_CHECK_CUPTI(api_.host_config_image(&get));
    return image;
  }

  size_t passes(std::vector<uint8_t>& config) const {
    auto p = cupti_params<CUpti_Profiler_Host_GetNumOfPasses_Params>(
        CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
    p.configImageSize = config.size();
    p.pConfigImage = config.data();
    PTXB_CHECK_CUPTI(api_.host_passes(&p));
    return p.numOfPasses;
  }

 private:
  const ProfilerApi& api_;
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

void initialize_profiler(const ProfilerApi& api) {
  auto p =
      cupti_params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  PTXB_CHECK_CUPTI(api.initialize(&p));
}

std::string chip_name(const ProfilerApi& api, int device) {
  auto p =
      cupti_params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  p.deviceIndex = static_cast<size_t>(device);
  PTXB_CHECK_CUPTI(api.chip_name(&p));
  return p.pChipName != nullptr ? p.pChipName : "";
}

}  // namespace

struct RangeProfiler::Impl {
  const ProfilerApi* api = nullptr;
  std::vector<uint8_t> availability, config, counter_data;
  std::unique_ptr<HostObject> host;
  CUpti_RangeProfiler_Object* object = nullptr;
  size_t max_ranges = 0;
  size_t passes = 0;
  RangeMode mode = RangeMode::kUserRanges;
};

std::unique_ptr<RangeProfiler> RangeProfiler::create(CUcontext context, int device,
                                                     const std::vector<std::string>& metrics,
                                                     size_t max_ranges, std::string* why_not,
                                                     bool query_availability, RangeMode mode) {
  std::string ignored;
  std::string& why = why_not != nullptr ? *why_not : ignored;
  const ProfilerApi* api = profiler_api(&why);
  if (api == nullptr) return nullptr;
  std::unique_ptr<RangeProfiler> rp(new RangeProfiler);
  rp->impl_ = std::make_unique<Impl>();
  Impl& im = *rp->impl_;
  im.api = api;
  im.max_ranges = max_ranges;
  im.mode = mode;
  rp->metrics_ = metrics;
  auto step_start = std::chrono::steady_clock::now();
  auto step_done = [&](const char* step) {  // the seconds since the previous step, as `step`
    const auto now = std::chrono::steady_clock::now();
    rp->setup_seconds_[step] = std::chrono::duration<double>(now - step_start).count();
    step_start = now;
  };
  try {
    initialize_profiler(*api);
    rp->chip_ = chip_name(*api, device);
    step_done("initialize");
    if (query_availability) {
      auto av = cupti_params<CUpti_Profiler_GetCounterAvailability_Params>(
          CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
      av.ctx = context;
      PTXB_CHECK_CUPTI(api->availability(&av));
      im.availability.resize(av.counterAvailabilityImageSize);
      av.pCounterAvailabilityImage = im.availability.data();
      PTXB_CHECK_CUPTI(api->availability(&av));
    }
    step_done("availability");
    im.host = std::make_unique<HostObject>(*api, rp->chip_,
                                           query_availability ? im.availability.data() : nullptr);
    im.config = im.host->config_image(metrics);
    im.passes = im.host->passes(im.config);
    step_done("config");
    if (im.passes != 1 && mode == RangeMode::kUserRanges) {
      why = "the counters need " + std::to_string(im.passes) + " passes, not 1";
      return nullptr;
    }
    auto en = cupti_params<CUpti_RangeProfiler_Enable_Params>(
        CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    en.ctx = context;
    PTXB_CHECK_CUPTI(api->enable(&en));
    im.object = en.pRangeProfilerObject;
    rp->reset();
    step_done("enable");
  } catch (const ApiError& e) {
    why = e.what();
    return nullptr;
  }
  return rp;
}

void RangeProfiler::reset() {
  std::vector<const char*> names = c_names(metrics_);
  auto size = cupti_params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  size.pRangeProfilerObject = impl_->object;
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = impl_->max_ranges;
  size.maxNumRangeTreeNodes = static_cast<uint32_t>(impl_->max_ranges);
  PTXB_CHECK_CUPTI(impl_->api->counter_data_size(&size));
  impl_->counter_data.resize(size.counterDataSize);
  auto init = cupti_params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  init.pRangeProfilerObject = impl_->object;
  init.counterDataSize = impl_->counter_data.size();
  init.pCounterData = impl_->counter_data.data();
  PTXB_CHECK_CUPTI(impl_->api->counter_data_init(&init));
  auto cfg = cupti_params<CUpti_RangeProfiler_SetConfig_Params>(
      CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  cfg.pRangeProfilerObject = impl_->object;
  cfg.configSize = impl_->config.size();
  cfg.pConfig = impl_->config.data();
  cfg.counterDataImageSize = impl_->counter_data.size();
  cfg.pCounterDataImage = impl_->counter_data.data();
  const bool per_kernel = impl_->mode == RangeMode::kPerKernel;
  cfg.range = per_kernel ? CUPTI_AutoRange : CUPTI_UserRange;
  cfg.replayMode = per_kernel ? CUPTI_KernelReplay : CUPTI_UserReplay;
  cfg.maxRangesPerPass = impl_->max_ranges;
  cfg.numNestingLevels = 1;
  cfg.minNestingLevel = 1;
  cfg.passIndex = 0;
  cfg.targetNestingLevel = 1;
  PTXB_CHECK_CUPTI(impl_->api->set_config(&cfg));
}

RangeProfiler::~RangeProfiler() {
  if (impl_ == nullptr || impl_->object == nullptr) return;
  auto p = cupti_params<CUpti_RangeProfiler_Disable_Params>(
      CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = impl_->object;
  impl_->api->disable(&p);
}

void RangeProfiler::start() {
  auto p =
      cupti_params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = impl_->object;
  PTXB_CHECK_CUPTI(impl_->api->start(&p));
}

void RangeProfiler::stop() {
  auto p =
      cupti_params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = impl_->object;
  PTXB_CHECK_CUPTI(impl_->api->stop(&p));
}

void RangeProfiler::push(const char* range_name) {
  auto p = cupti_params<CUpti_RangeProfiler_PushRange_Params>(
      CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = impl_->object;
  p.pRangeName = range_name;
  PTXB_CHECK_CUPTI(impl_->api->push(&p));
}

void RangeProfiler::pop() {
  auto p = cupti_params<CUpti_RangeProfiler_PopRange_Params>(
      CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = impl_->object;
  PTXB_CHECK_CUPTI(impl_->api->pop(&p));
}

std::vector<std::vector<double>> RangeProfiler::decode() {
  const ProfilerApi& api = *impl_->api;
  auto d = cupti_params<CUpti_RangeProfiler_DecodeData_Params>(
      CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  d.pRangeProfilerObject = impl_->object;
  PTXB_CHECK_CUPTI(api.decode(&d));
  if (d.numOfRangeDropped != 0)
    throw ApiError("CUPTI range profiler dropped " + std::to_string(d.numOfRangeDropped) +
                   " ranges");
  auto info = cupti_params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = impl_->counter_data.data();
  info.counterDataImageSize = impl_->counter_data.size();
  PTXB_CHECK_CUPTI(api.data_info(&info));
  std::vector<const char*> names = c_names(metrics_);
  std::vector<std::vector<double>> out(info.numTotalRanges, std::vector<double>(names.size()));
  for (size_t r = 0; r < info.numTotalRanges; ++r) {
    auto e = cupti_params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    e.pHostObject = impl_->host->get();
    e.pCounterDataImage = impl_->counter_data.data();
    e.counterDataImageSize = impl_->counter_data.size();
    e.rangeIndex = r;
    e.ppMetricNames = names.data();
    e.numMetrics = names.size();
    e.pMetricValues = out[r].data();
    PTXB_CHECK_CUPTI(api.host_evaluate(&e));
  }
  return out;
}

std::vector<std::string> RangeProfiler::range_names() const {
  const ProfilerApi& api = *impl_->api;
  auto info = cupti_params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = impl_->counter_data.data();
  info.counterDataImageSize = impl_->counter_data.size();
  PTXB_CHECK_CUPTI(api.data_info(&info));
  std::vector<std::string> out;
  for (size_t r = 0; r < info.numTotalRanges; ++r) {
    auto p = cupti_params<CUpti_RangeProfiler_CounterData_GetRangeInfo_Params>(
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE);
    p.pCounterDataImage = impl_->counter_data.data();
    p.counterDataImageSize = impl_->counter_data.size();
    p.rangeIndex = r;
    p.rangeDelimiter = "/";
    PTXB_CHECK_CUPTI(api.range_info(&p));
    out.emplace_back(p.rangeName != nullptr ? p.rangeName : "");
  }
  return out;
}

const std::vector<uint8_t>& RangeProfiler::config_image() const { return impl_->config; }

namespace {

// `use(host)` on a host object of `chip` built from the host API alone (no cuptiProfilerInitialize,
// which needs a driver; no counter availability image); `failed` with *why_not on any error.
template <class T, class Use>
T on_host_object(const std::string& chip, std::string* why_not, T failed, Use&& use) {
  const ProfilerApi* api = profiler_api(why_not);
  if (api == nullptr) return failed;
  try {
    HostObject host(*api, chip, nullptr);
    return use(host);
  } catch (const ApiError& e) {
    if (why_not != nullptr) *why_not = e.what();
    return failed;
  }
}

}  // namespace

std::vector<uint8_t> RangeProfiler::host_config_image(const std::string& chip,
                                                      const std::vector<std::string>& metrics,
                                                      std::string* why_not) {
  return on_host_object(chip, why_not, std::vector<uint8_t>{},
                        [&](HostObject& host) { return host.config_image(metrics); });
}

size_t RangeProfiler::passes_needed(const std::string& chip,
                                    const std::vector<std::string>& metrics, std::string* why_not) {
  return on_host_object(chip, why_not, size_t{0}, [&](HostObject& host) {
    std::vector<uint8_t> config = host.config_image(metrics);
    return host.passes(config);
  });
}

std::vector<std::string> RangeProfiler::base_metrics(const std::string& chip,
                                                     const std::string& part) {
  std::vector<std::string> out;
  const ProfilerApi* api = profiler_api(nullptr);
  if (api == nullptr) return out;
  initialize_profiler(*api);
  HostObject host(*api, chip, nullptr);
  for (const CUpti_MetricType type :
       {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
    auto p = cupti_params<CUpti_Profiler_Host_GetBaseMetrics_Params>(
        CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE);
    p.pHostObject = host.get();
    p.metricType = type;
    if (api->host_base_metrics(&p) != CUPTI_SUCCESS) continue;
    for (size_t i = 0; i < p.numMetrics; ++i)
      if (p.ppMetricNames[i] != nullptr &&
          std::string(p.ppMetricNames[i]).find(part) != std::string::npos)
        out.emplace_back(p.ppMetricNames[i]);
  }
  return out;
}

}  // namespace ptxb
