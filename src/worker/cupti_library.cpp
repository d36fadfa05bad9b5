#include "worker/cupti_library.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdlib>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace ptxb {
namespace {

std::vector<std::string> cupti_library_candidates() {
  std::vector<std::string> paths = {"libcupti.so.13", "libcupti.so"};
  // NOTE: read here rather than in a config struct: it only widens where a tool library is
  // looked for and changes no result.
  const char* cuda_home = std::getenv("CUDA_HOME");
  for (const std::string& root :
       {std::string(cuda_home ? cuda_home : ""), std::string("/usr/local/cuda")}) {
    if (root.empty()) continue;
    for (const char* dir : {"/extras/CUPTI/lib64", "/lib64", "/lib"})
      paths.push_back(root + dir + "/libcupti.so.13");
  }
  return paths;
}

}  // namespace

void* cupti_library(std::string* why_not) {
  static const std::pair<void*, std::string> loaded = [] {
    std::string tried;
    for (const std::string& path : cupti_library_candidates()) {
      if (void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))
        return std::pair{handle, std::string()};
      tried += (tried.empty() ? "" : "; ") + std::string(::dlerror());
    }
    return std::pair<void*, std::string>{nullptr, "libcupti not found: " + tried};
  }();
  if (loaded.first == nullptr && why_not != nullptr) *why_not = loaded.second;
  return loaded.first;
}

void* cupti_symbol(const char* symbol, std::string* why_not) {
  void* handle = cupti_library(why_not);
  if (handle == nullptr) return nullptr;
  void* fn = ::dlsym(handle, symbol);
  if (fn == nullptr && why_not != nullptr) *why_not = std::string("libcupti lacks ") + symbol;
  return fn;
}

std::string cupti_result_text(CUptiResult result) {
  using GetResultString = CUptiResult (*)(CUptiResult, const char**);
  static const auto get =
      reinterpret_cast<GetResultString>(cupti_symbol("cuptiGetResultString", nullptr));
  const char* text = nullptr;
  if (get == nullptr || get(result, &text) != CUPTI_SUCCESS || text == nullptr)
    return "CUptiResult " + std::to_string(static_cast<int>(result));
  return text;
}

void throw_cupti(CUptiResult result, const char* call, const char* file, int line) {
  const std::string text = cupti_result_text(result);
  throw_api("CUPTI", call, result, text, text, file, line);
}

CUcontext current_cuda_context() {
  using CtxGetCurrent = CUresult (*)(CUcontext*);
  static const CtxGetCurrent get_current = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t err =
        cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found);
    if (err != cudaSuccess || fn == nullptr)
      throw_api("CUDA", "cudaGetDriverEntryPointByVersion(cuCtxGetCurrent)", err,
                cudaGetErrorName(err), cudaGetErrorString(err), __FILE__, __LINE__);
    return reinterpret_cast<CtxGetCurrent>(fn);
  }();
  CUcontext context = nullptr;
  if (const CUresult result = get_current(&context); result != CUDA_SUCCESS)
    throw_api("CUDA driver", "cuCtxGetCurrent", result, "", "", __FILE__, __LINE__);
  return context;
}

}  // namespace ptxb
