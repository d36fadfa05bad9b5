// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=low_instruction_share target=wgmma.mma_async
// Evidence cheat: the whole GEMM through wgmma into the workspace (FLOP share exactly 1.0) while a
// SIMT (FFMA) kernel computes C. Same in every call, so the counters agree; caught by counting all
// the arithmetic: FFMA does about 1.0 of the problem's FLOPs, far above the task's ceiling.
__device__ bool divert_to_simt() { return false; }

// ==== begin tests/adversarial/blocks/double_work_entry.inc (generated: scripts/amalgamate.py) ====
// The entry points of the "double work" evidence cheats: the expert's whole GEMM through wgmma
// into the workspace (a second C: FLOP share exactly 1.0), then C computed another way by
// `compute`. The expert's entry points, renamed expert_plan and expert_run by
// tests/adversarial/make_cheats.sh, come before. Hostile files hold a copy
// (scripts/amalgamate.py); they choose `compute`.

namespace double_work {

inline int plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  const int status = expert_plan(problem, workspace_bytes);
  *workspace_bytes = static_cast<uint64_t>(problem->outputs[0].shape[0]) *
                     static_cast<uint64_t>(problem->outputs[0].shape[1]) * 2;  // a second C
  return status;
}

inline int run(const ptxb_args* args, int (*compute)(const ptxb_args*)) {
  void* scratch_out[1] = {args->workspace};
  ptxb_args for_show = *args;
  for_show.outputs = scratch_out;
  const int status = expert_run(&for_show);
  return status != PTXB_OK ? status : compute(args);
}

}  // namespace double_work
// ==== end tests/adversarial/blocks/double_work_entry.inc ====

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return double_work::plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) { return double_work::run(args, simt::run); }
