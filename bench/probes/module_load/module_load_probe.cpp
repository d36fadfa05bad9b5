// Probe, GPU needed: which CUDA API calls and module-loaded events a candidate's own code causes
// when its shared object is opened and its kernel first launched, and which a module it loads
// itself causes (docs/threat-model.md, "Modules loaded at run time under the candidate's own kernel
// names"). The monitor could refuse module-loading calls in candidate code only if the candidate's
// own lazily loaded module does not go through them; or compare each loaded module's cubin with
// the candidate's shared object. Prints, per phase, every driver and runtime API callback whose
// name holds "Module", "Library" or "Kernel", and every CUPTI module-loaded event with its cubin's
// size, its first bytes and whether those bytes occur in the shared object's file.
// Usage: module_load_probe SO CUBIN   (SO exports `int probe_run(void* stream)`)
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

std::string g_phase = "start";
std::vector<char> g_so_bytes;

bool in_shared_object(const char* data, size_t size) {
  if (size == 0 || g_so_bytes.size() < size) return false;
  return std::search(g_so_bytes.begin(), g_so_bytes.end(), data, data + size) != g_so_bytes.end();
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                          const void* data) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
    const auto* r = static_cast<const CUpti_ResourceData*>(data);
    const auto* m = static_cast<const CUpti_ModuleResourceData*>(r->resourceDescriptor);
    std::printf(
        "[%s] module loaded: id %u, cubin %zu bytes, starts %02x %02x %02x %02x, "
        "in the shared object: %s\n",
        g_phase.c_str(), m->moduleId, m->cubinSize,
        m->cubinSize > 3 ? static_cast<unsigned char>(m->pCubin[0]) : 0u,
        m->cubinSize > 3 ? static_cast<unsigned char>(m->pCubin[1]) : 0u,
        m->cubinSize > 3 ? static_cast<unsigned char>(m->pCubin[2]) : 0u,
        m->cubinSize > 3 ? static_cast<unsigned char>(m->pCubin[3]) : 0u,
        in_shared_object(m->pCubin, m->cubinSize) ? "yes" : "no");
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API && domain != CUPTI_CB_DOMAIN_RUNTIME_API) return;
  const auto* d = static_cast<const CUpti_CallbackData*>(data);
  if (d->callbackSite != CUPTI_API_ENTER || d->functionName == nullptr) return;
  const std::string name = d->functionName;
  if (name.find("Module") != std::string::npos || name.find("Library") != std::string::npos ||
      name.find("Kernel") != std::string::npos)
    std::printf("[%s] %s %s\n", g_phase.c_str(),
                domain == CUPTI_CB_DOMAIN_DRIVER_API ? "driver" : "runtime", name.c_str());
}

#define CHECK(what, ok)                        \
  do {                                         \
    if (!(ok)) {                               \
      std::printf("probe: %s failed\n", what); \
      return 1;                                \
    }                                          \
  } while (0)

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s SO CUBIN\n", argv[0]);
    return 2;
  }
  std::ifstream so_file(argv[1], std::ios::binary);
  g_so_bytes.assign(std::istreambuf_iterator<char>(so_file), {});
  std::ifstream cubin_file(argv[2], std::ios::binary);
  const std::vector<char> cubin(std::istreambuf_iterator<char>(cubin_file), {});
  CHECK("reading the files", !g_so_bytes.empty() && !cubin.empty());
  CHECK("cudaFree(0)", cudaFree(nullptr) == cudaSuccess);
  CUpti_SubscriberHandle subscriber;
  CHECK("cuptiSubscribe", cuptiSubscribe(&subscriber, on_callback, nullptr) == CUPTI_SUCCESS);
  CHECK("driver domain",
        cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API) == CUPTI_SUCCESS);
  CHECK("runtime domain",
        cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API) == CUPTI_SUCCESS);
  CHECK("module-loaded events",
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                            CUPTI_CBID_RESOURCE_MODULE_LOADED) == CUPTI_SUCCESS);
  cudaStream_t stream;
  CHECK("cudaStreamCreate", cudaStreamCreate(&stream) == cudaSuccess);

  g_phase = "dlopen";
  void* so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  CHECK("dlopen", so != nullptr);
  auto run = reinterpret_cast<int (*)(void*)>(dlsym(so, "probe_run"));
  CHECK("probe_run", run != nullptr);
  for (const char* phase : {"first call", "second call"}) {
    g_phase = phase;
    CHECK(phase, run(stream) == 0 && cudaStreamSynchronize(stream) == cudaSuccess);
  }
  g_phase = "cuModuleLoadData";
  CUmodule module;
  CUfunction function;
  CHECK("cuModuleLoadData", cuModuleLoadData(&module, cubin.data()) == CUDA_SUCCESS);
  CHECK("cuModuleGetFunction",
        cuModuleGetFunction(&function, module, "ptxb_runtime_reads") == CUDA_SUCCESS);
  g_phase = "loaded kernel";
  CUdeviceptr src = 0;
  unsigned long long chunks = 0;  // nothing to read: the launch alone
  void* params[] = {&src, &chunks};
  CHECK("cuLaunchKernel",
        cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, params, nullptr) == CUDA_SUCCESS &&
            cudaStreamSynchronize(stream) == cudaSuccess);
  g_phase = "end";
  cuptiUnsubscribe(subscriber);
  std::printf("probe: done\n");
  return 0;
}
