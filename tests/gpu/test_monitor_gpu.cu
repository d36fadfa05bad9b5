// The CUPTI candidate monitor on a real GPU: kernels are attributed to the armed caller, to
// their stream and to the host thread that launched them; forbidden API calls made while armed
// are listed, module loads among them but not the runtime's loads of the caller's own kernels;
// modules loaded while armed that the caller's own device code does not hold are listed.
// Skips (saying why) where CUPTI is missing or another profiler holds it. NOTE: nvcc builds this
// file as C++17.
#include <cuda.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "compile/elf_imports.hpp"
#include "cuda/cuda_check.hpp"
#include "worker/monitor.hpp"

namespace ptxb {

void launch_own_module_kernel(int* out, cudaStream_t stream);  // monitor_own_module.cu

namespace {

__global__ void monitor_probe_kernel(int* out) { out[threadIdx.x] = static_cast<int>(threadIdx.x); }

std::vector<MonitoredKernel> probe_kernels(const MonitorReport& report) {
  std::vector<MonitoredKernel> probes;
  for (const MonitoredKernel& k : report.kernels)
    if (k.name.find("monitor_probe_kernel") != std::string::npos) probes.push_back(k);
  return probes;
}

bool lists_call(const MonitorReport& report, const std::string& prefix) {
  return std::any_of(report.forbidden_api_calls.begin(), report.forbidden_api_calls.end(),
                     [&](const std::string& call) { return call.rfind(prefix, 0) == 0; });
}

std::string describe(const MonitorReport& report) {
  std::string text = "kernels:";
  for (const MonitoredKernel& k : report.kernels)
    text += "\n  " + k.name + " stream " + std::to_string(k.stream_id) + " corr " +
            std::to_string(k.correlation_id) + (k.launch_seen ? " seen" : " unseen") +
            (k.from_candidate ? " candidate" : "") + (k.from_other_thread ? " other-thread" : "");
  text += "\nforbidden:";
  for (const std::string& call : report.forbidden_api_calls) text += "\n  " + call;
  text += "\nforeign modules:";
  for (const uint64_t bytes : report.foreign_modules) text += " " + std::to_string(bytes);
  for (const std::string& error : report.monitor_errors) text += "\nerror: " + error;
  return text;
}

class MonitorGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    PTXB_CHECK_CUDA(cudaFree(nullptr));
    std::string why_not;
    monitor_ = CandidateMonitor::create(&why_not);
    if (!monitor_) GTEST_SKIP() << "no CUPTI monitor: " << why_not;
    PTXB_CHECK_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    PTXB_CHECK_CUDA(cudaMalloc(&out_, 32 * sizeof(int)));
    monitor_->collect();  // start from an empty report
  }
  void TearDown() override {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
    if (out_ != nullptr) cudaFree(out_);
    monitor_.reset();
  }
  void launch_probe() { monitor_probe_kernel<<<1, 32, 0, stream_>>>(out_); }
  MonitorReport finish() {
    PTXB_CHECK_CUDA(cudaGetLastError());
    PTXB_CHECK_CUDA(cudaDeviceSynchronize());
    return monitor_->collect();
  }

  std::unique_ptr<CandidateMonitor> monitor_;
  cudaStream_t stream_ = nullptr;
  int* out_ = nullptr;
};

TEST_F(MonitorGpu, ArmedLaunchIsFromCandidateOnItsStream) {
  monitor_->arm();
  launch_probe();
  monitor_->disarm();
  const MonitorReport report = finish();
  const std::vector<MonitoredKernel> probes = probe_kernels(report);
  ASSERT_EQ(probes.size(), 1u) << describe(report);
  EXPECT_TRUE(probes[0].launch_seen) << describe(report);
  EXPECT_TRUE(probes[0].from_candidate);
  EXPECT_FALSE(probes[0].from_other_thread);
  EXPECT_EQ(probes[0].stream_id, monitor_->stream_id(stream_));
  EXPECT_NE(probes[0].stream_id, monitor_->stream_id(nullptr));
  EXPECT_GT(probes[0].start_ns, 0u);
  EXPECT_GE(probes[0].end_ns, probes[0].start_ns);
  EXPECT_TRUE(report.forbidden_api_calls.empty()) << describe(report);
  EXPECT_EQ(report.dropped_records, 0u);
  EXPECT_TRUE(report.monitor_errors.empty()) << describe(report);
}

TEST_F(MonitorGpu, DisarmedLaunchIsNotFromCandidate) {
  launch_probe();
  const MonitorReport report = finish();
  const std::vector<MonitoredKernel> probes = probe_kernels(report);
  ASSERT_EQ(probes.size(), 1u) << describe(report);
  EXPECT_TRUE(probes[0].launch_seen);
  EXPECT_FALSE(probes[0].from_candidate);
  EXPECT_FALSE(probes[0].from_other_thread);
}

TEST_F(MonitorGpu, ForbiddenCallWhileArmedIsListed) {
  cudaEvent_t before_arming = nullptr;
  PTXB_CHECK_CUDA(cudaEventCreate(&before_arming));  // disarmed, owner thread: not listed
  monitor_->arm();
  cudaStream_t side = nullptr;
  PTXB_CHECK_CUDA(cudaStreamCreate(&side));
  monitor_->disarm();
  PTXB_CHECK_CUDA(cudaStreamDestroy(side));  // disarmed again: not listed
  PTXB_CHECK_CUDA(cudaEventDestroy(before_arming));
  const MonitorReport report = finish();
  EXPECT_TRUE(lists_call(report, "cudaStreamCreate x1")) << describe(report);
  EXPECT_FALSE(lists_call(report, "cudaStreamDestroy")) << describe(report);
  EXPECT_FALSE(lists_call(report, "cudaEventCreate")) << describe(report);
  // The next report starts empty.
  EXPECT_TRUE(monitor_->collect().forbidden_api_calls.empty());
}

TEST_F(MonitorGpu, LaunchFromAnotherThreadWhileArmed) {
  monitor_->arm();
  std::thread other([this] { launch_probe(); });
  other.join();
  monitor_->disarm();
  const MonitorReport report = finish();
  const std::vector<MonitoredKernel> probes = probe_kernels(report);
  ASSERT_EQ(probes.size(), 1u) << describe(report);
  EXPECT_TRUE(probes[0].from_candidate);
  EXPECT_TRUE(probes[0].from_other_thread);
}

TEST_F(MonitorGpu, DeferredThreadIsCaughtAfterDisarm) {
  // A candidate's host thread that launches and allocates after ptxb_run returned.
  monitor_->arm();
  monitor_->disarm();
  void* hidden = nullptr;
  std::thread deferred([&] {
    launch_probe();
    PTXB_CHECK_CUDA(cudaMalloc(&hidden, 256));
  });
  deferred.join();
  PTXB_CHECK_CUDA(cudaFree(hidden));
  const MonitorReport report = finish();
  const std::vector<MonitoredKernel> probes = probe_kernels(report);
  ASSERT_EQ(probes.size(), 1u) << describe(report);
  EXPECT_FALSE(probes[0].from_candidate);
  EXPECT_TRUE(probes[0].from_other_thread);
  EXPECT_TRUE(lists_call(report, "cudaMalloc (another thread) x1")) << describe(report);
  EXPECT_FALSE(lists_call(report, "cudaFree")) << describe(report);
}

TEST_F(MonitorGpu, ModulesLoadedWhileArmedAreListed) {
  // A candidate's own PTX, loaded at run time through entry points it looks up (no driver
  // import): the driver's load and the runtime's are listed, the driver call the runtime makes
  // inside its own is not.
  const char* ptx =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry ptxb_monitor_loaded() { ret; }\n";
  auto driver_entry = [](const char* name) {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
    PTXB_CHECK_CUDA(
        cudaGetDriverEntryPointByVersion(name, &entry, 12000, cudaEnableDefault, &found));
    return found == cudaDriverEntryPointSuccess ? entry : nullptr;
  };
  const auto load_data =
      reinterpret_cast<decltype(&cuModuleLoadData)>(driver_entry("cuModuleLoadData"));
  const auto unload = reinterpret_cast<decltype(&cuModuleUnload)>(driver_entry("cuModuleUnload"));
  ASSERT_NE(load_data, nullptr);
  ASSERT_NE(unload, nullptr);
  CUmodule module = nullptr;
  cudaLibrary_t library = nullptr;
  monitor_->arm();
  const CUresult loaded = load_data(&module, ptx);
  const cudaError_t library_loaded =
      cudaLibraryLoadData(&library, ptx, nullptr, nullptr, 0, nullptr, nullptr, 0);
  monitor_->disarm();
  EXPECT_EQ(loaded, CUDA_SUCCESS);
  EXPECT_EQ(library_loaded, cudaSuccess);
  if (module != nullptr) EXPECT_EQ(unload(module), CUDA_SUCCESS);
  if (library != nullptr) PTXB_CHECK_CUDA(cudaLibraryUnload(library));
  const MonitorReport report = finish();
  EXPECT_TRUE(lists_call(report, "cuModuleLoadData x1")) << describe(report);
  EXPECT_TRUE(lists_call(report, "cudaLibraryLoadData x1")) << describe(report);
  EXPECT_FALSE(lists_call(report, "cuLibraryLoadData")) << describe(report);
  EXPECT_EQ(report.forbidden_api_calls.size(), 2u) << describe(report);
}

TEST_F(MonitorGpu, ItsOwnModuleIsNotForeignALoadedOneIs) {
  // This binary's device code as the worker takes a candidate's (built with --no-compress).
  std::string error;
  std::optional<std::string> own = read_elf_section_file("/proc/self/exe", ".nv_fatbin", &error);
  ASSERT_TRUE(own.has_value()) << error;
  monitor_->set_own_device_code(std::move(*own));
  monitor_->arm();
  launch_own_module_kernel(out_, stream_);  // its module's first use: loaded here when lazy
  monitor_->disarm();
  MonitorReport report = finish();
  EXPECT_TRUE(report.foreign_modules.empty()) << describe(report);
  EXPECT_TRUE(report.forbidden_api_calls.empty()) << describe(report);

  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
  PTXB_CHECK_CUDA(cudaGetDriverEntryPointByVersion("cuModuleLoadData", &entry, 12000,
                                                   cudaEnableDefault, &found));
  ASSERT_EQ(found, cudaDriverEntryPointSuccess);
  CUmodule module = nullptr;
  monitor_->arm();
  const CUresult loaded = reinterpret_cast<decltype(&cuModuleLoadData)>(entry)(
      &module,
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry ptxb_monitor_foreign() { ret; }\n");
  monitor_->disarm();
  EXPECT_EQ(loaded, CUDA_SUCCESS);
  report = finish();
  ASSERT_EQ(report.foreign_modules.size(), 1u) << describe(report);
  EXPECT_GT(report.foreign_modules[0], 0u);
}

TEST_F(MonitorGpu, SecondMonitorIsRefused) {
  std::string why_not;
  EXPECT_EQ(CandidateMonitor::create(&why_not), nullptr);
  EXPECT_NE(why_not.find("already"), std::string::npos) << why_not;
}

TEST(MonitorApis, DenylistNamesWithSuffixes) {
  EXPECT_TRUE(is_forbidden_candidate_api("cudaMalloc"));
  EXPECT_TRUE(is_forbidden_candidate_api("cudaMalloc_v3020"));
  EXPECT_TRUE(is_forbidden_candidate_api("cuMemAlloc_v2"));
  EXPECT_TRUE(is_forbidden_candidate_api("cudaLaunchHostFunc_ptsz"));
  EXPECT_TRUE(is_forbidden_candidate_api("cuStreamBeginCapture_v2_ptsz"));
  EXPECT_TRUE(is_forbidden_candidate_api("cudaGraphLaunch"));
  EXPECT_TRUE(is_forbidden_candidate_api("cuCtxSetCurrent"));
  EXPECT_TRUE(is_forbidden_candidate_api("cudaIpcGetMemHandle"));
  EXPECT_TRUE(is_forbidden_candidate_api("cudaProfilerStart"));
  EXPECT_TRUE(is_forbidden_candidate_api("cudaLibraryLoadData"));
  EXPECT_TRUE(is_forbidden_candidate_api("cudaLibraryLoadFromFile"));
  EXPECT_FALSE(is_forbidden_candidate_api("cudaLaunchKernel"));
  EXPECT_FALSE(is_forbidden_candidate_api("cudaFuncSetAttribute"));
  EXPECT_FALSE(is_forbidden_candidate_api("cudaMemsetAsync"));
  EXPECT_FALSE(is_forbidden_candidate_api("cuTensorMapEncodeTiled"));
  EXPECT_FALSE(is_forbidden_candidate_api("cudaGetLastError"));
  EXPECT_TRUE(is_kernel_launch_api("cudaLaunchKernel_v7000"));
  EXPECT_TRUE(is_kernel_launch_api("cuLaunchKernelEx_ptsz"));
  EXPECT_TRUE(is_kernel_launch_api("__cudaLaunchKernel"));
  EXPECT_TRUE(is_kernel_launch_api("cudaGraphLaunch"));
  EXPECT_FALSE(is_kernel_launch_api("cudaLaunchHostFunc"));
  EXPECT_GT(forbidden_candidate_apis().size(), 100u);
}

}  // namespace
}  // namespace ptxb
