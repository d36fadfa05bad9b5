// Blackwell tcgen05 wrappers (sm_100a, cta_group::1): tensor-memory allocation, the fences that
// order tcgen05 operations around thread synchronisation, the kind::f16 MMA with both operands
// in shared memory, its commit to an mbarrier, and TMEM -> register loads.
// NOTE: compiled and checked statically only: no sm_100a device has run these yet.
#pragma once

#include <cstdint>

#include "ptx/smem.cuh"

// ---- tensor memory management ----
// Warp-wide: writes the TMEM address of kColumns fresh columns to *dst (shared memory).
template <int kColumns>
__device__ __forceinline__ void tmem_alloc(uint32_t* dst) {
  static_assert(kColumns >= 32 && kColumns <= 512 && (kColumns & (kColumns - 1)) == 0);
  asm volatile(
      "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(smem_addr(dst)),
      "n"(kColumns)
      : "memory");
}
__device__ __forceinline__ void tmem_relinquish_alloc_permit() {
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
}
template <int kColumns>
__device__ __forceinline__ void tmem_dealloc(uint32_t taddr) {
  static_assert(kColumns >= 32 && kColumns <= 512 && (kColumns & (kColumns - 1)) == 0);
  asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "n"(kColumns)
               : "memory");
}
// Order tcgen05 operations before / after a thread synchronization (barrier, mbarrier wait).
__device__ __forceinline__ void tcgen05_fence_before_sync() {
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
}
__device__ __forceinline__ void tcgen05_fence_after_sync() {
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
}

// ---- MMA ----
// SM100 shared-memory descriptor for a K-major tile stored with the 128-byte swizzle:
// start address >> 4 (bits 0-13), leading byte offset (unused for swizzled K-major, 1),
// stride byte offset 1024 >> 4 (8 rows of 128 bytes, bits 32-45), version 0b001 (bits 46-48),
// base offset 0 (the tile starts on a 1024-byte boundary), swizzle 2 = 128B (bits 61-63).
__device__ __forceinline__ uint64_t tcgen05_desc_sw128(const void* p) {
  uint64_t desc = (smem_addr(p) & 0x3FFFF) >> 4;
  desc |= uint64_t(16 >> 4) << 16;
  desc |= uint64_t(1024 >> 4) << 32;
  desc |= uint64_t(1) << 46;
  desc |= uint64_t(2) << 61;
  return desc;
}

// D[tmem] (+)= A[smem] * B[smem]^T, one MMA of the shape in `idesc`, issued by this thread alone.
// accumulate == 0 overwrites D (first K slice of the tile).
__device__ __forceinline__ void tcgen05_mma_f16_ss(uint32_t d_tmem, uint64_t a_desc,
                                                   uint64_t b_desc, uint32_t idesc,
                                                   uint32_t accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
      "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}\n" ::"r"(d_tmem),
      "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate)
      : "memory");
}

// The mbarrier gets one arrival once every tcgen05 operation this thread issued so far is done.
__device__ __forceinline__ void tcgen05_commit(uint64_t* bar) {
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(
                   smem_addr(bar))
               : "memory");
}

// ---- TMEM -> registers ----
// Warp-wide: lane i reads 32 consecutive 32-bit columns of TMEM lane (taddr.lane + i).
__device__ __forceinline__ void tmem_load_32x32b_x32(uint32_t taddr, uint32_t (&r)[32]) {
  asm volatile(
      "tcgen05.ld.sync.aligned.32x32b.x32.b32 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]),
        "=r"(r[7]), "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]),
        "=r"(r[14]), "=r"(r[15]), "=r"(r[16]), "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]),
        "=r"(r[21]), "=r"(r[22]), "=r"(r[23]), "=r"(r[24]), "=r"(r[25]), "=r"(r[26]), "=r"(r[27]),
        "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
      : "r"(taddr)
      : "memory");
}
__device__ __forceinline__ void tmem_load_wait() {
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
}
