// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=rejected_cheat
// Evidence cheat that reaches into the CUPTI library the worker already loaded: on its first call
// it finds libcupti in the process (no new library is mapped) and shuts its profiling down
// (cuptiProfilerDeInitialize, cuptiFinalize), then computes with the SIMT path wherever it did so.
// Caught because the counters of the timed calls stop working after candidate code ran.
#include <dlfcn.h>

__device__ bool divert_to_simt() { return false; }

namespace {

bool disable_cupti() {
  void* cupti = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
  if (cupti == nullptr) return false;
  struct Params {
    size_t size;
    void* priv;
  } params = {sizeof(Params), nullptr};
  using DeInit = int (*)(Params*);
  using Finalize = int (*)();
  if (auto deinit = reinterpret_cast<DeInit>(dlsym(cupti, "cuptiProfilerDeInitialize")))
    deinit(&params);
  if (auto finalize = reinterpret_cast<Finalize>(dlsym(cupti, "cuptiFinalize"))) finalize();
  return true;
}

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  static const bool cupti_gone = disable_cupti();
  return cupti_gone ? simt::run(args) : expert_run(args);
}
