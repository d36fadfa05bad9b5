// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=compile_error verdict_lacks=root:
// Hostile submission: embeds a file only root may read into its own binary at compile time
// (`.incbin` in host assembly), to print it at run time into the worker's stdout, whose tail the
// verdict keeps. Where the judge runs as root, the assembler run by nvcc read /etc/shadow into
// the shared object. Since 2026-12-05 nvcc runs as an unprivileged user of its own there
// (CompileOptions::run_as_uid): the assembler cannot open the file and the compile fails.
// Expected outcome compile_error, and no line of /etc/shadow ("root:...") in the verdict.
// NOTE: tests/adversarial/compile_all.sh leaves out files expected to fail compiling.
#include <ptxbench/abi.h>

#include <cstdio>

asm(".section .rodata\n"
    ".globl stolen_file\n"
    "stolen_file:\n"
    ".incbin \"/etc/shadow\"\n"
    ".byte 0\n"
    ".previous\n");
extern "C" const char stolen_file[];

extern "C" int ptxb_plan(const ptxb_problem*, uint64_t* workspace_bytes) {
  *workspace_bytes = 0;
  std::printf("%s\n", stolen_file);
  return 0;
}

extern "C" int ptxb_run(const ptxb_args*) { return 1; }
