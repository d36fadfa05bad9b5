// Thread-block clusters (sm_90): this CTA's rank in its cluster, the cluster-wide barrier, an
// mbarrier arrive on another CTA's barrier and reads of another CTA's shared memory (the TMA load
// multicast into several CTAs is in ptx/tma.cuh). Peers address each other's shared memory at the
// same offsets (the kernel's layout).
#pragma once

#include <cstdint>

#include "ptx/smem.cuh"

__device__ __forceinline__ uint32_t cluster_ctarank() {
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}
// Every thread of every CTA of the cluster arrives (release) and waits (acquire): mbarrier inits
// and shared-memory writes before it are visible to the peers after it.
__device__ __forceinline__ void cluster_sync() {
  asm volatile(
      "barrier.cluster.arrive.release.aligned;\n"
      "barrier.cluster.wait.acquire.aligned;" ::
          : "memory");
}
// Arrives on the mbarrier at `bar`'s offset in CTA `cta` of the cluster (this CTA's own rank
// included), with the default semantics (release, CTA scope). For releasing a stage whose reads
// have completed (wgmma.wait_group): the peer's later TMA write is a write after a finished read,
// which needs no cluster-scope fence. NOTE: `.release.cluster` compiles to MEMBAR.ALL.CTA and
// MEMBAR.ALL.GPU before every arrive; in the 2-CTA GEMM that was 59% of the stall cycles (ncu,
// bench/results/2026-12-03d-h200-session-846c033) and the kernel ran at half speed.
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t* bar, uint32_t cta) {
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(smem_addr(bar)),
      "r"(cta)
      : "memory");
}
// Two floats at `local`'s offset in the shared memory of CTA `cta` of the cluster (8-byte
// aligned), read after a cluster barrier that ordered their writes.
__device__ __forceinline__ void ld_shared_cluster_f32x2(const void* local, uint32_t cta, float& x,
                                                        float& y) {
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %2, %3;\n"
      "ld.shared::cluster.v2.f32 {%0, %1}, [remote];\n}"
      : "=f"(x), "=f"(y)
      : "r"(smem_addr(local)), "r"(cta)
      : "memory");
}
