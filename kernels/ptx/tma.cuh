// TMA and bulk copies, global -> shared, completing their bytes on an mbarrier
// (cp.async.bulk.tensor / cp.async.bulk with mbarrier::complete_tx::bytes). The caller arms the
// barrier with mbar_arrive_expect_tx for the bytes first. `map` is a CUtensorMap in global,
// constant or parameter space (a __grid_constant__ kernel parameter). And TMA stores and
// reductions, shared -> global, tracked as bulk groups of the issuing thread.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "ptx/smem.cuh"

// The box of a 1-D map at element `at` into `dst` (elements past the map's end read as zeros).
__device__ __forceinline__ void tma_load_1d(void* dst, const CUtensorMap* map, uint64_t* bar,
                                            int at) {
  asm volatile(
      "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3}], [%2];" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(at)
      : "memory");
}
// The box of a 2-D map at coordinates (inner, outer) into `dst`.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, uint64_t* bar,
                                            int inner, int outer) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(inner), "r"(outer)
      : "memory");
}
// The box of a 2-D map at (inner, outer) into `dst` of every CTA whose bit is set in `cta_mask`
// (bit i: its rank in the cluster); each CTA's bytes complete on its own mbarrier at `bar`'s
// offset.
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const CUtensorMap* map,
                                                      uint64_t* bar, int inner, int outer,
                                                      uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(inner), "r"(outer),
      "h"(cta_mask)
      : "memory");
}
// tma_load_2d with an L2 eviction policy for the box's lines (ptx/l2_policy.cuh).
__device__ __forceinline__ void tma_load_2d_hint(void* dst, const CUtensorMap* map, uint64_t* bar,
                                                 int inner, int outer, uint64_t policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".L2::cache_hint [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(inner), "r"(outer), "l"(policy)
      : "memory");
}
// The box of a 3-D map at coordinates (c0, c1, c2), innermost first, into `dst`.
__device__ __forceinline__ void tma_load_3d(void* dst, const CUtensorMap* map, uint64_t* bar,
                                            int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}
// A 1-D copy of `bytes` (a multiple of 16; both ends 16-byte aligned).
__device__ __forceinline__ void bulk_load(void* dst, const void* src, uint32_t bytes,
                                          uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(src)), "r"(bytes), "r"(smem_addr(bar))
      : "memory");
}
// Fetches the map's descriptor ahead of the first copy that uses it.
__device__ __forceinline__ void prefetch_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}
// The box of a 2-D map at coordinates (inner, outer) from `src` (written by this CTA's threads,
// then fence_proxy_async_shared and a barrier) to global memory; elements outside the map's
// bounds are not written. Joins the issuing thread's open bulk group.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* src, int inner,
                                             int outer) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(smem_addr(src)), "r"(inner), "r"(outer)
               : "memory");
}
// The box of a 3-D map at coordinates (c0, c1, c2), innermost first, from `src` (written as for
// tma_store_2d) added element-wise into global memory (in the map's type, e.g. fp32), each
// element's addition atomic; elements outside the map's bounds are skipped. Joins the issuing
// thread's open bulk group.
__device__ __forceinline__ void tma_reduce_add_3d(const CUtensorMap* map, const void* src, int c0,
                                                  int c1, int c2) {
  asm volatile(
      "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group"
      " [%0, {%2, %3, %4}], [%1];" ::"l"(reinterpret_cast<uint64_t>(map)),
      "r"(smem_addr(src)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}
// Closes the issuing thread's open bulk group (the stores since the last commit).
__device__ __forceinline__ void bulk_commit_group() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
// Waits until at most kPending of this thread's bulk groups are still under way (their global
// writes or reductions done and visible, their reads of shared memory too).
template <int kPending>
__device__ __forceinline__ void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(kPending) : "memory");
}
// Waits until at most kPending of this thread's bulk groups still read their shared memory (the
// source may then be overwritten, or the CTA exit); their global writes may still be under way.
template <int kPending>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(kPending) : "memory");
}
