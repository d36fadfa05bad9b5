// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=compile_error verdict_lacks=root:
// Hostile submission: reads a file only root may read through the compiler. The source includes
// /etc/shadow, whose lines start with a user name ("root:..."). Where the judge runs as root (as
// it must to drop its workers to a user of their own), nvcc read the file, and the errors it
// raised on its lines quoted them into the compile log, which the verdict, the service's answer
// and the model's feedback carry. Since 2026-12-05 nvcc runs as an unprivileged user of its own
// there (CompileOptions::run_as_uid, PTXBENCH_COMPILE_UID, default 60999): the include fails with
// "Permission denied" and no line of the file reaches the verdict. Expected outcome compile_error.
// NOTE: tests/adversarial/compile_all.sh leaves out files expected to fail compiling.
#include "/etc/shadow"
