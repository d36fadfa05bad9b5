// A candidate shared object loaded with dlopen: the only place candidate code enters a process.
#pragma once

#include <filesystem>
#include <string>

#include "timing/implementation.hpp"

namespace ptxb {

class SharedObjectImplementation final : public Implementation {
 public:
  /// Throws InputError with dlerror()'s text when the object cannot be loaded or lacks ptxb_run.
  explicit SharedObjectImplementation(const std::filesystem::path& path);
  ~SharedObjectImplementation() override;
  SharedObjectImplementation(const SharedObjectImplementation&) = delete;
  SharedObjectImplementation& operator=(const SharedObjectImplementation&) = delete;

  std::string name() const override { return "candidate"; }
  int plan(const ptxb_problem& problem, uint64_t* workspace_bytes) override;
  int run(const ptxb_args& args) override { return run_(&args); }
  bool has_plan() const { return plan_ != nullptr; }

 private:
  void* handle_ = nullptr;
  ptxb_run_fn run_ = nullptr;
  ptxb_plan_fn plan_ = nullptr;
};

}  // namespace ptxb
