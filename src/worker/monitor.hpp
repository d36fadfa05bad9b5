// Watches candidate code while it runs, through CUPTI (loaded with dlopen, never linked): which
// kernels ran on which stream, which of them an API call made while armed (or from another host
// thread) launched, which forbidden CUDA API calls (docs/abi.md) were made, and which modules
// loaded then hold device code other than the candidate's own.
// NOTE: kept C++17-clean because tests/gpu/*.cu include it and nvcc builds them as C++17.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ptxb {

/// One kernel execution as CUPTI's CONCURRENT_KERNEL activity reported it.
struct MonitoredKernel {
  std::string name;        ///< as CUPTI reports it (mangled)
  uint32_t stream_id = 0;  ///< CUPTI stream id; compare with CandidateMonitor::stream_id
  uint64_t start_ns = 0;   ///< GPU timestamps (CUPTI clock); both 0 when the kernel had not
  uint64_t end_ns = 0;     ///< finished when collect() flushed, or CUPTI could not time it
  uint32_t correlation_id = 0;
  bool launch_seen = false;     ///< a launch API callback with this correlation id was seen
  bool from_candidate = false;  ///< launched by an API call made while armed
  /// Launched from a host thread other than the owner (the thread that created the monitor or
  /// last armed it), armed or not: a thread the candidate started.
  bool from_other_thread = false;
};

/// What was gathered since the last collect().
struct MonitorReport {
  std::vector<MonitoredKernel> kernels;  ///< every kernel whose activity record arrived
  /// Denylisted runtime/driver API calls made while armed, or at any time from a thread other
  /// than the owner, by base name (see forbidden_candidate_apis), in order of first call,
  /// deduplicated with counts: "cudaStreamCreate x1", "cudaMalloc (another thread) x2".
  /// A runtime call may show its driver call as well ("cuStreamCreate x1").
  std::vector<std::string> forbidden_api_calls;
  /// Sizes in bytes of the modules loaded while armed, or from another thread, whose cubin is
  /// none of the ELF images of the candidate's own fat binaries (set_own_device_code): device
  /// code no static listing of the submission shows. Empty while no own device code was set.
  std::vector<uint64_t> foreign_modules;
  uint64_t dropped_records = 0;             ///< activity records CUPTI dropped (buffers full)
  std::vector<std::string> monitor_errors;  ///< CUPTI failures while gathering: data may miss
};

/// A CUPTI subscription for the life of the object. One per process (CUPTI allows a single
/// subscriber); while it exists every CUDA API call of the process passes through its callback.
class CandidateMonitor {
 public:
  /// dlopens libcupti ("libcupti.so.13", "libcupti.so", then $CUDA_HOME or /usr/local/cuda
  /// {extras/CUPTI/lib64,lib64,lib}/libcupti.so.13), subscribes to runtime and driver API
  /// callbacks and enables CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL. Returns nullptr with *why_not
  /// set when CUPTI is missing or refuses (e.g. another profiler such as ncu is attached:
  /// CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) or another monitor exists. Call after the
  /// CUDA context exists (cudaFree(0)); the calling thread becomes the owner.
  static std::unique_ptr<CandidateMonitor> create(std::string* why_not);
  /// Disarms, flushes, disables the activity and unsubscribes; records still in flight are lost.
  ~CandidateMonitor();
  CandidateMonitor(const CandidateMonitor&) = delete;
  CandidateMonitor& operator=(const CandidateMonitor&) = delete;

  /// From now on API calls (any thread) are attributed to the candidate; the calling thread
  /// becomes the owner.
  void arm();
  void disarm();

  /// The bytes of the candidate's `.nv_fatbin` section (compiled with --no-compress: its cubins
  /// as the driver loads them). From now on every module loaded while armed, or from another
  /// thread, must be one of the ELF images of its fat-binary containers (compile/fatbin.hpp: the
  /// images `cuobjdump -sass` lists; CUPTI's module-loaded event gives the cubin), or its size is
  /// listed in MonitorReport::foreign_modules. The runtime loads the candidate's own modules, but
  /// it would load a fat binary the candidate registered itself from elsewhere in the same way,
  /// and bytes hidden in the section outside an ELF entry are no image.
  void set_own_device_code(std::string fat_binaries);

  /// The CUPTI stream id of `stream` in the calling thread's current context
  /// (cuptiGetStreamIdEx); nullptr/cudaStreamLegacy and cudaStreamPerThread are accepted.
  /// Throws ApiError when CUPTI does not know the stream.
  uint32_t stream_id(cudaStream_t stream);

  /// Forces a flush of CUPTI's activity buffers and returns and clears what was gathered since
  /// the last collect(). It does not synchronize: synchronize the streams (or the device) first
  /// so that every kernel has finished and carries its timestamps.
  MonitorReport collect();

 private:
  CandidateMonitor() = default;
  struct Subscription;
  std::unique_ptr<Subscription> subscription_;
};

/// The denylist: base names (without "_v2"/"_ptsz"-style suffixes) of runtime and driver API
/// functions candidate code must not call: stream/event/graph creation and launch, device and
/// host memory allocation and free, host callbacks, device reset, peer access, context
/// creation/destruction/switching, profiler start/stop, IPC. Exposed for tests and docs.
const std::vector<std::string>& forbidden_candidate_apis();

/// Whether a CUPTI function name ("cuMemAlloc_v2", "cudaLaunchHostFunc_ptsz") is denylisted.
bool is_forbidden_candidate_api(std::string_view function_name);

/// Whether a CUPTI function name launches kernels (cudaLaunchKernel*, cuLaunchKernel*,
/// cooperative launches, graph launches).
bool is_kernel_launch_api(std::string_view function_name);

}  // namespace ptxb
