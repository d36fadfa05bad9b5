#include "worker/environment.hpp"

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include "core/arch.hpp"
#include "cuda/cuda_check.hpp"

namespace ptxb {
namespace {

// The few NVML entry points we use, resolved from libnvidia-ml.so.1 (part of the driver).
struct Nvml {
  using Init = int (*)();
  using HandleByIndex = int (*)(unsigned, void**);
  using ClockInfo = int (*)(void*, int, unsigned*);
  using Power = int (*)(void*, unsigned*);
  using Temperature = int (*)(void*, int, unsigned*);
  using DriverVersion = int (*)(char*, unsigned);
  void* lib = nullptr;
  HandleByIndex handle_by_index = nullptr;
  ClockInfo clock_info = nullptr;
  ClockInfo max_clock_info = nullptr;
  Power power = nullptr;
  Temperature temperature = nullptr;
  DriverVersion driver_version = nullptr;

  static Nvml& get() {
    static Nvml nvml = [] {
      Nvml n;
      n.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
      if (n.lib == nullptr) return n;
      auto init = reinterpret_cast<Init>(dlsym(n.lib, "nvmlInit_v2"));
      if (init == nullptr || init() != 0) {
        n.lib = nullptr;
        return n;
      }
      n.handle_by_index =
          reinterpret_cast<HandleByIndex>(dlsym(n.lib, "nvmlDeviceGetHandleByIndex_v2"));
      n.clock_info = reinterpret_cast<ClockInfo>(dlsym(n.lib, "nvmlDeviceGetClockInfo"));
      n.max_clock_info = reinterpret_cast<ClockInfo>(dlsym(n.lib, "nvmlDeviceGetMaxClockInfo"));
      n.power = reinterpret_cast<Power>(dlsym(n.lib, "nvmlDeviceGetPowerUsage"));
      n.temperature = reinterpret_cast<Temperature>(dlsym(n.lib, "nvmlDeviceGetTemperature"));
      n.driver_version =
          reinterpret_cast<DriverVersion>(dlsym(n.lib, "nvmlSystemGetDriverVersion"));
      return n;
    }();
    return nvml;
  }
};

constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMem = 2;
constexpr int kNvmlTemperatureGpu = 0;

// The device's nominal ceilings: dense tensor-core TFLOP/s per type at the maximum SM clock (the
// architecture's per-SM rate, core/arch.hpp) and DRAM bandwidth at the maximum memory clock (two
// transfers per clock over the bus). Estimates for "% of peak", never verdicts; {} without NVML.
nlohmann::json device_peak(int device, const cudaDeviceProp& prop) {
  Nvml& nvml = Nvml::get();
  void* handle = nullptr;
  unsigned sm_mhz = 0, mem_mhz = 0;
  int bus_bits = 0;
  if (nvml.lib == nullptr || nvml.handle_by_index == nullptr || nvml.max_clock_info == nullptr ||
      nvml.handle_by_index(static_cast<unsigned>(device), &handle) != 0 ||
      nvml.max_clock_info(handle, kNvmlClockSm, &sm_mhz) != 0 ||
      nvml.max_clock_info(handle, kNvmlClockMem, &mem_mhz) != 0 ||
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess)
    return nlohmann::json::object();
  nlohmann::json peak = {{"max_sm_mhz", sm_mhz},
                         {"max_mem_mhz", mem_mhz},
                         {"memory_bus_bits", bus_bits},
                         {"memory_gbs", 2.0 * mem_mhz * 1e6 * bus_bits / 8 / 1e9}};
  if (const Arch* arch = arch_for_device(prop.major, prop.minor)) {
    const double per_clock = prop.multiProcessorCount * sm_mhz * 1e6 / 1e12;
    peak["dense_tflops"] = {{"bf16", arch->bf16_flops_per_sm_clock * per_clock},
                            {"fp8", arch->fp8_flops_per_sm_clock * per_clock}};
  }
  return peak;
}

}  // namespace

nlohmann::json device_environment(int device) {
  cudaDeviceProp prop{};
  PTXB_CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
  int driver = 0, runtime = 0;
  PTXB_CHECK_CUDA(cudaDriverGetVersion(&driver));
  PTXB_CHECK_CUDA(cudaRuntimeGetVersion(&runtime));
  nlohmann::json env = {
      {"gpu", prop.name},
      {"compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
      {"sm_count", prop.multiProcessorCount},
      {"l2_bytes", prop.l2CacheSize},
      {"memory_bytes", prop.totalGlobalMem},
      {"cuda_driver_api", driver},
      {"cuda_runtime", runtime},
      {"cublaslt", cublasLtGetVersion()}};
  Nvml& nvml = Nvml::get();
  char version[96] = {};
  if (nvml.driver_version != nullptr && nvml.driver_version(version, sizeof version) == 0)
    env["driver"] = version;
  if (nlohmann::json peak = device_peak(device, prop); !peak.empty()) env["peak"] = peak;
  return env;
}

nlohmann::json clock_snapshot(int device) {
  Nvml& nvml = Nvml::get();
  void* handle = nullptr;
  if (nvml.lib == nullptr || nvml.handle_by_index == nullptr ||
      nvml.handle_by_index(static_cast<unsigned>(device), &handle) != 0)
    return nlohmann::json::object();
  nlohmann::json out = nlohmann::json::object();
  unsigned value = 0;
  if (nvml.clock_info && nvml.clock_info(handle, kNvmlClockSm, &value) == 0) out["sm_mhz"] = value;
  if (nvml.clock_info && nvml.clock_info(handle, kNvmlClockMem, &value) == 0)
    out["mem_mhz"] = value;
  if (nvml.power && nvml.power(handle, &value) == 0) out["power_w"] = value / 1000.0;
  if (nvml.temperature && nvml.temperature(handle, kNvmlTemperatureGpu, &value) == 0)
    out["temperature_c"] = value;
  return out;
}

}  // namespace ptxb
