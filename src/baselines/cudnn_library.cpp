#include "baselines/cudnn_library.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <mutex>
#include <vector>

// The frontend's dynamic loading resolves cuDNN symbols through this handle (declared extern in
// cudnn_frontend_shim.h; "the cudnn package initialization" sets it: here, CudnnLibrary::open).
namespace cudnn_frontend {
void* cudnn_dlhandle = nullptr;
}  // namespace cudnn_frontend

namespace ptxb {
namespace {

std::string dl_error_text() {
  const char* text = dlerror();
  return text ? text : "unknown dlopen error";
}

// The file a handle was loaded from (the path the search found), or "" when unknown.
std::string path_of(void* handle) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr || map->l_name == nullptr)
    return "";
  return map->l_name;
}

// Paths of the loaded objects whose file name starts with one of `prefixes`.
std::vector<std::string> loaded_objects(const std::vector<std::string>& prefixes) {
  struct Search {
    const std::vector<std::string>* prefixes;
    std::vector<std::string> found;
  } search{&prefixes, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        const std::string path = info->dlpi_name ? info->dlpi_name : "";
        const std::string file = path.substr(path.find_last_of('/') + 1);
        for (const std::string& p : *s->prefixes)
          if (file.rfind(p, 0) == 0) s->found.push_back(path);
        return 0;
      },
      &search);
  return search.found;
}

// NOTE: the frontend dlopens "libcudart.so.12" and "libcudart.so.13" by soname, keeps the first
// that loads, and warns on stderr when both do. Its build here uses CUDA 13 headers, so the CUDA 13
// runtime is opened first (from the loader's search path, else from the toolkit this was built
// with), and the frontend is pointed at that file through its documented override variable
// (set only when the user has not set it). RTLD_LOCAL: a candidate loaded later must keep binding
// its cuda* calls to its own (static) runtime, not to this one. Returns the path, or "" with `why`
// filled.
std::string open_cuda13_runtime(std::string* why) {
  void* handle = dlopen("libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const std::string first = dl_error_text();
    handle = dlopen(PTXB_CUDA_LIBRARY_DIR "/libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      *why = "the CUDA 13 runtime that cudnn-frontend calls could not be opened: " + first + "; " +
             dl_error_text();
      return "";
    }
  }
  const std::string path = path_of(handle);
  if (!path.empty()) setenv("CUDNN_FRONTEND_CUDART_LIB_NAME", path.c_str(), /*overwrite=*/0);
  return path;
}

}  // namespace

const CudnnLibrary& CudnnLibrary::open(const std::string& library) {
  static CudnnLibrary lib;
  static std::once_flag once;
  std::call_once(once, [&] {
    lib.requested_ = library;
    dlerror();
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      lib.error_ = "cuDNN is not installed or not on the loader's search path: dlopen(\"" +
                   library + "\") failed: " + dl_error_text();
      return;
    }
    lib.path_ = path_of(handle);
    lib.cudart_path_ = open_cuda13_runtime(&lib.error_);
    if (!lib.error_.empty()) return;
    cudnn_frontend::cudnn_dlhandle = handle;
    try {
      lib.version_ = cudnn_frontend::detail::get_backend_version();
    } catch (const std::exception& e) {  // the frontend throws when a symbol is missing
      lib.error_ = lib.path_ + " is not a usable cuDNN: " + e.what();
      cudnn_frontend::cudnn_dlhandle = nullptr;
      return;
    }
    if (lib.version_ / 10000 != 9) {
      lib.error_ = lib.path_ + " is cuDNN " + cudnn_version_string(lib.version_) +
                   "; the frontend build here needs cuDNN 9";
      cudnn_frontend::cudnn_dlhandle = nullptr;
    }
  });
  return lib;
}

nlohmann::json CudnnLibrary::describe() const {
  return {{"library", "cudnn"},
          {"requested", requested_},
          {"cudnn_version", version_},
          {"cudnn_version_string", cudnn_version_string(version_)},
          {"cudnn_header_version", CUDNN_VERSION},
          {"frontend_version", std::to_string(CUDNN_FRONTEND_MAJOR_VERSION) + "." +
                                   std::to_string(CUDNN_FRONTEND_MINOR_VERSION) + "." +
                                   std::to_string(CUDNN_FRONTEND_PATCH_VERSION)},
          {"cudnn_path", path_},
          {"frontend_cudart_path", cudart_path_},
          {"loaded_objects", loaded_objects({"libcudnn", "libnvrtc", "libcudart"})}};
}

std::string cudnn_version_string(size_t version) {
  return std::to_string(version / 10000) + "." + std::to_string(version % 10000 / 100) + "." +
         std::to_string(version % 100);
}

const char* frontend_error_name(cudnn_frontend::error_code_t code) {
  using cudnn_frontend::error_code_t;
  switch (code) {
    case error_code_t::OK:
      return "OK";
    case error_code_t::ATTRIBUTE_NOT_SET:
      return "ATTRIBUTE_NOT_SET";
    case error_code_t::SHAPE_DEDUCTION_FAILED:
      return "SHAPE_DEDUCTION_FAILED";
    case error_code_t::INVALID_TENSOR_NAME:
      return "INVALID_TENSOR_NAME";
    case error_code_t::INVALID_VARIANT_PACK:
      return "INVALID_VARIANT_PACK";
    case error_code_t::GRAPH_NOT_SUPPORTED:
      return "GRAPH_NOT_SUPPORTED";
    case error_code_t::GRAPH_EXECUTION_PLAN_CREATION_FAILED:
      return "GRAPH_EXECUTION_PLAN_CREATION_FAILED";
    case error_code_t::GRAPH_EXECUTION_FAILED:
      return "GRAPH_EXECUTION_FAILED";
    case error_code_t::HEURISTIC_QUERY_FAILED:
      return "HEURISTIC_QUERY_FAILED";
    case error_code_t::UNSUPPORTED_GRAPH_FORMAT:
      return "UNSUPPORTED_GRAPH_FORMAT";
    case error_code_t::CUDA_API_FAILED:
      return "CUDA_API_FAILED";
    case error_code_t::CUDNN_BACKEND_API_FAILED:
      return "CUDNN_BACKEND_API_FAILED";
    case error_code_t::INVALID_CUDA_DEVICE:
      return "INVALID_CUDA_DEVICE";
    case error_code_t::HANDLE_ERROR:
      return "HANDLE_ERROR";
    case error_code_t::INVALID_VALUE:
      return "INVALID_VALUE";
    case error_code_t::NVRTC_COMPILATION_FAILED:
      return "NVRTC_COMPILATION_FAILED";
  }
  return "unknown frontend error";
}

CudnnHandle::CudnnHandle() { PTXB_CHECK_CUDNN(cudnn_frontend::detail::create_handle(&handle_)); }

CudnnHandle::~CudnnHandle() {
  if (handle_ != nullptr) cudnn_frontend::detail::destroy_handle(handle_);
}

}  // namespace ptxb
