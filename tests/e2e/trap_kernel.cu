// Hostile fixture: the kernel executes `trap`. Expected outcome: crashed, and the next
// evaluation in the same run still works.
#include <ptxbench/abi.h>

__global__ void trap_kernel() { asm volatile("trap;"); }

extern "C" int ptxb_run(const ptxb_args* args) {
  trap_kernel<<<1, 32, 0, static_cast<cudaStream_t>(args->stream)>>>();
  return 0;
}
