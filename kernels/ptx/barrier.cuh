// Named CTA barriers (bar.sync / bar.arrive with an id and a thread count): a subset of the CTA's
// warps, e.g. one warpgroup, synchronizes without the others. Id 0 is __syncthreads; ids 1..15
// are free for the caller to assign.
#pragma once

// Waits until kThreads threads (a multiple of 32) of the CTA have arrived at barrier `id`; the
// calling warp counts for its 32 threads. Orders this thread's memory accesses around it.
template <int kThreads>
__device__ __forceinline__ void named_barrier_sync(int id) {
  static_assert(kThreads > 0 && kThreads % 32 == 0, "whole warps");
  asm volatile("bar.sync %0, %1;" ::"r"(id), "n"(kThreads) : "memory");
}

// The same wait on barrier kId given as an immediate.
// NOTE: with a register id ptxas reserves all 16 barriers for the kernel, with an immediate only
// the ids it names.
template <int kId, int kThreads>
__device__ __forceinline__ void named_barrier_sync_immediate() {
  static_assert(kId >= 0 && kId < 16, "barrier ids 0..15");
  static_assert(kThreads > 0 && kThreads % 32 == 0, "whole warps");
  asm volatile("bar.sync %0, %1;" ::"n"(kId), "n"(kThreads) : "memory");
}

// Counts the calling warp as arrived at barrier `id` of kThreads threads and goes on without
// waiting: the signalling side of a producer/consumer hand-off whose other side calls
// named_barrier_sync with the same id and count.
template <int kThreads>
__device__ __forceinline__ void named_barrier_arrive(int id) {
  static_assert(kThreads > 0 && kThreads % 32 == 0, "whole warps");
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "n"(kThreads) : "memory");
}
