// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=rejected_cheat
// Evidence cheat: wgmma only when a profiler is visible (an injection library or Nsight's folder
// in the memory map, or a profiler variable in the environment), the SIMT (FFMA) path otherwise.
// The profiled call shows wgmma at share 1.0; the timed calls never touch the tensor cores. Caught
// by the counters of the timed calls (GMMA executions 0 against the profiled call's).
#include <cstdio>
#include <cstdlib>
#include <cstring>

__device__ bool divert_to_simt() { return simt::g_divert != 0; }

namespace {

bool profiler_visible() {
  for (const char* var : {"CUDA_INJECTION64_PATH", "NV_COMPUTE_PROFILER_PERFWORKS_DIR",
                          "NV_NSIGHT_INJECTION_TRANSPORT_TYPE", "NV_TPS_LAUNCH_TOKEN"})
    if (std::getenv(var) != nullptr) return true;
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return false;
  char line[4096];
  bool seen = false;
  while (!seen && std::fgets(line, sizeof line, maps) != nullptr)
    seen = std::strstr(line, "ToolsInjection") != nullptr ||
           std::strstr(line, "nsight-compute") != nullptr;
  std::fclose(maps);
  return seen;
}

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  if (profiler_visible()) return expert_run(args);
  return simt::run(args);
}
