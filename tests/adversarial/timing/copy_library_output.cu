// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=rejected_cheat
// Timing cheat that copies the library's answer: it walks the device allocations around its own
// buffers with cuMemGetAddressRange (through cudaGetDriverEntryPoint), checks 8 sampled elements
// of every allocation of C's size against dot products of A and B, and copies a match into C; else
// it computes honestly. On 2026-11-29 it passed at 6.30x over cuBLASLt (8192^3): in every other
// timing round the library ran first on the same inputs. Now the library's inputs are drawn
// independently (no match exists), and the address-range query itself is a violation.
#include <cuda.h>

__device__ bool divert_to_simt() { return false; }

namespace {

using GetRange = CUresult (*)(CUdeviceptr*, size_t*, CUdeviceptr);

GetRange address_range() {
  static const GetRange fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult found{};
    cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &f, 12000, cudaEnableDefault, &found);
    return reinterpret_cast<GetRange>(f);
  }();
  return fn;
}

// Clears *ok when one of 8 sampled elements of c (M x N bf16) is not (A B^T)[i, j].
__global__ void sample_matches(const __nv_bfloat16* a, const __nv_bfloat16* b,
                               const __nv_bfloat16* c, int M, int N, int K, int* ok) {
  const int t = threadIdx.x;
  const int i = static_cast<int>((t * 7919ll) % M), j = static_cast<int>((t * 104729ll) % N);
  float acc = 0.f;
  for (int k = 0; k < K; ++k)
    acc += __bfloat162float(a[static_cast<int64_t>(i) * K + k]) *
           __bfloat162float(b[static_cast<int64_t>(j) * K + k]);
  const float got = __bfloat162float(c[static_cast<int64_t>(i) * N + j]);
  if (!(fabsf(got - acc) <= 0.05f + 0.02f * fabsf(acc))) atomicExch(ok, 0);
}

// An allocation near the call's own buffers that holds the right C, or null.
const void* find_answer(const ptxb_args& args) {
  const ptxb_problem& p = *args.problem;
  const int M = static_cast<int>(p.inputs[0].shape[0]), K = static_cast<int>(p.inputs[0].shape[1]);
  const int N = static_cast<int>(p.inputs[1].shape[0]);
  const size_t bytes = static_cast<size_t>(M) * N * 2;
  const GetRange range = address_range();
  if (range == nullptr || args.workspace == nullptr) return nullptr;
  auto* ok = static_cast<int*>(args.workspace);
  const auto stream = static_cast<cudaStream_t>(args.stream);
  const auto own = reinterpret_cast<CUdeviceptr>(args.outputs[0]);
  constexpr CUdeviceptr kStep = 2u << 20;
  for (const void* start :
       {args.inputs[0], args.inputs[1], const_cast<const void*>(args.outputs[0])})
    for (const int direction : {-1, 1})
      for (CUdeviceptr s = 1; s <= 4096; ++s) {
        const CUdeviceptr at = reinterpret_cast<CUdeviceptr>(start) + direction * s * kStep;
        CUdeviceptr base = 0;
        size_t size = 0;
        if (range(&base, &size, at) != CUDA_SUCCESS || size < bytes || size > bytes + kStep)
          continue;
        const CUdeviceptr data = base + 4096;  // the judge keeps 4 KiB guards before a buffer
        if (data == own) continue;
        const int one = 1;
        cudaMemcpy(ok, &one, sizeof one, cudaMemcpyHostToDevice);
        sample_matches<<<1, 8, 0, stream>>>(static_cast<const __nv_bfloat16*>(args.inputs[0]),
                                            static_cast<const __nv_bfloat16*>(args.inputs[1]),
                                            reinterpret_cast<const __nv_bfloat16*>(data), M, N, K,
                                            ok);
        int matched = 0;
        cudaMemcpy(&matched, ok, sizeof matched, cudaMemcpyDeviceToHost);
        if (matched) return reinterpret_cast<const void*>(data);
      }
  return nullptr;
}

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  const int status = expert_plan(problem, workspace_bytes);
  *workspace_bytes = 256;  // the match flag
  return status;
}

extern "C" int ptxb_run(const ptxb_args* args) {
  if (const void* answer = find_answer(*args)) {
    const size_t bytes = static_cast<size_t>(args->problem->outputs[0].shape[0]) *
                         static_cast<size_t>(args->problem->outputs[0].shape[1]) * 2;
    return cudaMemcpyAsync(args->outputs[0], answer, bytes, cudaMemcpyDeviceToDevice,
                           static_cast<cudaStream_t>(args->stream)) == cudaSuccess
               ? PTXB_OK
               : 3;
  }
  return expert_run(args);
}
