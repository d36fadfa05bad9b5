#include "worker/monitor.hpp"

#include <cupti.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "compile/fatbin.hpp"
#include "core/error.hpp"
#include "worker/cupti_library.hpp"
#include "worker/monitor_rules.hpp"

namespace ptxb {
namespace {

// ---- the denylist and the launch APIs, by base name ----

/// Strips CUPTI's version and per-thread-stream suffixes: "cuMemAlloc_v2" -> "cuMemAlloc",
/// "cudaLaunchKernel_ptsz_v7000" -> "cudaLaunchKernel".
std::string_view base_api_name(std::string_view name) {
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (const std::string_view suffix : {std::string_view("_ptsz"), std::string_view("_ptds")}) {
      if (name.ends_with(suffix)) {
        name.remove_suffix(suffix.size());
        stripped = true;
      }
    }
    const size_t v = name.rfind("_v");
    if (v != std::string_view::npos && v + 2 < name.size() &&
        name.find_first_not_of("0123456789", v + 2) == std::string_view::npos) {
      name = name.substr(0, v);
      stripped = true;
    }
  }
  return name;
}

const std::vector<std::string> kForbiddenApis = {
    // streams, events, graphs (creation, capture, launch)
    "cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority",
    "cudaStreamDestroy", "cuStreamCreate", "cuStreamCreateWithPriority", "cuStreamDestroy",
    "cuGreenCtxStreamCreate", "cudaEventCreate", "cudaEventCreateWithFlags", "cudaEventDestroy",
    "cuEventCreate", "cuEventDestroy", "cudaGraphCreate", "cudaGraphClone", "cudaGraphInstantiate",
    "cudaGraphInstantiateWithFlags", "cudaGraphInstantiateWithParams", "cudaGraphUpload",
    "cudaGraphLaunch", "cudaGraphExecDestroy", "cudaGraphDestroy", "cudaStreamBeginCapture",
    "cudaStreamBeginCaptureToGraph", "cudaStreamEndCapture", "cuGraphCreate", "cuGraphClone",
    "cuGraphInstantiate", "cuGraphInstantiateWithFlags", "cuGraphInstantiateWithParams",
    "cuGraphUpload", "cuGraphLaunch", "cuGraphExecDestroy", "cuGraphDestroy",
    "cuStreamBeginCapture", "cuStreamBeginCaptureToGraph", "cuStreamEndCapture",
    // device memory
    "cudaMalloc", "cudaMallocPitch", "cudaMalloc3D", "cudaMallocArray", "cudaMalloc3DArray",
    "cudaMallocMipmappedArray", "cudaMallocManaged", "cudaMallocAsync", "cudaMallocFromPoolAsync",
    "cudaFree", "cudaFreeArray", "cudaFreeMipmappedArray", "cudaFreeAsync", "cudaMemPoolCreate",
    "cudaMemPoolDestroy", "cudaDeviceSetMemPool", "cudaMemSetMemPool", "cuMemAlloc", "cu64MemAlloc",
    "cuMemAllocPitch", "cu64MemAllocPitch", "cuMemAllocManaged", "cuMemAllocAsync",
    "cuMemAllocFromPoolAsync", "cuMemFree", "cu64MemFree", "cuMemFreeAsync", "cuMemCreate",
    "cuMemRelease", "cuMemAddressReserve", "cuMemAddressFree", "cuMemMap", "cuMemUnmap",
    "cuArrayCreate", "cu64ArrayCreate", "cuArrayDestroy", "cuMipmappedArrayCreate",
    "cuMipmappedArrayDestroy", "cuMemPoolCreate", "cuMemPoolDestroy", "cuDeviceSetMemPool",
    "cuMemSetMemPool",
    // host memory
    "cudaMallocHost", "cudaHostAlloc", "cudaFreeHost", "cudaHostRegister", "cudaHostUnregister",
    "cuMemAllocHost", "cuMemHostAlloc", "cu64MemHostAlloc", "cuMemFreeHost", "cuMemHostRegister",
    "cuMemHostUnregister",
    // host callbacks
    "cudaLaunchHostFunc", "cudaStreamAddCallback", "cudaGraphAddHostNode", "cuLaunchHostFunc",
    "cuStreamAddCallback", "cuGraphAddHostNode",
    // device reset, peer access
    "cudaDeviceReset", "cudaThreadExit", "cuDevicePrimaryCtxReset", "cudaDeviceEnablePeerAccess",
    "cudaDeviceDisablePeerAccess", "cudaMemcpyPeer", "cudaMemcpyPeerAsync", "cudaMemcpy3DPeer",
    "cudaMemcpy3DPeerAsync", "cuCtxEnablePeerAccess", "cuCtxDisablePeerAccess", "cuMemcpyPeer",
    "cuMemcpyPeerAsync", "cuMemcpy3DPeer", "cuMemcpy3DPeerAsync",
    // contexts and devices
    // NOTE: cuDevicePrimaryCtxRetain/Release are left out: the candidate's own (static) CUDA
    // runtime calls them when it initializes on its first call.
    "cudaSetDevice", "cudaSetDeviceFlags", "cudaSetValidDevices", "cuCtxCreate", "cuCtxDestroy",
    "cuCtxSetCurrent", "cuCtxPushCurrent", "cuCtxPopCurrent", "cuCtxSetFlags",
    "cuDevicePrimaryCtxSetFlags", "cuGreenCtxCreate", "cuGreenCtxDestroy",
    // profiler
    "cudaProfilerInitialize", "cudaProfilerStart", "cudaProfilerStop", "cuProfilerInitialize",
    "cuProfilerStart", "cuProfilerStop",
    // IPC and shareable handles
    "cudaIpcGetEventHandle", "cudaIpcOpenEventHandle", "cudaIpcGetMemHandle",
    "cudaIpcOpenMemHandle", "cudaIpcCloseMemHandle", "cudaMemPoolExportToShareableHandle",
    "cudaMemPoolImportFromShareableHandle", "cudaMemPoolExportPointer", "cudaMemPoolImportPointer",
    "cuIpcGetEventHandle", "cuIpcOpenEventHandle", "cuIpcGetMemHandle", "cuIpcOpenMemHandle",
    "cuIpcCloseMemHandle", "cuMemExportToShareableHandle", "cuMemImportFromShareableHandle",
    "cuMemPoolExportToShareableHandle", "cuMemPoolImportFromShareableHandle",
    "cuMemPoolExportPointer", "cuMemPoolImportPointer",
    // what lies where in the process (the direct driver queries: monitor_rules.hpp)
    "cudaPointerGetAttributes",
    // L2 residency: stream attributes (access-policy windows) and persisting lines
    "cudaStreamSetAttribute", "cuStreamSetAttribute", "cudaCtxResetPersistingL2Cache",
    "cuCtxResetPersistingL2Cache",
    // device code loaded at run time through the runtime (the driver's loads: monitor_rules.hpp)
    "cudaLibraryLoadData", "cudaLibraryLoadFromFile"};

// Launches of kernels: their correlation id ties the launching call to the kernel record.
constexpr std::array<std::string_view, 15> kLaunchApis = {
    // runtime
    "cudaLaunch", "cudaLaunchKernel", "cudaLaunchKernelExC", "__cudaLaunchKernel",
    "cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernelMultiDevice", "cudaGraphLaunch",
    // driver
    "cuLaunch", "cuLaunchGrid", "cuLaunchGridAsync", "cuLaunchKernel", "cuLaunchKernelEx",
    "cuLaunchCooperativeKernel", "cuLaunchCooperativeKernelMultiDevice", "cuGraphLaunch"};

const std::unordered_set<std::string_view>& forbidden_set() {
  static const std::unordered_set<std::string_view> set(kForbiddenApis.begin(),
                                                        kForbiddenApis.end());
  return set;
}

// ---- libcupti entry points (the library itself: worker/cupti_library.hpp) ----

struct CuptiApi {
  decltype(&cuptiGetResultString) get_result_string = nullptr;
  decltype(&cuptiSubscribe) subscribe = nullptr;
  decltype(&cuptiSubscribe_v2) subscribe_v2 = nullptr;  // optional: names the other subscriber
  decltype(&cuptiUnsubscribe) unsubscribe = nullptr;
  decltype(&cuptiEnableDomain) enable_domain = nullptr;
  decltype(&cuptiEnableCallback) enable_callback = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityEnable) activity_enable = nullptr;
  decltype(&cuptiActivityDisable) activity_disable = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) num_dropped = nullptr;
  decltype(&cuptiGetStreamIdEx) get_stream_id = nullptr;
};

/// The process's CUPTI entry points, or nullptr with the reason (computed once).
const CuptiApi* load_cupti(std::string* why_not) {
  static const std::pair<const CuptiApi*, std::string> loaded = []() {
    std::string missing;
    void* handle = cupti_library(&missing);
    if (handle == nullptr) return std::pair<const CuptiApi*, std::string>{nullptr, missing};
    auto* api = new CuptiApi;  // NOTE: lives as long as the process, like the library
    std::string why;
    const bool ok = bind_cupti("cuptiGetResultString", &api->get_result_string, &why) &&
                    bind_cupti("cuptiSubscribe", &api->subscribe, &why) &&
                    bind_cupti("cuptiUnsubscribe", &api->unsubscribe, &why) &&
                    bind_cupti("cuptiEnableDomain", &api->enable_domain, &why) &&
                    bind_cupti("cuptiEnableCallback", &api->enable_callback, &why) &&
                    bind_cupti("cuptiActivityRegisterCallbacks", &api->register_callbacks, &why) &&
                    bind_cupti("cuptiActivityEnable", &api->activity_enable, &why) &&
                    bind_cupti("cuptiActivityDisable", &api->activity_disable, &why) &&
                    bind_cupti("cuptiActivityFlushAll", &api->flush_all, &why) &&
                    bind_cupti("cuptiActivityGetNextRecord", &api->next_record, &why) &&
                    bind_cupti("cuptiActivityGetNumDroppedRecords", &api->num_dropped, &why) &&
                    bind_cupti("cuptiGetStreamIdEx", &api->get_stream_id, &why);
    bind_cupti("cuptiSubscribe_v2", &api->subscribe_v2, nullptr);
    if (!ok) return std::pair<const CuptiApi*, std::string>{nullptr, why};
    return std::pair<const CuptiApi*, std::string>{api, ""};
  }();
  if (loaded.first == nullptr && why_not != nullptr) *why_not = loaded.second;
  return loaded.first;
}

std::string result_text(const CuptiApi& api, CUptiResult result) {
  const char* text = nullptr;
  if (api.get_result_string(result, &text) != CUPTI_SUCCESS || text == nullptr)
    return "CUptiResult " + std::to_string(static_cast<int>(result));
  return text;
}

// ---- what the callbacks gather ----

struct LaunchInfo {
  bool armed = false;
  bool other_thread = false;
};

// NOTE: process-wide because CUPTI's buffer callbacks take no user data and CUPTI allows one
// subscriber per process; CandidateMonitor::create refuses a second monitor.
struct Gathered {
  std::mutex mutex;
  bool active = false;  // a monitor exists; completed buffers are read into it
  // Launch callbacks by correlation id. Two generations: collect() moves `launches` into
  // `previous_launches`, so a kernel may arrive up to one collect() after its launch.
  std::unordered_map<uint32_t, LaunchInfo> launches, previous_launches;
  std::vector<MonitoredKernel> kernels;
  std::vector<std::pair<std::string, uint64_t>> forbidden;  // (call, count) in first-call order
  std::optional<std::string> own_device_code;               // the candidate's .nv_fatbin, once set
  std::vector<std::string_view> own_images;  // its ELF images (views into own_device_code)
  std::vector<uint64_t> foreign_modules;     // sizes of modules loaded that are none of them
  uint64_t dropped = 0;
  std::vector<std::string> errors;
};

Gathered g_gathered;
std::atomic<const CuptiApi*> g_api{nullptr};  // set by the first create(), never changed
std::atomic<bool> g_armed{false};
std::atomic<pid_t> g_owner_thread{0};

pid_t this_thread_id() {
  thread_local const pid_t tid = ::gettid();
  return tid;
}

// What the callback does with an API, as bits: 0 = not classified yet.
enum ApiKindBits : uint8_t {
  kClassified = 1,
  kLaunch = 2,           // ties the kernel record to the call (correlation id)
  kForbidden = 4,        // forbidden whenever candidate code calls it
  kInspect = 8,          // forbidden for some parameters (monitor_rules.hpp)
  kDirectForbidden = 16  // forbidden when called directly, not by the runtime inside its own call
};

uint8_t classify(std::string_view function_name) {
  const std::string_view base = base_api_name(function_name);
  uint8_t kind = kClassified;
  if (is_kernel_launch_api(function_name)) kind |= kLaunch;
  if (is_forbidden_candidate_api(function_name)) kind |= kForbidden;
  if (has_inspected_parameters(base)) kind |= kInspect;
  if (is_direct_call_forbidden_api(base)) kind |= kDirectForbidden;
  return kind;
}

/// The kind of an API callback, cached per (domain, callback id): a name is classified once.
uint8_t api_kind(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char* name) {
  constexpr size_t kMaxCbid = 2048;
  static std::array<std::atomic<uint8_t>, 2 * kMaxCbid> cache{};
  if (name == nullptr) return kClassified;
  if (cbid >= kMaxCbid) return classify(name);
  std::atomic<uint8_t>& slot = cache[(domain == CUPTI_CB_DOMAIN_DRIVER_API ? kMaxCbid : 0) + cbid];
  uint8_t kind = slot.load(std::memory_order_relaxed);
  if (kind == 0) {
    kind = classify(name);
    slot.store(kind, std::memory_order_relaxed);
  }
  return kind;
}

// Runtime API calls this thread is inside: driver calls made then are the runtime's own.
thread_local int t_runtime_depth = 0;

void record_forbidden(std::string call) {
  for (auto& [name, count] : g_gathered.forbidden) {
    if (name == call) {
      ++count;
      return;
    }
  }
  g_gathered.forbidden.emplace_back(std::move(call), 1);
}

/// A module loaded while candidate code runs (armed, or on another thread): its cubin must be one
/// of the ELF images of the candidate's own fat binaries once they are known.
void on_module_loaded(const CUpti_ResourceData& resource) {
  const auto* module = static_cast<const CUpti_ModuleResourceData*>(resource.resourceDescriptor);
  if (module == nullptr) return;
  const bool armed = g_armed.load(std::memory_order_acquire);
  const bool other_thread = this_thread_id() != g_owner_thread.load(std::memory_order_acquire);
  if (!armed && !other_thread) return;
  const std::string_view cubin(module->pCubin != nullptr ? module->pCubin : "",
                               module->pCubin != nullptr ? module->cubinSize : 0);
  std::lock_guard lock(g_gathered.mutex);
  if (!g_gathered.own_device_code) return;
  if (!is_one_of_the_images(cubin, g_gathered.own_images))
    g_gathered.foreign_modules.push_back(cubin.size());
}

void CUPTIAPI on_api_call(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                          const void* data) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED)
      on_module_loaded(*static_cast<const CUpti_ResourceData*>(data));
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  if (info->callbackSite != CUPTI_API_ENTER) {
    if (runtime) --t_runtime_depth;
    return;
  }
  const bool nested = t_runtime_depth > 0;  // a driver call the runtime makes for its caller
  if (runtime) ++t_runtime_depth;
  const uint8_t kind = api_kind(domain, cbid, info->functionName);
  if (kind == kClassified) return;
  const bool armed = g_armed.load(std::memory_order_acquire);
  const bool other_thread = this_thread_id() != g_owner_thread.load(std::memory_order_acquire);
  const bool candidate = armed || other_thread;
  std::string finding;
  if (candidate && (kind & kForbidden)) finding = std::string(base_api_name(info->functionName));
  if (candidate && (kind & kDirectForbidden) && !(runtime == false && nested))
    finding = std::string(base_api_name(info->functionName));
  if (candidate && (kind & kInspect))
    if (std::string bad =
            forbidden_parameters(base_api_name(info->functionName), info->functionParams);
        !bad.empty())
      finding = std::move(bad);
  std::lock_guard lock(g_gathered.mutex);
  if (kind & kLaunch) g_gathered.launches[info->correlationId] = LaunchInfo{armed, other_thread};
  if (!finding.empty()) record_forbidden(finding + (other_thread ? " (another thread)" : ""));
}

constexpr size_t kActivityBufferBytes = 8u << 20;

void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  // CUPTI needs 8-byte alignment; a null buffer makes CUPTI drop (and count) records.
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kActivityBufferBytes));
  *size = *buffer != nullptr ? kActivityBufferBytes : 0;
  *max_records = 0;
}

/// Attributes a kernel to its launch callback. Call with g_gathered.mutex held.
void attribute_launch(MonitoredKernel& kernel) {
  for (const auto* generation : {&g_gathered.launches, &g_gathered.previous_launches}) {
    if (const auto it = generation->find(kernel.correlation_id); it != generation->end()) {
      kernel.launch_seen = true;
      kernel.from_candidate = it->second.armed;
      kernel.from_other_thread = it->second.other_thread;
      return;
    }
  }
}

MonitoredKernel kernel_from_record(const CUpti_ActivityKernel10& record) {
  // NOTE: only fields that every CUpti_ActivityKernel version keeps at the same offset are read,
  // so records of a newer libcupti (a later record version) read the same.
  MonitoredKernel kernel;
  kernel.name = record.name != nullptr ? record.name : "";
  kernel.stream_id = record.streamId;
  kernel.start_ns = record.start;
  kernel.end_ns = record.end;
  kernel.correlation_id = record.correlationId;
  return kernel;
}

void CUPTIAPI on_buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t,
                                  size_t valid_bytes) {
  // Parsed before taking the mutex, so that no CUPTI call is made while it is held.
  std::vector<MonitoredKernel> kernels;
  std::string error;
  size_t dropped = 0;
  if (const CuptiApi* api = g_api.load(); api != nullptr) {
    CUpti_Activity* record = nullptr;
    for (;;) {
      const CUptiResult result = api->next_record(buffer, valid_bytes, &record);
      if (result == CUPTI_ERROR_MAX_LIMIT_REACHED) break;
      if (result != CUPTI_SUCCESS) {
        error = "cuptiActivityGetNextRecord: " + result_text(*api, result);
        break;
      }
      if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
          record->kind == CUPTI_ACTIVITY_KIND_KERNEL)
        kernels.push_back(
            kernel_from_record(*reinterpret_cast<const CUpti_ActivityKernel10*>(record)));
    }
    if (api->num_dropped(context, stream_id, &dropped) != CUPTI_SUCCESS) dropped = 0;
  }
  std::free(buffer);

  std::lock_guard lock(g_gathered.mutex);
  if (!g_gathered.active) return;  // delivered after the monitor ended
  for (MonitoredKernel& kernel : kernels) {
    attribute_launch(kernel);
    g_gathered.kernels.push_back(std::move(kernel));
  }
  g_gathered.dropped += dropped;
  if (!error.empty()) g_gathered.errors.push_back(std::move(error));
}

}  // namespace

const std::vector<std::string>& forbidden_candidate_apis() { return kForbiddenApis; }

bool is_forbidden_candidate_api(std::string_view function_name) {
  return forbidden_set().contains(base_api_name(function_name));
}

bool is_kernel_launch_api(std::string_view function_name) {
  const std::string_view base = base_api_name(function_name);
  return std::find(kLaunchApis.begin(), kLaunchApis.end(), base) != kLaunchApis.end();
}

struct CandidateMonitor::Subscription {
  const CuptiApi* api = nullptr;
  CUpti_SubscriberHandle subscriber = nullptr;
  bool runtime_domain = false, driver_domain = false, module_loads = false, kernel_activity = false;

  /// Undoes whatever was set up, in reverse order; errors are ignored (nothing left to tell).
  ~Subscription() {
    g_armed.store(false);
    if (kernel_activity) {
      api->flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
      api->activity_disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    }
    if (module_loads)
      api->enable_callback(0, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                           CUPTI_CBID_RESOURCE_MODULE_LOADED);
    if (driver_domain) api->enable_domain(0, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
    if (runtime_domain) api->enable_domain(0, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
    if (subscriber != nullptr) api->unsubscribe(subscriber);
    std::lock_guard lock(g_gathered.mutex);
    g_gathered.active = false;
    g_gathered.launches.clear();
    g_gathered.previous_launches.clear();
    g_gathered.kernels.clear();
    g_gathered.forbidden.clear();
    g_gathered.own_device_code.reset();
    g_gathered.own_images.clear();
    g_gathered.foreign_modules.clear();
    g_gathered.errors.clear();
    g_gathered.dropped = 0;
  }
};

std::unique_ptr<CandidateMonitor> CandidateMonitor::create(std::string* why_not) {
  std::string ignored;
  std::string& why = why_not != nullptr ? *why_not : ignored;
  const CuptiApi* api = load_cupti(&why);
  if (api == nullptr) return nullptr;
  g_api.store(api);
  {
    std::lock_guard lock(g_gathered.mutex);
    if (g_gathered.active) {
      why = "a CandidateMonitor already exists in this process";
      return nullptr;
    }
    g_gathered.active = true;
  }
  auto sub = std::make_unique<Subscription>();
  sub->api = api;
  const auto failed = [&](const char* call, CUptiResult result) {
    why = std::string(call) + ": " + result_text(*api, result);
    return nullptr;
  };

  char other_subscriber[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN] = {};
  CUptiResult result;
  if (api->subscribe_v2 != nullptr) {
    CUpti_SubscriberParams params{};
    params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    params.subscriberName = "PTXBench candidate monitor";
    params.oldSubscriberName = other_subscriber;
    params.oldSubscriberSize = sizeof other_subscriber;
    result = api->subscribe_v2(&sub->subscriber, on_api_call, nullptr, &params);
  } else {
    result = api->subscribe(&sub->subscriber, on_api_call, nullptr);
  }
  if (result != CUPTI_SUCCESS) {
    sub->subscriber = nullptr;
    failed("cuptiSubscribe", result);
    if (other_subscriber[0] != '\0')
      why += std::string(" (already attached: ") + other_subscriber + ")";
    return nullptr;
  }
  g_owner_thread.store(this_thread_id());
  if ((result = api->enable_domain(1, sub->subscriber, CUPTI_CB_DOMAIN_RUNTIME_API)) !=
      CUPTI_SUCCESS)
    return failed("cuptiEnableDomain(RUNTIME_API)", result);
  sub->runtime_domain = true;
  if ((result = api->enable_domain(1, sub->subscriber, CUPTI_CB_DOMAIN_DRIVER_API)) !=
      CUPTI_SUCCESS)
    return failed("cuptiEnableDomain(DRIVER_API)", result);
  sub->driver_domain = true;
  if ((result = api->enable_callback(1, sub->subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                     CUPTI_CBID_RESOURCE_MODULE_LOADED)) != CUPTI_SUCCESS)
    return failed("cuptiEnableCallback(MODULE_LOADED)", result);
  sub->module_loads = true;
  // NOTE: registered once per process; CUPTI keeps the registration across subscriptions.
  static const CUptiResult registered =
      api->register_callbacks(on_buffer_requested, on_buffer_completed);
  if (registered != CUPTI_SUCCESS) return failed("cuptiActivityRegisterCallbacks", registered);
  if ((result = api->activity_enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) != CUPTI_SUCCESS)
    return failed("cuptiActivityEnable(CONCURRENT_KERNEL)", result);
  sub->kernel_activity = true;

  std::unique_ptr<CandidateMonitor> monitor(new CandidateMonitor);
  monitor->subscription_ = std::move(sub);
  return monitor;
}

CandidateMonitor::~CandidateMonitor() = default;

void CandidateMonitor::arm() {
  g_owner_thread.store(this_thread_id(), std::memory_order_release);
  g_armed.store(true, std::memory_order_release);
}

void CandidateMonitor::disarm() { g_armed.store(false, std::memory_order_release); }

void CandidateMonitor::set_own_device_code(std::string fat_binaries) {
  std::lock_guard lock(g_gathered.mutex);
  g_gathered.own_device_code = std::move(fat_binaries);
  g_gathered.own_images = fatbin_elf_images(*g_gathered.own_device_code);
}

uint32_t CandidateMonitor::stream_id(cudaStream_t stream) {
  // NOTE: CUPTI resolves the default streams only with a context (a null context and stream
  // answer CUPTI_ERROR_INVALID_STREAM on CUDA 13.0); for other streams the context is a check.
  const bool per_thread = stream == cudaStreamPerThread;
  const CUstream handle =
      stream == cudaStreamLegacy || per_thread ? nullptr : reinterpret_cast<CUstream>(stream);
  uint32_t id = 0;
  PTXB_CHECK_CUPTI(
      subscription_->api->get_stream_id(current_cuda_context(), handle, per_thread ? 1 : 0, &id));
  return id;
}

MonitorReport CandidateMonitor::collect() {
  const CuptiApi& api = *subscription_->api;
  // NOTE: the flush calls on_buffer_completed on this thread, which takes the mutex: not held here.
  const CUptiResult flushed = api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  size_t dropped = 0;
  const CUptiResult counted = api.num_dropped(nullptr, 0, &dropped);

  MonitorReport report;
  std::lock_guard lock(g_gathered.mutex);
  report.kernels = std::move(g_gathered.kernels);
  g_gathered.kernels.clear();
  for (const auto& [call, count] : g_gathered.forbidden)
    report.forbidden_api_calls.push_back(call + " x" + std::to_string(count));
  g_gathered.forbidden.clear();
  report.foreign_modules = std::move(g_gathered.foreign_modules);
  g_gathered.foreign_modules.clear();
  report.dropped_records = g_gathered.dropped + (counted == CUPTI_SUCCESS ? dropped : 0);
  g_gathered.dropped = 0;
  report.monitor_errors = std::move(g_gathered.errors);
  g_gathered.errors.clear();
  if (flushed != CUPTI_SUCCESS)
    report.monitor_errors.push_back("cuptiActivityFlushAll: " + result_text(api, flushed));
  if (counted != CUPTI_SUCCESS)
    report.monitor_errors.push_back("cuptiActivityGetNumDroppedRecords: " +
                                    result_text(api, counted));
  g_gathered.previous_launches = std::move(g_gathered.launches);
  g_gathered.launches.clear();
  return report;
}

}  // namespace ptxb
