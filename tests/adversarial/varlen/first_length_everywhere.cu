// ptxbench-expect: task=sm90/attention/fwd-varlen outcome=incorrect
// Reads one length only: the real variable-length expert, given offsets in which every sequence
// has the first sequence's length (cu_seqlens[b] = min(b * len_0, T), written to the workspace on
// the caller's stream), as a kernel that treats the ragged batch as a padded one of equal lengths
// would. Right only where every sequence has the first one's length.
// Caught by: correctness on every shape (each has sequences of other lengths; rows a fake batch
// leaves out stay NaN): `incorrect`.
namespace {

__global__ void first_length_everywhere(const int* cu_seqlens, int batch, int tokens, int* fake) {
  const int len0 = cu_seqlens[1] - cu_seqlens[0];
  for (int b = threadIdx.x; b <= batch; b += blockDim.x) fake[b] = min(b * len0, tokens);
}

// The expert's own workspace first, then the B+1 fake offsets.
uint64_t aligned(uint64_t bytes) { return (bytes + 255) / 256 * 256; }

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  const int status = expert_plan(problem, workspace_bytes);
  if (status != PTXB_OK) return status;
  *workspace_bytes = aligned(*workspace_bytes) + aligned(problem->inputs[3].shape[0] * sizeof(int));
  return PTXB_OK;
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const ptxb_problem& p = *args->problem;
  const uint64_t own = args->workspace_bytes - aligned(p.inputs[3].shape[0] * sizeof(int));
  int* fake = reinterpret_cast<int*>(static_cast<char*>(args->workspace) + own);
  first_length_everywhere<<<1, 256, 0, static_cast<cudaStream_t>(args->stream)>>>(
      static_cast<const int*>(args->inputs[3]), static_cast<int>(p.inputs[3].shape[0] - 1),
      static_cast<int>(p.inputs[0].shape[0]), fake);
  const void* inputs[4] = {args->inputs[0], args->inputs[1], args->inputs[2], fake};
  ptxb_args patched = *args;
  patched.inputs = inputs;
  patched.workspace_bytes = own;
  if (own == 0) patched.workspace = nullptr;
  return expert_run(&patched);
}
