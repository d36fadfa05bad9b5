// ptxbench-expect: task=sm90/gemm/fp8-blockwise outcome=incorrect
// ptxbench-base: kernels/reference/sm90_gemm_fp8_blockwise.cu
// One scale per tensor in the block-scaled task: the real blockwise expert, given scale tensors of
// the right shapes whose every element is the first block's scale (filled in the workspace on the
// caller's stream), as a kernel that reads one scale per operand would compute. The task draws a
// new factor per block (1/8 to 15), so every output that spans more than one block is wrong.
// Caught by: correctness on every shape with more than one block of K or of N: `incorrect`.
namespace {

__global__ void fill_first(const float* src, float* dst, int64_t n) {
  const float first = src[0];
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x)
    dst[i] = first;
}

int64_t elements(const ptxb_tensor_desc& d) {
  int64_t n = 1;
  for (int i = 0; i < d.rank; ++i) n *= d.shape[i];
  return n;
}

// Workspace bytes of the two flattened scale tensors, each rounded up to 256 bytes.
uint64_t scale_bytes(const ptxb_problem& p) {
  return (static_cast<uint64_t>(elements(p.inputs[2])) * 4 + 255) / 256 * 256 +
         (static_cast<uint64_t>(elements(p.inputs[3])) * 4 + 255) / 256 * 256;
}

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  const int status = expert_plan(problem, workspace_bytes);
  if (status == PTXB_OK && problem->num_inputs == 4) *workspace_bytes += scale_bytes(*problem);
  return status;
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const ptxb_problem& p = *args->problem;
  if (p.num_inputs != 4) return expert_run(args);
  const uint64_t own = scale_bytes(p);
  if (args->workspace_bytes < own) return 1;
  const auto stream = static_cast<cudaStream_t>(args->stream);
  float* flat_a = static_cast<float*>(args->workspace);
  float* flat_b = flat_a + (elements(p.inputs[2]) * 4 + 255) / 256 * 64;
  fill_first<<<64, 256, 0, stream>>>(static_cast<const float*>(args->inputs[2]), flat_a,
                                     elements(p.inputs[2]));
  fill_first<<<8, 256, 0, stream>>>(static_cast<const float*>(args->inputs[3]), flat_b,
                                    elements(p.inputs[3]));
  const void* inputs[4] = {args->inputs[0], args->inputs[1], flat_a, flat_b};
  ptxb_args patched = *args;
  patched.inputs = inputs;
  patched.workspace = static_cast<uint8_t*>(args->workspace) + own;
  patched.workspace_bytes = args->workspace_bytes - own;
  return expert_run(&patched);
}
