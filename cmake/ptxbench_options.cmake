# Compiler flags shared by every PTXBench target.

# Harness kernels (references, comparison, L2 flush) are plain CUDA: build them for Hopper and
# Blackwell machine code and keep compute_90 PTX for anything newer.
set(PTXB_HARNESS_GENCODE
  "SHELL:-gencode arch=compute_90,code=sm_90"
  "SHELL:-gencode arch=compute_100,code=sm_100"
  "SHELL:-gencode arch=compute_90,code=compute_90")

function(ptxb_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Werror=return-type>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --expt-relaxed-constexpr>)
endfunction()
