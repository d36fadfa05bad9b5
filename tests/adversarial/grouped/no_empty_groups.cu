// ptxbench-expect: task=sm90/gemm/bf16-grouped outcome=incorrect
// Assumes no group is empty: the real grouped expert, given offsets in which every group holds at
// least one row (off'[g+1] = max(off[g+1], off'[g] + 1), capped at M), as a kernel that schedules
// at least one row block per group computes: an empty group takes the next group's first row and
// multiplies it by the wrong weight, and the rows after it shift. Right when no group is empty.
// Caught by: the drawn offsets leave about one group in eight empty: `incorrect`.
namespace {

__global__ void at_least_one_row(const int* offsets, int groups, int* fake) {
  if (threadIdx.x != 0) return;
  const int m = offsets[groups];
  int end = 0;
  fake[0] = 0;
  for (int g = 0; g < groups; ++g) {
    end = min(max(offsets[g + 1], end + 1), m);
    fake[g + 1] = g + 1 == groups ? m : end;
  }
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
    at_least_one_row<<<1, 32, 0, stream>>>(offsets, groups, fake);
  });
}
