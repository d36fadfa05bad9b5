// ptxbench-expect: task=sm90/gemm/bf16-grouped outcome=incorrect
// Ignores the offsets of all but the first group: the real grouped expert, given offsets that put
// every row in group 0 ([0, M, M, ..., M], written to the workspace on the caller's stream), so
// every row is multiplied by the first expert's weight, as a kernel that reads off[0] and off[G]
// only would compute. Right only where group 0 holds every row.
// Caught by: correctness on every shape with rows outside group 0: `incorrect`.
namespace {

__global__ void one_group(const int* offsets, int groups, int* fake) {
  const int m = offsets[groups];
  for (int g = threadIdx.x; g <= groups; g += blockDim.x) fake[g] = g == 0 ? 0 : m;
}

// ==== begin tests/adversarial/blocks/grouped_offsets_patch.inc (generated: scripts/amalgamate.py)
// ==== The frame of a hostile grouped-GEMM submission that hands the real expert other group
// offsets: the expert's workspace plus room for G+1 offsets, which `write` (a kernel launcher:
// offsets, groups, destination, stream) fills on the caller's stream before the expert runs on
// them. Hostile files hold a copy (scripts/amalgamate.py); the attack is the `write` they pass.
uint64_t offsets_bytes(int64_t groups) { return ((groups + 1) * sizeof(int) + 255) / 256 * 256; }

int plan_with_offsets(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  const int status = expert_plan(problem, workspace_bytes);
  if (status == PTXB_OK) *workspace_bytes += offsets_bytes(problem->inputs[1].shape[0]);
  return status;
}

template <typename Write>
int run_with_offsets(const ptxb_args* args, Write write) {
  const int64_t groups = args->problem->inputs[1].shape[0];
  const uint64_t own = offsets_bytes(groups);
  if (args->workspace_bytes < own) return 1;
  int* fake = static_cast<int*>(args->workspace);
  write(static_cast<const int*>(args->inputs[2]), static_cast<int>(groups), fake,
        static_cast<cudaStream_t>(args->stream));
  const void* inputs[3] = {args->inputs[0], args->inputs[1], fake};
  ptxb_args patched = *args;
  patched.inputs = inputs;
  patched.workspace = static_cast<uint8_t*>(args->workspace) + own;
  patched.workspace_bytes = args->workspace_bytes - own;
  return expert_run(&patched);
}
// ==== end tests/adversarial/blocks/grouped_offsets_patch.inc ====

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return plan_with_offsets(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  return run_with_offsets(args, [](const int* offsets, int groups, int* fake, cudaStream_t stream) {
    one_group<<<1, 256, 0, stream>>>(offsets, groups, fake);
  });
}
