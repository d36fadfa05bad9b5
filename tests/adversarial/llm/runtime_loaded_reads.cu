// ptxbench-expect: task=sm90/gemm/bf16-llm outcome=rejected_cheat
// ptxbench-embed-cubin(kRuntimeReadsCubin): runtime_loaded_reads.ptx
// Evidence cheat on the other-read selection (docs/evidence.md, "Cost"; docs/threat-model.md,
// rows 4 and 29): the evidence run reads only the other-read metrics of the load kinds the
// candidate's static SASS has. This submission's static SASS (the production-shape expert's and
// an empty kernel's) has no cp.async; every call also reads A and B once more by cp.async, 1.0 of
// the input bytes where the task caps other reads at 0.4, from a module it loads when it plans
// (cuModuleLoadData, reached through the runtime's driver entry points, on a cubin make_cheats.sh
// embeds: no JIT compiler is mapped) whose kernel bears the empty kernel's name, so the monitor
// sees a kernel of the candidate's own.
// Caught (since 2026-12-06, eighteenth session): a module load called by candidate code is a
// forbidden call (row 4), outcome rejected_cheat before any evidence. Before that rule the
// profiled calls' LDGSTS made the evidence be taken again with every metric and the cap failed
// (row 29); llm/registered_fatbin_reads.cu takes the route that rule leaves open.
#include <cuda.h>

namespace runtime_reads {

// The module's kernel under its name, defined here too: no cp.async, never launched.
extern "C" __global__ void ptxb_runtime_reads(const void*, unsigned long long) {}

template <typename Fn>
Fn driver_entry(const char* name) {
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
  cudaGetDriverEntryPointByVersion(name, &entry, 12000, cudaEnableDefault, &found);
  return found == cudaDriverEntryPointSuccess ? reinterpret_cast<Fn>(entry) : nullptr;
}

decltype(&cuLaunchKernel) launch_kernel = nullptr;
CUfunction reads = nullptr;

int load() {
  if (reads != nullptr) return 0;
  const auto load_data = driver_entry<decltype(&cuModuleLoadData)>("cuModuleLoadData");
  const auto get_function = driver_entry<decltype(&cuModuleGetFunction)>("cuModuleGetFunction");
  launch_kernel = driver_entry<decltype(&cuLaunchKernel)>("cuLaunchKernel");
  CUmodule module = nullptr;
  if (load_data == nullptr || get_function == nullptr || launch_kernel == nullptr ||
      load_data(&module, kRuntimeReadsCubin) != CUDA_SUCCESS ||
      get_function(&reads, module, "ptxb_runtime_reads") != CUDA_SUCCESS)
    return 3;
  return 0;
}

int read_once(const void* data, uint64_t bytes, cudaStream_t stream) {
  CUdeviceptr src = reinterpret_cast<CUdeviceptr>(data);
  uint64_t chunks = bytes / 16;
  void* params[] = {&src, &chunks};
  return launch_kernel(reads, 132, 1, 1, 512, 1, 1, 0, reinterpret_cast<CUstream>(stream), params,
                       nullptr) == CUDA_SUCCESS
             ? 0
             : 3;
}

}  // namespace runtime_reads

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  const int status = expert_plan(problem, workspace_bytes);
  return status != 0 ? status : runtime_reads::load();
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const int status = expert_run(args);
  if (status != 0) return status;
  const ptxb_problem& p = *args->problem;
  const auto stream = static_cast<cudaStream_t>(args->stream);
  for (int i = 0; i < 2; ++i) {
    const uint64_t bytes = static_cast<uint64_t>(p.inputs[i].shape[0] * p.inputs[i].shape[1]) * 2;
    if (const int s = runtime_reads::read_once(args->inputs[i], bytes, stream); s != 0) return s;
  }
  return 0;
}
