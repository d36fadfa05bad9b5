// L2 eviction policies (createpolicy) for the .L2::cache_hint forms of loads and stores: lines
// touched under evict_first are the first L2 gives up when it needs room, evict_last the last.
// E.g. a stream read once (evict_first) beside data read again soon (evict_last).
#pragma once

#include <cstdint>

__device__ __forceinline__ uint64_t l2_policy_evict_first() {
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}
__device__ __forceinline__ uint64_t l2_policy_evict_last() {
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}
// Two floats to global memory (8-byte aligned) under an L2 policy.
__device__ __forceinline__ void st_global_f32x2_hint(float* dst, float x, float y,
                                                     uint64_t policy) {
  asm volatile("st.global.L2::cache_hint.v2.f32 [%0], {%1, %2}, %3;" ::"l"(dst), "f"(x), "f"(y),
               "l"(policy)
               : "memory");
}
