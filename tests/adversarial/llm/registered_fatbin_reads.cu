// ptxbench-expect: task=sm90/gemm/bf16-llm outcome=rejected_cheat
// ptxbench-embed-fatbin(kRegisteredReadsFatbin, kHiddenCopy): runtime_loaded_reads.ptx
// Evidence cheat on the other-read selection (docs/evidence.md, "Cost"; docs/threat-model.md,
// rows 3, 4 and 29), by the route the monitor's rule against module-load calls leaves open:
// runtime_loaded_reads.cu with the module handed to the CUDA runtime's own registration
// functions, the ones nvcc's generated code calls for every fat binary (__cudaRegisterFatBinary,
// __cudaRegisterFunction), from a static constructor like nvcc's. The fat binary (make_cheats.sh
// builds it from the same PTX) lies in ordinary read-only data, not in the .nv_fatbin section that
// holds the submission's compiled device code, so the static listing lacks its LDGSTS; the runtime
// loads it inside the candidate's launch (no module-load call of the candidate's own), and its
// kernel bears the name of an empty kernel of the submission, so the monitor sees neither a load
// call nor a foreign kernel name. And a copy of its ELF image lies in .nv_fatbin as a fat-binary
// entry of kind 4 (kHiddenCopy), which cuobjdump passes over: a check that took any bytes of that
// section for the submission's own code would take the loaded module for its own. Every call
// reads A and B once more by cp.async, 1.0 of the input bytes where the task caps other reads at
// 0.4.
// Caught (since 2026-12-06, eighteenth session): the module loaded while candidate code runs is
// none of the ELF images (kind-2 entries) of the submission's .nv_fatbin, outcome rejected_cheat
// (H100: the version without the hidden copy). Without that rule the profiled calls' LDGSTS
// would make the evidence be taken again with every metric and the cap fail (row 29).
extern "C" {
void** __cudaRegisterFatBinary(void* fat_cubin);
void __cudaRegisterFatBinaryEnd(void** handle);
void __cudaRegisterFunction(void** handle, const char* host_function, char* device_function,
                            const char* device_name, int thread_limit, uint3* tid, uint3* bid,
                            dim3* block, dim3* grid, int* warp_size);
}

namespace registered_reads {

// The module's kernel under its name, defined here too: no cp.async, never launched.
extern "C" __global__ void ptxb_runtime_reads(const void*, unsigned long long) {}

// The wrapper nvcc writes for each fat binary (fatbinary_section.h, which the generated code
// includes itself: its own typedef here would clash): magic, version 1, the data, no file name.
struct FatbinWrapper {
  int magic, version;
  const unsigned long long* data;
  void* filename;
};
const FatbinWrapper kWrapper = {
    0x466243b1, 1, reinterpret_cast<const unsigned long long*>(kRegisteredReadsFatbin), nullptr};
char launch_key;  // the host address the runtime maps to the module's kernel

__attribute__((constructor)) void register_module() {
  void** handle = __cudaRegisterFatBinary(const_cast<FatbinWrapper*>(&kWrapper));
  __cudaRegisterFunction(handle, &launch_key, const_cast<char*>("ptxb_runtime_reads"),
                         "ptxb_runtime_reads", -1, nullptr, nullptr, nullptr, nullptr, nullptr);
  __cudaRegisterFatBinaryEnd(handle);
}

int read_once(const void* data, uint64_t bytes, cudaStream_t stream) {
  const void* src = data;
  unsigned long long chunks = bytes / 16;
  void* params[] = {&src, &chunks};
  return cudaLaunchKernel(static_cast<const void*>(&launch_key), dim3(132), dim3(512), params, 0,
                          stream) == cudaSuccess
             ? 0
             : 3;
}

}  // namespace registered_reads

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const int status = expert_run(args);
  if (status != 0) return status;
  const ptxb_problem& p = *args->problem;
  const auto stream = static_cast<cudaStream_t>(args->stream);
  for (int i = 0; i < 2; ++i) {
    const uint64_t bytes = static_cast<uint64_t>(p.inputs[i].shape[0] * p.inputs[i].shape[1]) * 2;
    if (const int s = registered_reads::read_once(args->inputs[i], bytes, stream); s != 0) return s;
  }
  return 0;
}
