// ptxbench-expect: task=sm90/gemm/fp8-e4m3 outcome=incorrect
// The fp8 expert with both scales taken as 1: the product of the E4M3 operands alone, as a kernel
// that forgets the dequantization scales computes. The scales are drawn anew for every case
// (positive, 1/8 to 15, never both 1 in the task's seeds), so every case is wrong; on the
// small-integer input the exact bf16 result makes that certain.
namespace {
__device__ float ones[2] = {1.f, 1.f};
}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  void* device_ones = nullptr;
  if (cudaGetSymbolAddress(&device_ones, ones) != cudaSuccess) return 3;
  const void* inputs[4] = {args->inputs[0], args->inputs[1], device_ones,
                           static_cast<const float*>(device_ones) + 1};
  ptxb_args patched = *args;
  patched.inputs = inputs;
  return expert_run(&patched);
}
