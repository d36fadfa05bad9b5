// Stores into shared memory at 32-bit shared addresses (smem_addr), for kernels whose buffers sit
// behind generic pointers (an aligned view of dynamic shared memory), where plain C++ stores would
// be generic ones (ST.E, a 64-bit address per pointer): stmatrix for 16-bit fragments, st.shared.v2
// for pairs of floats.
#pragma once

#include <cstdint>

// Four 8x8 matrices of 16-bit elements (stmatrix .x4, warp-wide): matrix i from register ri of
// every lane (lane l holds row l / 4, elements 2 (l % 4) and 2 (l % 4) + 1, the layout of an mma
// or wgmma fragment), its row j (16 bytes, 16-byte aligned) at shared address `addr` of lane
// 8 i + j.
__device__ __forceinline__ void stmatrix_x4(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2,
                                            uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}
// Two floats at shared address `addr` (8-byte aligned).
__device__ __forceinline__ void st_shared_v2_f32(uint32_t addr, float a, float b) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(addr), "f"(a), "f"(b) : "memory");
}
// Four 32-bit words at shared address `addr` (16-byte aligned).
__device__ __forceinline__ void st_shared_v4_b32(uint32_t addr, uint32_t a, uint32_t b, uint32_t c,
                                                 uint32_t d) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(a), "r"(b), "r"(c),
               "r"(d)
               : "memory");
}
