// Ampere-style asynchronous copies, global -> shared, 16 bytes per thread (cp.async.cg), grouped
// with commit_group and waited for with wait_group, or signalled on an mbarrier.
#pragma once

#include <cstdint>

#include "ptx/smem.cuh"

// Copies 16 bytes; the bytes past `src_bytes` (0 or 16) are zero-filled.
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, uint32_t src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem_addr(dst)), "l"(src),
               "r"(src_bytes)
               : "memory");
}
// Copies 16 bytes, all of them from `src` (no source size operand: nothing to zero-fill).
__device__ __forceinline__ void cp_async_16_full(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_addr(dst)), "l"(src)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
// One arrival on the mbarrier at `bar` once every cp.async this thread issued before has
// completed (.noinc: the barrier's count includes this arrival).
__device__ __forceinline__ void cp_async_mbar_arrive_noinc(uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem_addr(bar))
               : "memory");
}
// Waits until at most kPending committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory");
}
