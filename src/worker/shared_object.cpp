#include "worker/shared_object.hpp"

#include <dlfcn.h>

#include "core/error.hpp"

namespace ptxb {

SharedObjectImplementation::SharedObjectImplementation(const std::filesystem::path& path) {
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) throw InputError(std::string("dlopen: ") + dlerror());
  run_ = reinterpret_cast<ptxb_run_fn>(dlsym(handle_, "ptxb_run"));
  plan_ = reinterpret_cast<ptxb_plan_fn>(dlsym(handle_, "ptxb_plan"));
  if (run_ == nullptr) {
    dlclose(handle_);
    handle_ = nullptr;
    throw InputError(path.string() + ": no exported symbol ptxb_run (declare it extern \"C\")");
  }
}

SharedObjectImplementation::~SharedObjectImplementation() {
  if (handle_ != nullptr) dlclose(handle_);
}

int SharedObjectImplementation::plan(const ptxb_problem& problem, uint64_t* workspace_bytes) {
  *workspace_bytes = 0;
  return plan_ != nullptr ? plan_(&problem, workspace_bytes) : PTXB_OK;
}

}  // namespace ptxb
