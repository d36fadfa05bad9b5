// Named CTA barriers (bar.sync with an id and a thread count): a subset of the CTA's warps, e.g.
// one warpgroup, synchronizes without the others. Id 0 is __syncthreads; ids 1..15 are free for
// the caller to assign.
#pragma once

// Waits until kThreads threads (a multiple of 32) of the CTA have arrived at barrier `id`; the
// calling warp counts for its 32 threads. Orders this thread's memory accesses around it.
template <int kThreads>
__device__ __forceinline__ void named_barrier_sync(int id) {
  static_assert(kThreads > 0 && kThreads % 32 == 0, "whole warps");
  asm volatile("bar.sync %0, %1;" ::"r"(id), "n"(kThreads) : "memory");
}
