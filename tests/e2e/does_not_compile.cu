// Broken fixture: a syntax error. Expected outcome: compile_error with the nvcc log.
#include <ptxbench/abi.h>

extern "C" int ptxb_run(const ptxb_args* args) { return undeclared_variable + ; }
