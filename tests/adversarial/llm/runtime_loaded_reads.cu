// ptxbench-expect: task=sm90/gemm/bf16-llm outcome=low_instruction_share target=cp.async.bulk.tensor
// Evidence cheat on the other-read selection (docs/evidence.md, "Cost"; docs/threat-model.md,
// row 29): the evidence run reads only the other-read metrics of the load kinds the candidate's
// static SASS has. This submission's static SASS (the production-shape expert's) has no cp.async;
// every call also reads A and B once more by cp.async, from a kernel whose PTX it JIT-compiles
// when it plans (cuModuleLoadData) and which therefore no static listing shows: 1.0 of the input
// bytes, where the task caps other reads at 0.4. With the cp.async metrics left out and nothing
// else, those reads would count nowhere and the calls would pass. Caught: the profiled calls
// executed LDGSTS, so the evidence is taken again with every metric, and the cap fails.
#include <cuda.h>

namespace runtime_reads {

// Reads `chunks` 16-byte chunks from `src` into shared memory by cp.async.cg (SASS LDGSTS), one
// chunk per thread per step, and drops them.
constexpr char kPtx[] = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry ptxb_runtime_reads(.param .u64 src, .param .u64 chunks)
{
  .reg .pred %p;
  .reg .b32 %r<5>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 buf[8192];
  ld.param.u64 %rd1, [src];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [chunks];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mul.wide.u32 %rd3, %r2, %r3;
  cvt.u64.u32 %rd4, %r1;
  add.u64 %rd3, %rd3, %rd4;
  mov.u32 %r4, %nctaid.x;
  mul.wide.u32 %rd5, %r4, %r3;
  mov.u32 %r0, buf;
  mad.lo.u32 %r0, %r1, 16, %r0;
LOOP:
  setp.ge.u64 %p, %rd3, %rd2;
  @%p bra DONE;
  mad.lo.u64 %rd6, %rd3, 16, %rd1;
  cp.async.cg.shared.global [%r0], [%rd6], 16;
  add.u64 %rd3, %rd3, %rd5;
  bra LOOP;
DONE:
  cp.async.wait_all;
  ret;
}
)";

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
      load_data(&module, kPtx) != CUDA_SUCCESS ||
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
