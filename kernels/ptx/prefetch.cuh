// Software prefetch of global memory into the L2 cache: a hint, no data reaches the SM and no
// result is waited for.
#pragma once

#include <cstdint>

// Asks for the 128-byte line of global memory holding `p` to be brought into L2.
__device__ __forceinline__ void prefetch_l2(const void* p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}
