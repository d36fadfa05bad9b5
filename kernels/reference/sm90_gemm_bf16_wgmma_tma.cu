// Expert solution for sm90/gemm/bf16-wgmma-tma: C[M,N] = A[M,K] * B[N,K]^T with bf16 inputs,
// fp32 accumulation and bf16 output (all row-major, B K-major).
//
// Design (written for PTXBench from the public description of warp-specialized Hopper GEMMs):
// - 128x256 output tiles, 384 threads = 3 warpgroups; persistent: one CTA per SM takes tiles
//   c, c + gridDim.x, ... and the mbarrier ring runs on from tile to tile, so the producer loads
//   the next tile while the consumers store the last;
// - warpgroup 0 is the producer: one thread streams (128x64) A and (256x64) B tiles with TMA
//   (cp.async.bulk.tensor, 128-byte swizzle) into a kStages-deep shared-memory ring; each stage
//   has a `full` mbarrier (TMA transaction bytes) and an `empty` mbarrier (consumer release);
// - warpgroups 1 and 2 are consumers: each owns a 64x256 half of the tile and issues four
//   wgmma.mma_async m64n256k16 per stage, keeping one wgmma group in flight;
// - setmaxnreg moves registers from the producer (40) to the consumers (232);
// - tiles are visited in groups of kGroupM tile rows so that B tiles stay in L2;
// - epilogue: each consumer rounds its half tile to bf16 into a staging buffer of its own
//   (64x128, 16 KB: two passes per tile, so that 4 stages still fit) as two 64x64 boxes with the
//   128-byte swizzle (conflict-free writes) and one thread stores them with TMA
//   (cp.async.bulk.tensor, full 128-byte lines), waiting before each pass until the previous
//   stores have read the staging; stores from registers remain for an N without a 16-byte row
//   pitch;
// - edges: TMA zero-fills out-of-bounds rows and the K tail, and clips the stored boxes;
// - the persistent grid: with 8 full waves of tiles or more the last, partial wave is spread over
//   every CTA (stream-K, kStreamKTail); with fewer, the fewest CTAs that still take the tiles in
//   as many rounds (kBalancedWaves: 4096^3's 512 tiles on 128 CTAs of 4 each, not 132);
// - split-K when the output tiles fill less than half the SMs (few rows, e.g. 128x8192x8192: 32
//   tiles on 132 SMs): work units (tile, split) write fp32 partial tiles into the workspace and a
//   second kernel sums them in split order (deterministic) into bf16 C, launched as a
//   programmatic dependent of the first (griddepcontrol) so that its launch overlaps the GEMM;
// - except where M is one nearly full tile row whose 128x64 tiles fill most SMs (128x8192x8192:
//   128 tiles): there a second kernel takes narrow whole-K tiles, one per CTA, 8 stages of
//   (128x64) A and (64x64) B with B's boxes loaded evict_first, wgmma m64n64k16, stores from
//   registers: no partials, no second kernel (plan_narrow says where; 0.87 -> 1.05 of cuBLASLt);
// - knobs measured by bench/gemm_dev/variants.sh (docs/tasks.md has the numbers): kPersistent
//   (on), kOwnStaging (on) and kStagingCols, kClusterM = 2 (CTA pairs along M sharing the B tile
//   through TMA multicast; off: slower as written) and kSplitCluster (the K splits of a tile as
//   one cluster, summed through distributed shared memory; off). Split-K partials stored by TMA
//   (removed after 7b56920), split-K summed by the tile's last split (removed after 3ce8fec) and
//   by every split of a tile after waiting for the others (bench/results/2026-12-03e-*, call 3)
//   were measured too and lost. kTailFixup (the stream-K tail's shared tiles summed in this
//   kernel by their last CTA instead of by reduce_tail) and kTailFirst (a CTA's tail pieces
//   before its whole tiles): off, not yet measured.
// Requirements checked by ptxb_run: K % 8 == 0 (16-byte row pitch for TMA), 16-byte aligned
// pointers, contiguous row-major tensors.
// NOTE: a submission is one self-contained file (docs/abi.md): the PTX wrappers below are copies
// of kernels/ptx/ files, kept equal to them by scripts/amalgamate.py.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

// ==== begin kernels/ptx/smem.cuh (generated: scripts/amalgamate.py) ====
// Shared-memory addresses as PTX instructions take them (the 32-bit offset in the shared window),
// and the fence between the generic and the async proxy's view of shared memory.

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
// Orders this thread's generic-proxy accesses of shared memory (plain stores, cp.async, an
// mbarrier.init) before later async-proxy accesses (wgmma operand reads, TMA, bulk copies).
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
// A float of shared memory at generic address p by ld.shared, where the compiler cannot see that
// p is shared (it would emit a generic load). Volatile, with a memory clobber: it stays after the
// mbarrier wait that makes the value visible.
__device__ __forceinline__ float ld_shared_f32(const void* p) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(smem_addr(p)) : "memory");
  return v;
}
// Stores 32 bits at shared-memory address `addr` (smem_addr) by st.shared, where a store through
// a generic pointer would take a generic store (ST.E: a 64-bit address register per pointer).
__device__ __forceinline__ void st_shared_b32(uint32_t addr, uint32_t v) {
  asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
// ==== end kernels/ptx/smem.cuh ====
// ==== begin kernels/ptx/cluster.cuh (generated: scripts/amalgamate.py) ====
// Thread-block clusters (sm_90): this CTA's rank in its cluster, the cluster-wide barrier, an
// mbarrier arrive on another CTA's barrier and reads of another CTA's shared memory (the TMA load
// multicast into several CTAs is in ptx/tma.cuh). Peers address each other's shared memory at the
// same offsets (the kernel's layout).

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
// ==== end kernels/ptx/cluster.cuh ====
// ==== begin kernels/ptx/l2_policy.cuh (generated: scripts/amalgamate.py) ====
// L2 eviction policies (createpolicy) for the .L2::cache_hint forms of loads and stores: lines
// touched under evict_first are the first L2 gives up when it needs room, evict_last the last.
// E.g. a stream read once (evict_first) beside data read again soon (evict_last).

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
// ==== end kernels/ptx/l2_policy.cuh ====
// ==== begin kernels/ptx/mbarrier.cuh (generated: scripts/amalgamate.py) ====
// mbarrier (shared::cta, 64-bit) wrappers: init, arrive, arrive with an expected transaction
// byte count (TMA and bulk copies complete those bytes), and the parity wait (try_wait in a
// loop). The barrier lives in shared memory; `parity` is the phase's parity (0, 1, 0, ...).

__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count));
}
// Releases this thread's mbarrier.init to the other threads of the cluster (before the barrier
// that publishes it; TMA signalling the barrier also needs fence_proxy_async_shared).
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
               "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}
// One try: true once the phase with `parity` has completed (the hardware may suspend the thread
// for a while before answering false). `addr` is smem_addr(bar).
__device__ __forceinline__ bool mbar_try_wait(uint32_t addr, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(addr), "r"(parity)
      : "memory");
  return done != 0;
}
// Spins until the phase with `parity` has completed.
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  const uint32_t addr = smem_addr(bar);
  while (!mbar_try_wait(addr, parity)) {
  }
}
// ==== end kernels/ptx/mbarrier.cuh ====
// ==== begin kernels/ptx/tma.cuh (generated: scripts/amalgamate.py) ====
// TMA and bulk copies, global -> shared, completing their bytes on an mbarrier
// (cp.async.bulk.tensor / cp.async.bulk with mbarrier::complete_tx::bytes). The caller arms the
// barrier with mbar_arrive_expect_tx for the bytes first. `map` is a CUtensorMap in global,
// constant or parameter space (a __grid_constant__ kernel parameter). And TMA stores and
// reductions, shared -> global, tracked as bulk groups of the issuing thread.

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
// ==== end kernels/ptx/tma.cuh ====
// ==== begin kernels/ptx/setmaxnreg.cuh (generated: scripts/amalgamate.py) ====
// Warpgroup register reallocation (setmaxnreg): producers give registers up, consumers take them.
// Every thread of the warpgroup executes it; kRegs is the new per-thread count.

template <int kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(kRegs >= 24 && kRegs <= 256 && kRegs % 8 == 0, "setmaxnreg register count");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegs));
}
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(kRegs >= 24 && kRegs <= 256 && kRegs % 8 == 0, "setmaxnreg register count");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegs));
}
// ==== end kernels/ptx/setmaxnreg.cuh ====
// ==== begin kernels/ptx/wgmma.cuh (generated: scripts/amalgamate.py) ====
// Hopper warpgroup MMA plumbing: the warpgroup index, shared-memory matrix descriptors, fence /
// commit / wait, and the register fence that keeps the compiler from moving accumulator accesses
// across an asynchronous wgmma. The mma_async instructions themselves are written where they are
// used (one form per tile shape and operand source).

// The calling thread's warpgroup (128 consecutive threads of the block), read from lane 0.
// NOTE: threadIdx.x / 128 is the same in every lane of a warp, but ptxas does not know it; read
// through shfl.sync it is known warp-uniform, and what derives from it (shared-memory offsets,
// descriptors, barrier addresses) stays in uniform registers: fewer instructions in the
// consumers' loops (2-5% faster fp8 GEMM and attention backward experts on an H100). Call it with
// every lane of the warp active.
__device__ __forceinline__ int warpgroup_index() {
  return __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);
}

// Descriptor of a tile stored with the 128-byte swizzle: start address, leading byte offset
// (LBO) and stride byte offset (SBO), each encoded as (bytes & 0x3FFFF) >> 4; swizzle mode 1.
// K-major tiles: LBO is unused (16), SBO = 1024 (8 rows of 128 bytes).
__device__ __forceinline__ uint64_t wgmma_desc_sw128(const void* p, uint32_t lbo, uint32_t sbo) {
  uint64_t desc = (smem_addr(p) & 0x3FFFF) >> 4;
  desc |= uint64_t((lbo & 0x3FFFF) >> 4) << 16;
  desc |= uint64_t((sbo & 0x3FFFF) >> 4) << 32;
  desc |= uint64_t(1) << 62;  // 128-byte swizzle
  return desc;
}
// `desc` with its start address `bytes` further (a multiple of 16): the k-slices of a tile take
// the first slice's descriptor plus their offset instead of a descriptor formed from each address
// (a mask, a shift and an or each). The start address field (bits 0-13, in 16-byte units) cannot
// carry into the next field: every shared-memory address lies below 256 KB.
__device__ __forceinline__ uint64_t wgmma_desc_advance(uint64_t desc, uint32_t bytes) {
  return desc + (bytes >> 4);
}
// The descriptor of the k-slice `bytes` into a K-major 128-byte-swizzled tile (LBO 16, SBO 1024),
// whose own descriptor is `tile_desc`: stepped from it (kStep) or formed from the slice's address.
// The GEMM experts' consumers take one of the two forms by a knob (kStepDescriptors).
template <bool kStep>
__device__ __forceinline__ uint64_t wgmma_desc_sw128_slice(const void* tile, uint64_t tile_desc,
                                                           uint32_t bytes) {
  if constexpr (kStep) return wgmma_desc_advance(tile_desc, bytes);
  return wgmma_desc_sw128(static_cast<const uint8_t*>(tile) + bytes, 16, 1024);
}
// Descriptor of an unswizzled tile of 8x16-byte core matrices, LBO and SBO as above.
__device__ __forceinline__ uint64_t wgmma_desc_interleaved(const void* p, uint32_t lbo,
                                                           uint32_t sbo) {
  uint64_t desc = (smem_addr(p) & 0x3FFFF) >> 4;
  desc |= uint64_t((lbo & 0x3FFFF) >> 4) << 16;
  desc |= uint64_t((sbo & 0x3FFFF) >> 4) << 32;
  return desc;  // base offset 0, no swizzle
}
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
// Waits until at most kPending committed wgmma groups are still in flight.
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
}
// Ties registers to this point of the program: the compiler may not move their reads above a
// preceding wgmma.wait_group nor their writes below a following wgmma.
template <int kN>
__device__ __forceinline__ void fence_regs(float (&r)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(r[i])::"memory");
}
template <int kN>
__device__ __forceinline__ void fence_regs(uint32_t (&r)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+r"(r[i])::"memory");
}
// ==== end kernels/ptx/wgmma.cuh ====
// ==== begin kernels/ptx/tensor_map.cuh (generated: scripts/amalgamate.py) ====
// Host side of TMA: the driver's tensor-map encoder, reached through the CUDA runtime (a
// submission links only the runtime, docs/abi.md). nullptr when the driver does not offer it.

inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault,
                                         &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
      return static_cast<PFN_cuTensorMapEncodeTiled_v12000>(nullptr);
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(entry);
  }();
  return fn;
}
// ==== end kernels/ptx/tensor_map.cuh ====
// ==== begin kernels/ptx/barrier.cuh (generated: scripts/amalgamate.py) ====
// Named CTA barriers (bar.sync / bar.arrive with an id and a thread count): a subset of the CTA's
// warps, e.g. one warpgroup, synchronizes without the others. Id 0 is __syncthreads; ids 1..15
// are free for the caller to assign.

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
// ==== end kernels/ptx/barrier.cuh ====
// ==== begin kernels/gemm/sm90_tma_store_tile.cuh (generated: scripts/amalgamate.py) ====
// The TMA-store epilogue of the GEMM experts: a consumer warpgroup's (64, kTileCols) fp32
// accumulator tile (wgmma's D fragment: row warp*16 + lane/4 (+8), columns 8i + 2(lane%4) (+1)),
// optionally times a scale, rounded to bf16, as kTileCols / 64 boxes of 64 rows by 64 columns
// (8 KB, 128-byte swizzle: the writes hit 32 distinct banks per warp), staged in shared memory
// only this consumer warpgroup touches and stored through `map_c` (box {64, 64}:
// encode_c_store), which clips rows >= M and columns >= N. The tile goes out in kTileCols / kCols
// passes of kCols columns (a multiple of 64), each through one of kBuffers buffers of the staging
// in turn (kBuffers * kCols columns; box j at staging + j * box_stride, 1024-byte aligned). Before
// a pass writes its buffer, thread 0 of the warpgroup waits until the store that last read it
// has (at most kBuffers - 1 later store groups still reading): with two buffers a pass's writes
// overlap the previous pass's store. The last stores are left reading (bulk_wait_group_read
// before the staging is reused or the CTA exits). Named barrier 2 + consumer.

namespace {

constexpr int kStoreBoxCols = 64;
// Whether the staging is written by st.shared at 32-bit shared addresses instead of through a
// generic pointer (ST.E with 64-bit addresses: ptxas does not see that the staging is shared).
// With the uniform warpgroup index the generic form made ptxas spill 8 bytes in the block-scaled
// fp8 kernel; this form does not. Measured together with the index and stepped descriptors, not
// apart (H100, kernels alone, one run, bench/results/2026-12-05h-h100-session call 3): block-scaled
// 119.4 / 879.1 us before both, 113.0 / 830.8 with generic stores (the spill), 114.1 / 863.6 with
// these at 4096^3 / 8192^3; variants `*_generic_staging` (bench/gemm_dev/variants.sh) turn it off.
constexpr bool kStagingStoresShared = true;

// One pass: columns [kPass * kCols, (kPass + 1) * kCols) of the tile, through buffer
// kPass % kBuffers.
// NOTE: a template per pass, not a loop over passes: with a loop ptxas kept d in local memory.
template <int kTileCols, int kCols, bool kScaled, int kBuffers, int kPass>
__device__ __forceinline__ void store_pass_tma(const float (&d)[kTileCols / 2], float scale,
                                               uint8_t* staging_base, uint32_t box_stride,
                                               const CUtensorMap* map_c, int consumer, int row0,
                                               int n0) {
  const int warp = (threadIdx.x / 32) % 4;
  const int lane = threadIdx.x % 32;
  const bool leader = threadIdx.x % 128 == 0;
  uint8_t* staging = staging_base + (kPass % kBuffers) * (kCols / kStoreBoxCols) * box_stride;
  if (leader) bulk_wait_group_read<kBuffers - 1>();
  named_barrier_sync<128>(2 + consumer);
#pragma unroll
  for (int c = 0; c < kCols / 8; ++c) {
    const int i = kPass * kCols / 8 + c;  // the accumulator's columns 8 i .. 8 i + 7
    uint8_t* box = staging + (c / 8) * box_stride;
    const int chunk = c % 8;  // 16-byte chunk of the box row
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = warp * 16 + lane / 4 + half * 8;
      const uint32_t offset = r * 128 + ((chunk ^ (r % 8)) * 16) + (lane % 4) * 4;
      float v0 = d[i * 4 + half * 2], v1 = d[i * 4 + half * 2 + 1];
      if constexpr (kScaled) v0 *= scale, v1 *= scale;
      const __nv_bfloat162 pair = __floats2bfloat162_rn(v0, v1);
      if constexpr (kStagingStoresShared)
        st_shared_b32(smem_addr(box) + offset, *reinterpret_cast<const uint32_t*>(&pair));
      else
        *reinterpret_cast<__nv_bfloat162*>(box + offset) = pair;
    }
  }
  fence_proxy_async_shared();
  named_barrier_sync<128>(2 + consumer);
  if (leader) {
#pragma unroll
    for (int j = 0; j < kCols / kStoreBoxCols; ++j)
      tma_store_2d(map_c, staging + j * box_stride, n0 + kPass * kCols + j * kStoreBoxCols, row0);
    bulk_commit_group();
  }
}

template <int kTileCols, int kCols, bool kScaled, int kBuffers, int... kPasses>
__device__ __forceinline__ void store_passes_tma(const float (&d)[kTileCols / 2], float scale,
                                                 uint8_t* staging, uint32_t box_stride,
                                                 const CUtensorMap* map_c, int consumer, int row0,
                                                 int n0, std::integer_sequence<int, kPasses...>) {
  (store_pass_tma<kTileCols, kCols, kScaled, kBuffers, kPasses>(d, scale, staging, box_stride,
                                                                map_c, consumer, row0, n0),
   ...);
}

// The whole tile; `scale` multiplies every value when kScaled (else it is not read).
template <int kTileCols, int kCols, bool kScaled = false, int kBuffers = 1>
__device__ __forceinline__ void store_tile_tma(const float (&d)[kTileCols / 2], float scale,
                                               uint8_t* staging, uint32_t box_stride,
                                               const CUtensorMap* map_c, int consumer, int row0,
                                               int n0) {
  static_assert(kCols % kStoreBoxCols == 0 && kTileCols % kCols == 0, "whole boxes, passes");
  static_assert(kBuffers >= 1 && kBuffers <= 8, "bulk_wait_group_read's immediate");
  store_passes_tma<kTileCols, kCols, kScaled, kBuffers>(
      d, scale, staging, box_stride, map_c, consumer, row0, n0,
      std::make_integer_sequence<int, kTileCols / kCols>{});
}

// A row-major (rows, cols) bf16 matrix written in (64, kStoreBoxCols) boxes with the 128-byte
// swizzle (store_tile_tma). Needs cols % 8 == 0 (16-byte row pitch) and a 16-byte aligned ptr.
bool encode_c_store(CUtensorMap* map, void* ptr, int64_t rows, int64_t cols) {
  auto encode = tensor_map_encoder();
  if (encode == nullptr || cols % 8 != 0 || reinterpret_cast<uintptr_t>(ptr) % 16 != 0)
    return false;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols) * 2};
  const cuuint32_t box[2] = {kStoreBoxCols, 64};
  const cuuint32_t element_strides[2] = {1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, ptr, dims, strides, box, element_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

}  // namespace
// ==== end kernels/gemm/sm90_tma_store_tile.cuh ====

// ==== begin kernels/gemm/sm90_gemm_bf16_ws_ring.cuh (generated: scripts/amalgamate.py) ====
// The ring of the warp-specialized wgmma bf16 GEMMs of the expert solutions (C = A * B^T, bf16
// in, fp32 accumulation, bf16 out, row-major, B K-major), whatever fills it: the tile's shared
// memory, the full/empty mbarriers, the consumer warpgroups and their epilogues. The TMA producer
// (gemm/sm90_gemm_bf16_tma_ws.cuh) and the cp.async one (gemm/sm90_gemm_bf16_cp_async_ws.cuh)
// fill it. Experts hold a copy (scripts/amalgamate.py); their header comments describe the design.
// Pieces an expert may not use (the grouped one: split-K's constant, the raster, gemm_dims) are
// [[maybe_unused]].

namespace {

constexpr int kBlockM = 128;
constexpr int kBlockN = 256;
constexpr int kBlockK = 64;  // 64 bf16 = 128 bytes: one row of the 128-byte swizzle pattern
constexpr int kStages = 4;
constexpr int kConsumers = 2;  // consumer warpgroups, each (64, kBlockN)
// CTAs per cluster along M: 1, or 2 for a pair computing tiles (m0, n0) and (m0 + kBlockM, n0).
// Each CTA of a pair loads its own A tile and one half of the shared B tile, multicast into both
// CTAs' shared memory; a stage goes back to the producers when the consumers of both CTAs have
// released it (every consumer warp arrives on both CTAs' `empty` barrier).
constexpr int kClusterM = 1;
static_assert(kClusterM == 1 || kClusterM == 2, "clusters of 1 or 2 CTAs along M");
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kGroupM = 16;  // tile rows visited together for L2 reuse of B
// Split-K for shapes with fewer tiles than half the SMs (few rows): each split at least this many
// k-blocks, partial fp32 tiles in the workspace, summed in a fixed order by a second kernel.
[[maybe_unused]] constexpr int kMinKBlocksPerSplit = 8;

// Whether the TMA-store epilogue (store_tile_tma) stages in shared memory of its own, (64,
// kStagingCols) bf16 per consumer, instead of the A stages: needed by CTAs that loop over tiles
// (the producer refills the stages meanwhile). kStagingCols = kBlockN stages a consumer's tile
// at once (32 KB each: fits with 3 stages, not 4); kBlockN / 2 in two passes (16 KB: fits with 4).
constexpr bool kOwnStaging = true;
constexpr int kStagingCols = kBlockN / 2;
constexpr uint32_t kStagingBytes = 64 * kStagingCols * 2;  // a consumer's staging

struct SharedStorage {
  __nv_bfloat16 a[kStages][kBlockM * kBlockK];  // (kBlockM, kBlockK) per stage, swizzled
  __nv_bfloat16 b[kStages][kBlockN * kBlockK];  // (kBlockN, kBlockK) per stage, swizzled
  // NOTE: 1024-byte aligned as the stages before it; 16 bytes when unused.
  uint8_t staging[kOwnStaging ? kConsumers * kStagingBytes : 16];
  uint64_t full[kStages];
  uint64_t empty[kStages];
};
// NOTE: +1024 so the kernel can align the dynamic shared-memory base to the swizzle atom.
constexpr size_t kSharedBytes = sizeof(SharedStorage) + 1024;
static_assert(kSharedBytes <= 227 * 1024, "sm_90's opt-in shared memory per block");

// wgmma m64n256k16, bf16 x bf16 -> f32, A and B from shared memory (K-major).
// Accumulates into d (128 floats per thread) when scale_d != 0, overwrites it when 0.
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t desc_a, uint64_t desc_b,
                                                 int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7,"
      "%8, %9, %10, %11, %12, %13, %14, %15,"
      "%16, %17, %18, %19, %20, %21, %22, %23,"
      "%24, %25, %26, %27, %28, %29, %30, %31,"
      "%32, %33, %34, %35, %36, %37, %38, %39,"
      "%40, %41, %42, %43, %44, %45, %46, %47,"
      "%48, %49, %50, %51, %52, %53, %54, %55,"
      "%56, %57, %58, %59, %60, %61, %62, %63,"
      "%64, %65, %66, %67, %68, %69, %70, %71,"
      "%72, %73, %74, %75, %76, %77, %78, %79,"
      "%80, %81, %82, %83, %84, %85, %86, %87,"
      "%88, %89, %90, %91, %92, %93, %94, %95,"
      "%96, %97, %98, %99, %100, %101, %102, %103,"
      "%104, %105, %106, %107, %108, %109, %110, %111,"
      "%112, %113, %114, %115, %116, %117, %118, %119,"
      "%120, %121, %122, %123, %124, %125, %126, %127},"
      " %128, %129, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
        "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
        "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
        "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
        "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

struct TileCoord {
  int m0;
  int n0;
};

// Grouped raster: kGroupM consecutive tile rows share each B column tile while it is in L2.
[[maybe_unused]] __device__ __forceinline__ TileCoord tile_of_block(int block, int tiles_m,
                                                                    int tiles_n) {
  const int per_group = kGroupM * tiles_n;
  const int group = block / per_group;
  const int first_m = group * kGroupM;
  const int rows_in_group = min(tiles_m - first_m, kGroupM);
  const int in_group = block % per_group;
  return {(first_m + in_group % rows_in_group) * kBlockM, (in_group / rows_in_group) * kBlockN};
}

// Writes a consumer's (64, kBlockN) fp32 accumulator tile as fp32 partial sums into `part`
// (row-major (M, N)), masking rows >= M, cols >= N. kHinted: the float2 stores under L2 policy
// `policy` (ptx/l2_policy.cuh).
template <bool kHinted = false>
__device__ __forceinline__ void store_partial(const float (&d)[kBlockN / 2], float* part, int row0,
                                              int n0, int M, int N, uint64_t policy = 0) {
  const int warp = (threadIdx.x / 32) % 4;
  const int lane = threadIdx.x % 32;
  const int row_a = row0 + warp * 16 + lane / 4;
#pragma unroll
  for (int i = 0; i < kBlockN / 8; ++i) {
    const int col = n0 + i * 8 + (lane % 4) * 2;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = row_a + half * 8;
      if (row >= M || col >= N) continue;
      float* dst = part + static_cast<int64_t>(row) * N + col;
      if (N % 2 == 0 && col + 1 < N) {  // 8-byte aligned: one float2 store
        if constexpr (kHinted)
          st_global_f32x2_hint(dst, d[i * 4 + half * 2], d[i * 4 + half * 2 + 1], policy);
        else
          *reinterpret_cast<float2*>(dst) =
              make_float2(d[i * 4 + half * 2], d[i * 4 + half * 2 + 1]);
      } else {
        dst[0] = d[i * 4 + half * 2];
        if (col + 1 < N) dst[1] = d[i * 4 + half * 2 + 1];
      }
    }
  }
}

// Writes a consumer's (64, kBlockN) fp32 accumulator tile as bf16, masking rows >= M, cols >= N.
// C[row][col] = v0 and C[row][col + 1] = v1 as bf16 (the second only when col + 1 < N), one bf16x2
// store when N is even (the pair is then 4-byte aligned). The caller checked row < M, col < N.
__device__ __forceinline__ void store_bf16_pair(__nv_bfloat16* c, int row, int col, int N, float v0,
                                                float v1) {
  __nv_bfloat16* dst = c + static_cast<int64_t>(row) * N + col;
  if (N % 2 == 0 && col + 1 < N) {
    *reinterpret_cast<__nv_bfloat162*>(dst) = __floats2bfloat162_rn(v0, v1);
  } else {
    dst[0] = __float2bfloat16_rn(v0);
    if (col + 1 < N) dst[1] = __float2bfloat16_rn(v1);
  }
}

__device__ __forceinline__ void store_tile(const float (&d)[kBlockN / 2], __nv_bfloat16* c,
                                           int row0, int n0, int M, int N) {
  const int warp = (threadIdx.x / 32) % 4;
  const int lane = threadIdx.x % 32;
  const int row_a = row0 + warp * 16 + lane / 4;
#pragma unroll
  for (int i = 0; i < kBlockN / 8; ++i) {
    const int col = n0 + i * 8 + (lane % 4) * 2;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = row_a + half * 8;
      if (row >= M || col >= N) continue;
      store_bf16_pair(c, row, col, N, d[i * 4 + half * 2], d[i * 4 + half * 2 + 1]);
    }
  }
}

// The work of one CTA: the (kBlockM, kBlockN) tile of C at rows [m0, m0 + kBlockM) and columns
// [n0, n0 + kBlockN); B's tile starts at row b_row0 of its tensor map (n0, plus a group's first
// weight row in a grouped GEMM); k-blocks [kb_begin, kb_begin + k_blocks).
struct TileWork {
  int m0, n0, b_row0, kb_begin, k_blocks;
};

// Thread 0: one full and one empty mbarrier per stage. A stage is full after `full_arrivals`
// arrivals and the bytes they expect (one producer thread arming it for TMA; every cp.async
// producer thread once its copies landed).
__device__ __forceinline__ void init_barriers(SharedStorage& smem, uint32_t full_arrivals = 1) {
  for (int s = 0; s < kStages; ++s) {
    mbar_init(&smem.full[s], full_arrivals);
    mbar_init(&smem.empty[s], kClusterM * kConsumers * 4);  // lane 0 of every consumer warp
  }
  fence_mbarrier_init();
}

// Lane 0 of a consumer warp: stage `s` read, back to the producer(s) that refill it.
__device__ __forceinline__ void release_stage(SharedStorage& smem, uint32_t s) {
  if constexpr (kClusterM == 1) {
    mbar_arrive(&smem.empty[s]);
  } else {
#pragma unroll
    for (uint32_t cta = 0; cta < kClusterM; ++cta) mbar_arrive_cluster(&smem.empty[s], cta);
  }
}

// Whether consume() forms the descriptors of a k-block's k-slices from the first slice's
// (wgmma_desc_advance by the slice's 32 bytes) instead of from each slice's address (a mask, a
// shift and an or per descriptor, 8 a k-block). The fp8 experts gained 3-5% from it (their
// consumers also promote every k-block; bench/results/2026-12-05g-h100-session, calls 7-8); these
// consumers are lighter: on an H100 (bench/results/2026-12-05h-h100-session, call 1, `ptxbench
// eval`, three rounds) the TMA expert's speedups moved by 1.000-1.002x, the cp.async one's by
// 0.998-1.006x; kept for its fewer instructions (variants `tma_slicedesc_threadwg`,
// `wgmma_slicedesc` turn it off).
constexpr bool kStepDescriptors = true;

// Whether consume() issues only the k-slices of a unit's last k-block that hold data when the
// unit ends at K's end and K is not a multiple of kBlockK (the loads zero-fill the rest, and
// zeros add nothing): K 2000 is 31 k-blocks and one slice, where the whole 32nd k-block costs
// 2.4% more tensor work. Off: no faster on an H100 (4000x3000x2000 0.952 -> 0.945 of cuBLASLt,
// TMA expert; docs/tasks.md, "K's tail").
constexpr bool kPartialLastKBlock = false;
constexpr int kSlicesPerKBlock = kBlockK / 16;

// The k-slices with data in the last k-block of a unit whose k-blocks end at kb_end (exclusive),
// for a K of `K` columns: kSlicesPerKBlock unless that k-block runs past K. Checked on the host
// against the split-K and stream-K units (tests/kernels/gemm_tail_schedule.cu).
__host__ __device__ __forceinline__ int slices_in_last_k_block(int kb_end, int K) {
  const int rest = K - (kb_end - 1) * kBlockK;  // K's columns from the k-block's start on
  return ((rest < kBlockK ? rest : kBlockK) + 15) / 16;
}

// Consumer warpgroup `consumer`: its (64, kBlockN) half of the tile accumulated in d (fp32). `it`
// as in produce(): the consumers' count runs in step with the producer's. Every stage read goes
// back to the producer, the last one too (a CTA that loops over tiles refills it for the next).
// kProxyFence: the stage's bytes were written through the generic proxy by other threads (cp.async
// completing on the barrier), so each consumer thread fences its view to the async proxy before
// wgmma reads them; TMA writes through the async proxy and needs none.
// last_slices: the k-slices of the last k-block to issue (slices_in_last_k_block; used with
// kPartialLastKBlock only).
template <bool kProxyFence = false>
__device__ __forceinline__ void consume(SharedStorage& smem, int consumer, int k_blocks,
                                        float (&d)[kBlockN / 2], uint32_t& it,
                                        int last_slices = kSlicesPerKBlock) {
  const bool lane0 = (threadIdx.x % 32) == 0;
#pragma unroll
  for (int i = 0; i < kBlockN / 2; ++i) d[i] = 0.f;

  // k-block kb through stage it % kStages, its first `slices` k-slices (the whole k-block in the
  // main loop, where `slices` is a constant).
  auto k_block = [&](int kb, int slices) {
    const uint32_t s = it % kStages;
    mbar_wait(&smem.full[s], (it / kStages) & 1);
    if constexpr (kProxyFence) fence_proxy_async_shared();
    const __nv_bfloat16* a_tile = smem.a[s] + consumer * 64 * kBlockK;  // (64, kBlockK)
    const __nv_bfloat16* b_tile = smem.b[s];                            // (kBlockN, kBlockK)
    const uint64_t a_desc = wgmma_desc_sw128(a_tile, 16, 1024);
    const uint64_t b_desc = wgmma_desc_sw128(b_tile, 16, 1024);
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < kSlicesPerKBlock; ++k) {
      // NOTE: inside a 128-byte swizzled row, the k-th 16-element slice starts 32*k bytes in;
      // the hardware applies the swizzle to the computed addresses.
      if (k < slices)
        wgmma_m64n256k16(d, wgmma_desc_sw128_slice<kStepDescriptors>(a_tile, a_desc, 32 * k),
                         wgmma_desc_sw128_slice<kStepDescriptors>(b_tile, b_desc, 32 * k), 1);
    }
    wgmma_commit();
    if (kb > 0) {
      wgmma_wait<1>();  // the group that read stage it-1 is done: hand it back to the producer
      if (lane0) release_stage(smem, (it - 1) % kStages);
    }
    ++it;
  };
  const int whole = kPartialLastKBlock ? k_blocks - 1 : k_blocks;
  for (int kb = 0; kb < whole; ++kb) k_block(kb, kSlicesPerKBlock);
  // NOTE: through a warp shuffle, which ptxas can prove warp-uniform: branches around wgmma on a
  // value it cannot prove uniform make it serialize the kernel's wgmma (C7520).
  if (kPartialLastKBlock && k_blocks > 0) k_block(k_blocks - 1, __shfl_sync(~0u, last_slices, 0));
  wgmma_wait<0>();
  if (k_blocks > 0 && lane0) release_stage(smem, (it - 1) % kStages);
#pragma unroll
  for (int i = 0; i < kBlockN / 2; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// The shared memory of a CTA, aligned to 1024 bytes (the 128-byte swizzle's period).
__device__ __forceinline__ SharedStorage& shared_storage() {
  extern __shared__ uint8_t smem_raw[];
  return *reinterpret_cast<SharedStorage*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) &
                                           ~uintptr_t(1023));
}

// ---- host side ----

bool is_row_major_2d(const ptxb_tensor_desc& t, int64_t rows, int64_t cols) {
  return t.dtype == PTXB_BF16 && t.rank == 2 && t.shape[0] == rows && t.shape[1] == cols &&
         t.strides[0] == cols && t.strides[1] == 1;
}

// The extents of a C = A * B^T problem as ptxb_run accepts it: A (M, K), B (N, K) and C (M, N)
// row-major bf16, K % 8 == 0 (16-byte rows), every extent within int. nullopt otherwise.
struct GemmDims {
  int64_t M, N, K;
};
[[maybe_unused]] std::optional<GemmDims> gemm_dims(const ptxb_problem& p) {
  if (p.num_inputs != 2 || p.num_outputs != 1) return std::nullopt;
  const int64_t M = p.inputs[0].shape[0], K = p.inputs[0].shape[1], N = p.inputs[1].shape[0];
  if (!is_row_major_2d(p.inputs[0], M, K) || !is_row_major_2d(p.inputs[1], N, K) ||
      !is_row_major_2d(p.outputs[0], M, N) || K % 8 != 0 || M > INT32_MAX || N > INT32_MAX ||
      K > INT32_MAX)
    return std::nullopt;
  return GemmDims{M, N, K};
}

// ptxb_run's failures (kNoTensorMap: the TMA kernels' tensor maps could not be encoded).
enum Status : int { kBadProblem = 1, kNoTensorMap = 2, kLaunchFailed = 3 };

}  // namespace
// ==== end kernels/gemm/sm90_gemm_bf16_ws_ring.cuh ====
// ==== begin kernels/gemm/sm90_gemm_bf16_tma_ws.cuh (generated: scripts/amalgamate.py) ====
// The TMA producer of the warp-specialized wgmma bf16 GEMM of the expert solutions (C = A * B^T,
// bf16 in, fp32 accumulation, bf16 out, row-major, B K-major): one thread streams the k-blocks
// of A and B into the ring of gemm/sm90_gemm_bf16_ws_ring.cuh by TMA, and the host encodes the
// tensor maps. The plain GEMM (gemm/sm90_gemm_bf16_tma_ws_gemm.cuh) and the grouped one build
// their kernels from these pieces. Experts hold a copy (scripts/amalgamate.py); their header
// comments describe the design.

namespace {

constexpr uint32_t kATileBytes = kBlockM * kBlockK * 2;  // the bytes a stage's A box brings
constexpr uint32_t kBTileBytes = kBlockN * kBlockK * 2;

// The producer thread: streams the tile's (kBlockM, kBlockK) A and (kBlockN, kBlockK) B k-blocks
// through the ring. `it` counts the k-blocks this CTA put through the ring before (the earlier
// tiles of a CTA that loops over tiles; 0 for the first) and is advanced past this tile's.
// kHinted (one CTA per cluster): A's boxes under L2 policy `policy_a`, B's under `policy_b`.
template <bool kHinted = false>
__device__ __forceinline__ void produce(SharedStorage& smem, const CUtensorMap* map_a,
                                        const CUtensorMap* map_b, const TileWork& w, uint32_t& it,
                                        uint64_t policy_a = 0, uint64_t policy_b = 0) {
  static_assert(!kHinted || kClusterM == 1, "L2 policies on the single-CTA loads only");
  prefetch_map(map_a);
  prefetch_map(map_b);
  for (int kb = 0; kb < w.k_blocks; ++kb, ++it) {
    const uint32_t s = it % kStages;
    // NOTE: a fresh barrier counts as having completed the phase before phase 0, so the first
    // pass over the ring (parity 1) does not wait.
    mbar_wait(&smem.empty[s], ((it / kStages) & 1) ^ 1);
    mbar_arrive_expect_tx(&smem.full[s], kATileBytes + kBTileBytes);
    const int k0 = (w.kb_begin + kb) * kBlockK;
    if constexpr (kHinted) {
      tma_load_2d_hint(smem.a[s], map_a, &smem.full[s], k0, w.m0, policy_a);
      tma_load_2d_hint(smem.b[s], map_b, &smem.full[s], k0, w.b_row0, policy_b);
      continue;
    }
    tma_load_2d(smem.a[s], map_a, &smem.full[s], k0, w.m0);
    if constexpr (kClusterM == 1) {
      tma_load_2d(smem.b[s], map_b, &smem.full[s], k0, w.b_row0);
    } else {  // this CTA's half of the B tile into both CTAs (map_b's box: kBlockN / 2 rows)
      const uint32_t rank = cluster_ctarank();
      constexpr int kHalf = kBlockN / kClusterM;
      tma_load_2d_multicast(smem.b[s] + rank * kHalf * kBlockK, map_b, &smem.full[s], k0,
                            w.b_row0 + static_cast<int>(rank) * kHalf, (1u << kClusterM) - 1);
    }
  }
}

// The producer thread, after its last tile in a cluster of 2: waits until the consumers of both
// CTAs released every stage, so that no peer arrives on this CTA's barriers after it exits.
[[maybe_unused]] __device__ __forceinline__ void producer_tail(SharedStorage& smem, uint32_t it) {
  if constexpr (kClusterM > 1)
    for (int i = 0; i < kStages; ++i, ++it)
      mbar_wait(&smem.empty[it % kStages], ((it / kStages) & 1) ^ 1);
}

// A row-major (rows, k) bf16 matrix read in (box_rows, kBlockK) boxes with the 128-byte swizzle.
bool encode_k_major(CUtensorMap* map, const void* ptr, int64_t rows, int64_t k, uint32_t box_rows) {
  auto encode = tensor_map_encoder();
  if (encode == nullptr) return false;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(k), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(k) * 2};
  const cuuint32_t box[2] = {kBlockK, box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(ptr), dims, strides,
                box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

}  // namespace
// ==== end kernels/gemm/sm90_gemm_bf16_tma_ws.cuh ====
// ==== begin kernels/ptx/griddepcontrol.cuh (generated: scripts/amalgamate.py) ====
// Programmatic dependent launch (sm_90). A kernel launched as a programmatic dependent of the
// kernel before it on its stream (launch_programmatic) may start once every CTA of that kernel
// called griddep_launch_dependents or exited; before it reads what that kernel wrote it calls
// griddep_wait, which returns when that grid has completed and its writes are visible.

__device__ __forceinline__ void griddep_launch_dependents() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}
__device__ __forceinline__ void griddep_wait() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
}

// `kernel` on `grid` CTAs of `block` threads with `smem` bytes of dynamic shared memory on
// `stream`: a programmatic dependent of the kernel before it when `dependent`, else an ordinary
// launch.
template <typename... Params, typename... Args>
cudaError_t launch_programmatic(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem,
                                cudaStream_t stream, bool dependent, Args... args) {
  cudaLaunchAttribute attribute = {};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = dependent ? 1 : 0;
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, args...);
}
// ==== end kernels/ptx/griddepcontrol.cuh ====

// ==== begin kernels/gemm/sm90_gemm_split_sum.cuh (generated: scripts/amalgamate.py) ====
// Split-K of the GEMM experts (gemm/sm90_gemm_bf16_tma_ws_gemm.cuh, gemm/sm90_gemm_fp8_tma_ws.cuh):
// how K is cut, the sum of the splits' partials, and the launch of such sums as programmatic
// dependents of the GEMM kernel that wrote the partials. Experts hold a copy
// (scripts/amalgamate.py).

namespace {

// How a GEMM expert cuts K: k-blocks per split and the number of splits (1: no split).
struct SplitK {
  int split_kb;
  int splits;
};
// The splits of a shape whose `tiles` output tiles fill at most half of the `sms` SMs: as many as
// the idle SMs allow while every split keeps min_k_blocks of the k_blocks; 1 for larger shapes.
int few_tile_splits(int64_t tiles, int k_blocks, int sms, int min_k_blocks) {
  if (tiles * 2 > sms) return 1;
  return static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(sms / tiles, k_blocks / min_k_blocks)));
}
// K's k_blocks cut into at most `splits` splits of equal size, none of them empty.
SplitK cut_k(int k_blocks, int splits) {
  const int split_kb = (k_blocks + splits - 1) / splits;
  return {split_kb, (k_blocks + split_kb - 1) / split_kb};
}

// The workspace the fp32 partials of `split` take for an (M, N) output: none for one split.
uint64_t split_partial_bytes(const SplitK& split, int64_t M, int64_t N) {
  return split.splits > 1 ? static_cast<uint64_t>(split.splits) * M * N * sizeof(float) : 0;
}

// C = the sum over the splits of the fp32 partials (`splits` planes of `count` elements), in split
// order, rounded to bf16: four elements a step (16-byte loads: the ABI's pointers are 256-byte
// aligned, and count % 4 == 0 keeps every split's partials aligned), else one by one. The loads of
// the first kReduceInFlight splits are issued together before the sum (one memory latency per step
// instead of one per split: the reduction is latency-bound otherwise: the loop's SASS had up to
// three load latencies per step at four splits); the launch gives every thread about one step.
// H200, bf16 experts side by side with the loads one by one
// (bench/results/2026-12-03f-h200-session-083f534, call A): 128x8192x8192 0.872 -> 0.877 of
// cuBLASLt, the llm task's few-row shapes 0.940 -> 0.947 and 0.962 -> 0.970.
constexpr int kReduceInFlight = 8;
__global__ void reduce_splits(const float* partials, __nv_bfloat16* c, int64_t count, int splits) {
  // Launched as a programmatic dependent: the GEMM grid has completed and its partials are
  // visible after this. Returns at once after an ordinary launch.
  griddep_wait();
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  const int64_t first = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  const int64_t quads = count % 4 == 0 ? count / 4 : 0;
  const auto* parts = reinterpret_cast<const float4*>(partials);
  for (int64_t q = first; q < quads; q += stride) {
    float4 p[kReduceInFlight];
#pragma unroll
    for (int s = 0; s < kReduceInFlight; ++s)
      if (s < splits) p[s] = parts[s * quads + q];
    float4 sum = p[0];
#pragma unroll
    for (int s = 1; s < kReduceInFlight; ++s) {
      if (s >= splits) break;
      sum.x += p[s].x;
      sum.y += p[s].y;
      sum.z += p[s].z;
      sum.w += p[s].w;
    }
    for (int s = kReduceInFlight; s < splits; ++s) {
      const float4 more = parts[s * quads + q];
      sum.x += more.x;
      sum.y += more.y;
      sum.z += more.z;
      sum.w += more.w;
    }
    __nv_bfloat162* out = reinterpret_cast<__nv_bfloat162*>(c + 4 * q);
    out[0] = __floats2bfloat162_rn(sum.x, sum.y);
    out[1] = __floats2bfloat162_rn(sum.z, sum.w);
  }
  for (int64_t i = quads * 4 + first; i < count; i += stride) {
    float sum = partials[i];
    for (int s = 1; s < splits; ++s) sum += partials[s * count + i];
    c[i] = __float2bfloat16_rn(sum);
  }
}

// `kernel` on enough CTAs of 256 threads for `steps` one per thread (at most 32 per SM of `sms`),
// a programmatic dependent of the kernel before it on `stream` when `dependent` (its CTAs may
// launch once every CTA of that kernel allowed it; they wait in griddep_wait), else an
// ordinary launch.
template <typename... Params, typename... Args>
cudaError_t launch_dependent(void (*kernel)(Params...), int64_t steps, int sms, bool dependent,
                             cudaStream_t stream, Args... args) {
  const auto ctas = static_cast<unsigned>(std::min<int64_t>((steps + 255) / 256, 32 * sms));
  return launch_programmatic(kernel, dim3(ctas), dim3(256), 0, stream, dependent, args...);
}

// After the GEMM kernel on `stream` wrote `split.splits` partial (M, N) products into `partials`:
// reduce_splits sums them into c, a programmatic dependent of that kernel when `dependent`, on
// `sms` SMs. Nothing to do for one split.
cudaError_t sum_splits(const SplitK& split, const float* partials, __nv_bfloat16* c, int64_t M,
                       int64_t N, int sms, bool dependent, cudaStream_t stream) {
  if (split.splits <= 1) return cudaSuccess;
  const int64_t count = M * N;
  return launch_dependent(reduce_splits, count % 4 == 0 ? count / 4 : count, sms, dependent, stream,
                          partials, c, count, split.splits);
}

}  // namespace
// ==== end kernels/gemm/sm90_gemm_split_sum.cuh ====
// ==== begin kernels/gemm/sm90_gemm_tail_schedule.cuh (generated: scripts/amalgamate.py) ====
// The stream-K tail schedule of the persistent bf16 GEMM experts
// (gemm/sm90_gemm_bf16_tma_ws_gemm.cuh): with W full waves of output tiles and a tail of T < CTAs
// tiles, the tail's T * k_total k-block iterations are cut into one contiguous range per CTA, so
// that no CTA computes more than W + T / CTAs tiles' worth instead of W + 1. A range may start or
// end inside a tile: such pieces leave fp32 partials in slots of a workspace, summed per tile in
// CTA order by sum_tail_tiles (in the includer's reduce_tail kernel); a tile inside one CTA's range
// is stored as usual. Checked on the host by tests/kernels/gemm_tail_schedule.cu. Experts hold a
// copy (scripts/amalgamate.py).

namespace {

constexpr int kMaxTailPieces = 2;  // tiles a CTA's tail range touches (range <= k_total)

// Which work a persistent CTA does: `waves` full waves of whole tiles (CTA c: blocks c, c + ctas,
// ...) and its range [c * range, (c + 1) * range) of the tail's k-block iterations (tail tile t
// is block waves * ctas + t, iterations [t * k_total, (t + 1) * k_total)), after the waves or
// before them (tail_unit). tail_tiles == 0: no tail range. Host and device compute the same
// numbers.
struct TailSchedule {
  int ctas = 0, waves = 0, tail_tiles = 0, k_total = 0, range = 0;
  __host__ __device__ int64_t tail_iterations() const {
    return static_cast<int64_t>(tail_tiles) * k_total;
  }
  // First and last CTA whose range touches tail tile t.
  __host__ __device__ int first_cta(int t) const {
    return static_cast<int>(static_cast<int64_t>(t) * k_total / range);
  }
  __host__ __device__ int last_cta(int t) const {
    return static_cast<int>((static_cast<int64_t>(t + 1) * k_total - 1) / range);
  }
  // The partial slot of CTA c's piece of tail tile t (a tile it shares with another CTA).
  __host__ __device__ int slot(int c, int t) const {
    return c * kMaxTailPieces + (t - first_tile(c));
  }
  __host__ __device__ int first_tile(int c) const {
    return static_cast<int>(static_cast<int64_t>(c) * range / k_total);
  }
};

// The schedule of `tiles` output tiles of `k_total` k-blocks on `ctas` persistent CTAs (whole
// tiles only without a full wave or a tail).
TailSchedule tail_schedule(int64_t tiles, int k_total, int ctas) {
  TailSchedule s;
  s.ctas = ctas;
  s.k_total = k_total;
  s.waves = static_cast<int>(tiles / ctas);
  s.tail_tiles = static_cast<int>(tiles % ctas);
  if (s.waves == 0 || s.tail_tiles == 0) {
    s.tail_tiles = 0;  // whole tiles only
    s.waves = static_cast<int>((tiles + ctas - 1) / ctas);
    return s;
  }
  s.range = static_cast<int>((s.tail_iterations() + ctas - 1) / ctas);  // <= k_total
  return s;
}

// One unit of a persistent CTA's work under `s`: block (raster index), k-blocks [kb_begin,
// kb_begin + k_blocks), and the partial slot it stores into (-1: a whole tile, stored as C).
struct TailUnit {
  int block, kb_begin, k_blocks, slot;
};
// The unit indices j of a CTA under `s` (tail_unit below): [0, tail_unit_bound(s)).
__host__ __device__ __forceinline__ int tail_unit_bound(const TailSchedule& s) {
  return s.waves + (s.tail_tiles > 0 ? kMaxTailPieces : 0);
}
// In which order a CTA takes its units (the same units in every order): tail_first, its tail
// pieces before the whole tiles of its waves instead of after them; pieces_descending, its later
// tail tile's piece before its earlier one's (then the last CTA whose range touches a tile takes
// its piece of it after every other CTA of the tile took theirs: tail_fixup's order).
struct TailOrder {
  bool tail_first = false, pieces_descending = false;
};
// CTA c's j-th unit, j < tail_unit_bound(s), in `order`; false where j holds no work (a range
// that touches fewer tiles than kMaxTailPieces, the blocks of a last wave that run out): the CTA
// goes on with j + 1.
__host__ __device__ __forceinline__ bool tail_unit(const TailSchedule& s, int blocks, int c, int j,
                                                   TailUnit& u, TailOrder order = {}) {
  const int wave = order.tail_first && s.tail_tiles > 0 ? j - kMaxTailPieces : j;
  if (wave >= 0 && wave < s.waves) {
    u = {c + wave * s.ctas, 0, s.k_total, -1};
    return u.block < blocks;
  }
  if (s.tail_tiles == 0) return false;
  const int piece = order.tail_first ? j : j - s.waves;
  if (piece < 0 || piece >= kMaxTailPieces) return false;
  const int64_t begin = static_cast<int64_t>(c) * s.range;
  const int64_t end = min(begin + s.range, s.tail_iterations());
  const int t = s.first_tile(c) + (order.pieces_descending ? kMaxTailPieces - 1 - piece : piece);
  const int64_t tile_begin = static_cast<int64_t>(t) * s.k_total;
  const int64_t from = max(begin, tile_begin), to = min(end, tile_begin + s.k_total);
  if (from >= to) return false;
  const bool whole = s.first_cta(t) == s.last_cta(t);
  u = {s.waves * s.ctas + t, static_cast<int>(from - tile_begin), static_cast<int>(to - from),
       whole ? -1 : s.slot(c, t)};
  return true;
}

// The tail schedule of `tiles` tiles on at most `sms` CTAs when there are at least `min_waves`
// full waves (the partials and their sum cost about a quarter of a wave: below that the tail
// loses, docs/tasks.md), else none.
TailSchedule gated_tail_schedule(int64_t tiles, int k_total, int sms, int min_waves) {
  const int ctas = static_cast<int>(std::min<int64_t>(tiles, sms));
  if (ctas <= 0 || tiles / ctas < min_waves) return {};
  return tail_schedule(tiles, k_total, ctas);
}

// Workspace bytes of the partial slots of `s` for tiles of `tile_elems` elements.
uint64_t tail_partial_bytes(const TailSchedule& s, int tile_elems) {
  return s.tail_tiles == 0
             ? 0
             : static_cast<uint64_t>(s.ctas) * kMaxTailPieces * tile_elems * sizeof(float);
}

// C over the tail tiles of `s` that several CTAs share: per element, the partials of the CTAs
// whose ranges touch the tile, summed in CTA order (the order of the k-blocks); four elements of a
// row a step, each pair through store_pair(row, col, v0, v1) (bf16 into C; col < N, col + 1 may
// not be). The slots hold (kTileM, kTileN) fp32 tiles, row-major. Tail tile t is block
// s.waves * s.ctas + t; tile_of(block) gives its {m0, n0}. The caller has waited for the grid
// that wrote the partials.
template <int kTileM, int kTileN, typename TileOf, typename StorePair>
__device__ __forceinline__ void sum_tail_tiles(const float* partials, const TailSchedule& s, int M,
                                               int N, TileOf&& tile_of, StorePair&& store_pair) {
  constexpr int kQuads = kTileM * kTileN / 4;
  const int64_t steps = static_cast<int64_t>(s.tail_tiles) * kQuads;
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < steps; i += stride) {
    const int t = static_cast<int>(i / kQuads), e = static_cast<int>(i % kQuads) * 4;
    const int first = s.first_cta(t), last = s.last_cta(t);
    if (first == last) continue;  // inside one CTA's range: stored as C by that CTA
    auto piece = [&](int cta) {
      return __ldcg(reinterpret_cast<const float4*>(
          partials + static_cast<int64_t>(s.slot(cta, t)) * kTileM * kTileN + e));
    };
    float4 sum = piece(first);
    for (int cta = first + 1; cta <= last; ++cta) {
      const float4 p = piece(cta);
      sum.x += p.x;
      sum.y += p.y;
      sum.z += p.z;
      sum.w += p.w;
    }
    const auto tile = tile_of(s.waves * s.ctas + t);
    const int row = tile.m0 + e / kTileN, col = tile.n0 + e % kTileN;
    if (row >= M || col >= N) continue;
    store_pair(row, col, sum.x, sum.y);
    if (col + 2 < N) store_pair(row, col + 2, sum.z, sum.w);
  }
}

}  // namespace
// ==== end kernels/gemm/sm90_gemm_tail_schedule.cuh ====
// ==== begin kernels/gemm/sm90_gemm_bf16_narrow.cuh (generated: scripts/amalgamate.py) ====
// Few-row GEMMs of the TMA + wgmma bf16 experts (gemm/sm90_gemm_bf16_tma_ws_gemm.cuh picks it):
// narrow (kBlockM, kNarrowN) = (128, 64) output tiles, one per CTA and all of K, where the main
// kernel's 128x256 tiles would fill less than half the SMs and the narrow ones fill most of them
// (128x8192x8192: 32 wide tiles, 128 narrow ones on 132 SMs): no fp32 partials and no second
// kernel, as split-K needs. Optionally (kNarrowCluster = 2) the two CTAs of a cluster along N
// share the tile row's A k-blocks through TMA multicast. Needs the pieces of
// gemm/sm90_gemm_bf16_tma_ws.cuh before it.

namespace {

// Whether few-row shapes take the narrow tiles (measured by bench/gemm_dev, docs/tasks.md).
constexpr bool kNarrowFewRows = true;
constexpr int kNarrowN = 64;
// CTAs along N sharing A by multicast: 1 or 2. The H200 (bench/results/2026-12-04b-*, call A):
// 128x8192x8192 44.8 us with 1, 47.3 us with 2; L2's reads of A are not what limits it.
constexpr int kNarrowCluster = 1;
static_assert(kNarrowCluster == 1 || kNarrowCluster == 2, "clusters of 1 or 2 CTAs along N");
// A stage is 24 KB (A 16, B 8). 128x8192x8192: 6 stages 51.5 us against 47.3 for 8 (2-CTA
// clusters, call A); 9 stages 48.6 us against 44.4 (call B).
constexpr int kNarrowStages = 8;
// Whether B's boxes (each read by one CTA, once) are loaded evict_first, so that A's lines (read
// by every CTA of the tile row) and C stay in L2: 49.7 -> 47.3 us (2-CTA clusters, call A).
constexpr bool kNarrowBEvictFirst = true;
// Whether A's boxes (one CTA only) are loaded evict_last: 44.4 us either way (call B).
constexpr bool kNarrowAEvictLast = false;
constexpr uint32_t kNarrowBTileBytes = kNarrowN * kBlockK * 2;

struct NarrowStorage {
  __nv_bfloat16 a[kNarrowStages][kBlockM * kBlockK];   // (kBlockM, kBlockK) per stage, swizzled
  __nv_bfloat16 b[kNarrowStages][kNarrowN * kBlockK];  // (kNarrowN, kBlockK) per stage, swizzled
  uint64_t full[kNarrowStages];
  uint64_t empty[kNarrowStages];
};
constexpr size_t kNarrowSharedBytes = sizeof(NarrowStorage) + 1024;  // +1024: alignment
static_assert(kNarrowSharedBytes <= 227 * 1024, "sm_90's opt-in shared memory per block");

// wgmma m64n64k16, bf16 x bf16 -> f32, A and B from shared memory (K-major), accumulating into d.
__device__ __forceinline__ void wgmma_m64n64k16(float (&d)[32], uint64_t desc_a, uint64_t desc_b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31},"
      " %32, %33, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b));
}

// How a few-row shape runs on narrow tiles: tile rows and (cluster-padded) tile columns; `use`
// is false where the narrow tiles are not the better cut.
struct NarrowPlan {
  bool use;
  int tiles_m, tiles_n;
};
// Narrow tiles where the main kernel would split K (its tiles fill at most half the SMs), M is
// one tile row at least kNarrowMinFill full, the narrow tiles fill at least kNarrowMinFill of
// the SMs in one wave, and K is whole k-blocks (rows of A and B start on 128-byte lines).
// Measured on the H200 (probe harness, bench/results/2026-12-04b-*, calls A-D; narrow vs
// split-K, us): one tile row wins (128x8192x8192 44.4 vs 53.0, 128x7168x5120 29.2 vs 37.3,
// 96x8192x4096 30.7 vs 33.5), but not with a K tail and rows off the 128-byte lines
// (128x8100x4104: 47.3 vs 41.5; the fp8 expert's 100x8000x4112 likewise); two tile rows lose
// (256x4096x8192 40.7 vs 39.3, 256x3584x8192 40.4 vs 37.1, with or without the B hint). A CTA
// streams its k-blocks one after another (about 0.35-0.45 us each), so fewer tiles on a long K
// lose to split-K (64x5120x17408, 80 tiles: 104 vs 61), and so do tile rows mostly past M
// (16x4096x14336: 68 vs 45; 1x4096x4096: 27 vs 20; both with the narrow tiles split along K too,
// as the first version did).
constexpr int kNarrowMinFillNum = 3, kNarrowMinFillDen = 4;  // kNarrowMinFill = 3/4
NarrowPlan plan_narrow(int64_t M, int64_t N, int64_t K, int sms) {
  const int64_t wide_tiles = ((M + kBlockM - 1) / kBlockM) * ((N + kBlockN - 1) / kBlockN);
  const int64_t tiles_m = (M + kBlockM - 1) / kBlockM;
  const int64_t tiles_n =
      ((N + kNarrowN - 1) / kNarrowN + kNarrowCluster - 1) / kNarrowCluster * kNarrowCluster;
  const int64_t tiles = tiles_m * tiles_n, last_rows = M - (tiles_m - 1) * kBlockM;
  const bool use = kNarrowFewRows && wide_tiles * 2 <= sms && tiles_m == 1 && K % kBlockK == 0 &&
                   tiles <= sms && tiles * kNarrowMinFillDen >= sms * kNarrowMinFillNum &&
                   last_rows * kNarrowMinFillDen >= kBlockM * kNarrowMinFillNum;
  return {use, static_cast<int>(tiles_m), static_cast<int>(tiles_n)};
}

// One (kBlockM, kNarrowN) tile of C per CTA over all of K: CTA x = tile_m * tiles_n + tile_n,
// the kNarrowCluster CTAs of a cluster adjacent along N (tiles_n is a multiple of
// kNarrowCluster; a CTA past N still loads and shares its part of A and stores nothing).
__global__ void __launch_bounds__(kThreads, 1)
    gemm_bf16_narrow(const __grid_constant__ CUtensorMap map_a,
                     const __grid_constant__ CUtensorMap map_b, __nv_bfloat16* c, int M, int N,
                     int K, int tiles_n) {
  extern __shared__ uint8_t narrow_raw[];
  NarrowStorage& smem = *reinterpret_cast<NarrowStorage*>(
      (reinterpret_cast<uintptr_t>(narrow_raw) + 1023) & ~uintptr_t(1023));
  const int warpgroup = warpgroup_index();
  const int m0 = (blockIdx.x / tiles_n) * kBlockM, n0 = (blockIdx.x % tiles_n) * kNarrowN;
  const int k_blocks = (K + kBlockK - 1) / kBlockK;
  const uint32_t rank = kNarrowCluster == 1 ? 0 : cluster_ctarank();

  if (threadIdx.x == 0) {
    for (int s = 0; s < kNarrowStages; ++s) {
      mbar_init(&smem.full[s], 1);
      mbar_init(&smem.empty[s], kNarrowCluster * kConsumers * 4);  // every consumer warp's lane 0
    }
    fence_mbarrier_init();
  }
  if constexpr (kNarrowCluster == 1) {
    __syncthreads();
  } else {
    __syncwarp();
    cluster_sync();  // the peer's barriers exist before anything multicasts or arrives there
  }

  if (warpgroup == 0) {
    if (threadIdx.x != 0) return;
    prefetch_map(&map_a);
    prefetch_map(&map_b);
    const uint64_t policy_a = kNarrowAEvictLast ? l2_policy_evict_last() : 0;
    const uint64_t policy_b = kNarrowBEvictFirst ? l2_policy_evict_first() : 0;
    int kb = 0;
    for (; kb < k_blocks; ++kb) {
      const int s = kb % kNarrowStages;
      mbar_wait(&smem.empty[s], ((kb / kNarrowStages) & 1) ^ 1);
      mbar_arrive_expect_tx(&smem.full[s], kATileBytes + kNarrowBTileBytes);
      const int k0 = kb * kBlockK;
      if constexpr (kNarrowCluster == 1 && kNarrowAEvictLast) {
        tma_load_2d_hint(smem.a[s], &map_a, &smem.full[s], k0, m0, policy_a);
      } else if constexpr (kNarrowCluster == 1) {
        tma_load_2d(smem.a[s], &map_a, &smem.full[s], k0, m0);
      } else {  // this CTA's rows of the A tile into both CTAs (map_a's box: kBlockM / 2 rows)
        constexpr int kRows = kBlockM / kNarrowCluster;
        tma_load_2d_multicast(smem.a[s] + rank * kRows * kBlockK, &map_a, &smem.full[s], k0,
                              m0 + static_cast<int>(rank) * kRows, (1u << kNarrowCluster) - 1);
      }
      if constexpr (kNarrowBEvictFirst)
        tma_load_2d_hint(smem.b[s], &map_b, &smem.full[s], k0, n0, policy_b);
      else
        tma_load_2d(smem.b[s], &map_b, &smem.full[s], k0, n0);
    }
    // NOTE: the peer's consumers arrive on this CTA's barriers: every stage released before exit.
    if constexpr (kNarrowCluster > 1)
      for (int i = 0; i < kNarrowStages; ++i, ++kb)
        mbar_wait(&smem.empty[kb % kNarrowStages], ((kb / kNarrowStages) & 1) ^ 1);
    return;
  }

  const int consumer = warpgroup - 1;  // rows [consumer * 64, consumer * 64 + 64) of the tile
  const bool lane0 = threadIdx.x % 32 == 0;
  auto release = [&](int s) {
    if constexpr (kNarrowCluster == 1) {
      mbar_arrive(&smem.empty[s]);
    } else {
#pragma unroll
      for (uint32_t cta = 0; cta < kNarrowCluster; ++cta) mbar_arrive_cluster(&smem.empty[s], cta);
    }
  };
  float d[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) d[i] = 0.f;
  for (int kb = 0; kb < k_blocks; ++kb) {
    const int s = kb % kNarrowStages;
    mbar_wait(&smem.full[s], (kb / kNarrowStages) & 1);
    const __nv_bfloat16* a_tile = smem.a[s] + consumer * 64 * kBlockK;  // (64, kBlockK)
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < kBlockK / 16; ++k)
      wgmma_m64n64k16(d, wgmma_desc_sw128(a_tile + k * 16, 16, 1024),
                      wgmma_desc_sw128(smem.b[s] + k * 16, 16, 1024));
    wgmma_commit();
    if (kb > 0) {
      wgmma_wait<1>();  // the group that read stage kb - 1 is done
      if (lane0) release((kb - 1) % kNarrowStages);
    }
  }
  wgmma_wait<0>();
  if (k_blocks > 0 && lane0) release((k_blocks - 1) % kNarrowStages);
  fence_regs(d);

  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int row_a = m0 + consumer * 64 + warp * 16 + lane / 4;
#pragma unroll
  for (int i = 0; i < kNarrowN / 8; ++i) {
    const int col = n0 + i * 8 + (lane % 4) * 2;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = row_a + half * 8;
      if (row < M && col < N)
        store_bf16_pair(c, row, col, N, d[i * 4 + half * 2], d[i * 4 + half * 2 + 1]);
    }
  }
}

// C = A * B^T on narrow tiles as `plan` says (plan.use): PTXB_OK, kNoTensorMap or
// kLaunchFailed. The caller checked the tensors.
int run_narrow(const NarrowPlan& plan, const void* a, const void* b, __nv_bfloat16* c, int64_t M,
               int64_t N, int64_t K, cudaStream_t stream) {
  CUtensorMap map_a, map_b;
  if (!encode_k_major(&map_a, a, M, K, kBlockM / kNarrowCluster) ||
      !encode_k_major(&map_b, b, N, K, kNarrowN))
    return kNoTensorMap;
  cudaLaunchAttribute cluster_dims = {};
  cluster_dims.id = cudaLaunchAttributeClusterDimension;
  cluster_dims.val.clusterDim = {static_cast<unsigned>(kNarrowCluster), 1, 1};
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(plan.tiles_m * plan.tiles_n);
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = kNarrowSharedBytes;
  config.stream = stream;
  config.attrs = &cluster_dims;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, gemm_bf16_narrow, map_a, map_b, c, static_cast<int>(M),
                            static_cast<int>(N), static_cast<int>(K), plan.tiles_n) == cudaSuccess
             ? PTXB_OK
             : kLaunchFailed;
}

}  // namespace
// ==== end kernels/gemm/sm90_gemm_bf16_narrow.cuh ====
// ==== begin kernels/gemm/sm90_gemm_bf16_tail_reduce.cuh (generated: scripts/amalgamate.py) ====
// The stream-K tail of the persistent bf16 GEMM built on the ring of
// gemm/sm90_gemm_bf16_ws_ring.cuh with the TMA producer (gemm/sm90_gemm_bf16_tma_ws_gemm.cuh): the
// tail schedule of a problem's (kBlockM, kBlockN) tiles, its workspace, and reduce_tail, which sums
// the tail tiles several CTAs share into C. Needs the ring and gemm/sm90_gemm_tail_schedule.cuh
// before it; experts hold a copy (scripts/amalgamate.py).

namespace {

// The tail schedule of an (M, N, K) problem on at most `sms` persistent CTAs where it has at least
// `min_waves` full waves of tiles (gated_tail_schedule), else none.
TailSchedule ring_tail_schedule(int64_t M, int64_t N, int64_t K, int sms, int min_waves) {
  return gated_tail_schedule(((M + kBlockM - 1) / kBlockM) * ((N + kBlockN - 1) / kBlockN),
                             static_cast<int>((K + kBlockK - 1) / kBlockK), sms, min_waves);
}
uint64_t tail_bytes(const TailSchedule& tail) {
  return tail_partial_bytes(tail, kBlockM * kBlockN);
}

// C over the tail tiles that several CTAs share: sum_tail_tiles, launched as a programmatic
// dependent of the GEMM kernel (griddep_wait returns at once after an ordinary launch).
__global__ void reduce_tail(const float* partials, __nv_bfloat16* c, const TailSchedule s, int M,
                            int N) {
  griddep_wait();
  const int rows = (M + kBlockM - 1) / kBlockM, tiles_n = (N + kBlockN - 1) / kBlockN;
  sum_tail_tiles<kBlockM, kBlockN>(
      partials, s, M, N, [&](int block) { return tile_of_block(block, rows, tiles_n); },
      [&](int row, int col, float v0, float v1) { store_bf16_pair(c, row, col, N, v0, v1); });
}

}  // namespace
// ==== end kernels/gemm/sm90_gemm_bf16_tail_reduce.cuh ====
// ==== begin kernels/gemm/sm90_gemm_tail_fixup.cuh (generated: scripts/amalgamate.py) ====
// The stream-K tail's shared tiles summed inside the GEMM kernel (kTailFixup of
// gemm/sm90_gemm_bf16_tma_ws_gemm.cuh) instead of by reduce_tail after it. Of the CTAs whose
// ranges touch a tail tile (TailSchedule::first_cta..last_cta), the last finishes it: the others
// store their pieces as fp32 partials and each sets a flag in the workspace (after the partial
// slots: one per slot and consumer half); the last CTA's consumer waits for the flags of its half,
// adds the partials to its accumulator in CTA order (the k order reduce_tail sums in: the same
// rounding) and leaves the tile to the caller to store as C. A CTA waits only on CTAs of lower
// index, which the GPU starts no later than it, so no CTA waits on one that may never start; and
// taking the pieces in descending order (TailOrder::pieces_descending) has the last CTA reach its
// piece after the others stored theirs. A flag holds the epoch of the launch that set it: ptxb_run
// passes a new epoch (never 0) to every launch, so the workspace needs no clearing, and the
// finishing CTA clears the flags it read, so a replay of the same launch finds them clear. No
// atomics (they would add a hardware-counter pass to the evidence run: docs/evidence.md, "Cost").
// Needs the ring and the tail schedule before it; experts hold a copy (scripts/amalgamate.py).
// The bookkeeping is checked on the host by tests/kernels/gemm_tail_schedule.cu; the
// synchronization only on a GPU.

namespace {

constexpr int kFixupBarrier = 4;  // named barriers 4 + consumer (store_tile_tma has 2 + consumer)
constexpr int kFixupQuads = kBlockN / 8;  // float4s of a consumer thread's accumulator
// float4 loads of another piece's partial kept in flight: 8 made the consumer spill (420 bytes)
// under the kernel's 168 registers a thread, 4 does not.
constexpr int kFixupBatch = 4;
static_assert(kFixupQuads % kFixupBatch == 0, "whole batches");

// Floats of the partial slots of `s` (tail_partial_bytes / 4): the flags follow them.
__host__ __device__ __forceinline__ int64_t tail_slot_floats(const TailSchedule& s) {
  return static_cast<int64_t>(s.ctas) * kMaxTailPieces * kBlockM * kBlockN;
}
// Workspace bytes of the flags of `s`.
uint64_t tail_fixup_bytes(const TailSchedule& s) {
  return static_cast<uint64_t>(s.ctas) * kMaxTailPieces * kConsumers * sizeof(uint32_t);
}
// Index of the flag of partial slot `slot`'s half `consumer` among the flags.
__host__ __device__ __forceinline__ int64_t fixup_flag_index(int slot, int consumer) {
  return static_cast<int64_t>(slot) * kConsumers + consumer;
}

// Index of float4 q of the calling consumer thread's accumulator in a partial slot: the slot
// holds the fragments as [consumer][warp][q][lane] float4s (a warp's stores and loads of one q
// cover 512 contiguous bytes). Private to tail_fixup: reduce_tail's slots are row-major.
__device__ __forceinline__ int64_t fixup_quad(int consumer, int q) {
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  return ((static_cast<int64_t>(consumer) * 4 + warp) * kFixupQuads + q) * 32 + lane;
}

__device__ __forceinline__ uint32_t ld_acquire_gpu(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
// Sets *p to v after every write the calling thread made or observed before it (a release).
__device__ __forceinline__ void st_release_gpu(uint32_t* p, uint32_t v) {
  asm volatile("fence.acq_rel.gpu;\n\tst.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v)
               : "memory");
}

// Tail tile t's piece computed by CTA `cta` into d, held by consumer warpgroup `consumer` (all
// its 128 threads call this): true when `cta` finishes the tile (its last CTA) and d now holds
// the tile's whole sum (the caller stores it as C), false when d went out as the piece's partial.
// `partials`: the workspace (slots, then flags).
__device__ __forceinline__ bool tail_fixup(float (&d)[kBlockN / 2], float* partials,
                                           const TailSchedule& s, int t, int cta, int consumer,
                                           uint32_t epoch) {
  const int first = s.first_cta(t), last = s.last_cta(t);
  uint32_t* flags = reinterpret_cast<uint32_t*>(partials + tail_slot_floats(s));
  auto slot_of = [&](int c) {
    return reinterpret_cast<float4*>(partials +
                                     static_cast<int64_t>(s.slot(c, t)) * kBlockM * kBlockN);
  };
  const bool leader = threadIdx.x % 128 == 0;
  if (cta != last) {
    float4* mine = slot_of(cta);
#pragma unroll
    for (int q = 0; q < kFixupQuads; ++q)
      __stcg(mine + fixup_quad(consumer, q),
             make_float4(d[4 * q], d[4 * q + 1], d[4 * q + 2], d[4 * q + 3]));
    named_barrier_sync<128>(kFixupBarrier + consumer);  // the warpgroup's fragments are stored
    if (leader) st_release_gpu(&flags[fixup_flag_index(s.slot(cta, t), consumer)], epoch);
    return false;
  }
  if (leader) {
    for (int c = first; c < last; ++c) {
      uint32_t* flag = &flags[fixup_flag_index(s.slot(c, t), consumer)];
      while (ld_acquire_gpu(flag) != epoch) {
      }
      *flag = 0;  // read: no other CTA touches it again in this launch
    }
  }
  named_barrier_sync<128>(kFixupBarrier + consumer);  // the others' partials are visible
  // d += the partials of CTAs first..last - 1, summed in that order first (reduce_tail's order)
#pragma unroll
  for (int q0 = 0; q0 < kFixupQuads; q0 += kFixupBatch) {
    // NOTE: the first partial loaded apart, not under `c == first` in the loop: that form made
    // the consumer spill (5 KB).
    float4 sum[kFixupBatch];
    const float4* first_partial = slot_of(first);
#pragma unroll
    for (int i = 0; i < kFixupBatch; ++i)
      sum[i] = __ldcg(first_partial + fixup_quad(consumer, q0 + i));
    for (int c = first + 1; c < last; ++c) {
      const float4* other = slot_of(c);
      float4 piece[kFixupBatch];
#pragma unroll
      for (int i = 0; i < kFixupBatch; ++i) piece[i] = __ldcg(other + fixup_quad(consumer, q0 + i));
#pragma unroll
      for (int i = 0; i < kFixupBatch; ++i) {
        sum[i].x += piece[i].x;
        sum[i].y += piece[i].y;
        sum[i].z += piece[i].z;
        sum[i].w += piece[i].w;
      }
    }
#pragma unroll
    for (int i = 0; i < kFixupBatch; ++i) {
      d[4 * (q0 + i)] = sum[i].x + d[4 * (q0 + i)];
      d[4 * (q0 + i) + 1] = sum[i].y + d[4 * (q0 + i) + 1];
      d[4 * (q0 + i) + 2] = sum[i].z + d[4 * (q0 + i) + 2];
      d[4 * (q0 + i) + 3] = sum[i].w + d[4 * (q0 + i) + 3];
    }
  }
  return true;
}

}  // namespace
// ==== end kernels/gemm/sm90_gemm_tail_fixup.cuh ====

// ==== begin kernels/gemm/sm90_gemm_bf16_tma_ws_gemm.cuh (generated: scripts/amalgamate.py) ====
// The plain GEMM of the TMA + wgmma expert solutions: the kernel over a grouped raster of output
// tiles with split-K for few-tile shapes, the split reduction, and ptxb_plan / ptxb_run. Needs the
// pieces of gemm/sm90_gemm_bf16_tma_ws.cuh before it (scripts/amalgamate.py copies both).

namespace {

// Whether a CTA loops over work units (one CTA per SM, the mbarrier ring running on from unit to
// unit so that the producer loads the next tile while the consumers store the last) or takes one
// unit (one CTA per unit). Persistent with kOwnStaging and 4 stages measured 0.994 / 0.974 / 0.998
// of cuBLASLt against 0.959 / 0.955 / 0.927 one unit per CTA (bench/gemm_dev, docs/tasks.md).
constexpr bool kPersistent = true;
// Whether a tile of C leaves through shared memory and TMA stores (store_tile_tma; full 128-byte
// lines, clipped by the map) instead of masked bf16x2 stores from registers. Without kOwnStaging
// the staging reuses the consumer's rows of the A stages, free once a CTA's single unit is
// consumed; a kPersistent CTA's producer already refills them.
constexpr bool kTmaStoreEpilogue = true;
// Whether the own staging (kStagingCols = 128 columns a consumer) is used as two buffers of one
// 64-column box, the tile leaving in four passes whose writes overlap the previous pass's store,
// instead of one buffer of two boxes, in two passes of which the second waits until the first's
// store has read the staging. Off: level on the H200 (0.985 / 0.983 / 0.988 / 1.025 against
// 0.986 / 0.984 / 0.986 / 1.026, bench/results/2026-12-05b-h200-session, `tma_dbstore`).
constexpr bool kDoubleBufferedStore = false;
constexpr int kStorePassCols = kDoubleBufferedStore ? kStoreBoxCols : kStagingCols;
// Whether split-K work units (few-row shapes) keep their fp32 partials in L2 for the reduction:
// B's boxes, read once, loaded evict_first, A's (read by every tile column) and the partial
// stores evict_last. Off: measured by bench/gemm_dev (`tma_split_l2policy`) before it is taken;
// Nsight Compute showed the reduction reading its 16 MB of partials from DRAM at 128x8192x8192.
constexpr bool kSplitL2Policy = false;
// Whether reduce_splits is launched as a programmatic dependent of the split GEMM kernel: the
// GEMM's CTAs allow it at their start, so it is launched (its CTAs waiting in griddepcontrol.wait
// until the GEMM grid has finished and its partials are visible) while the GEMM still runs,
// instead of after it: the launch gap between the two kernels is hidden.
constexpr bool kSplitPdl = true;
// Whether the last, partial wave of output tiles is spread over every CTA (stream-K on the tail,
// gemm/sm90_gemm_tail_schedule.cuh; 8192^3: 2048 tiles = 15 waves of 132 and 68), its partials
// summed by reduce_tail (a programmatic dependent launch, like reduce_splits). Only where split-K
// does not apply (tiles * 2 > SMs), with persistent CTAs and at
// least kStreamKMinWaves full waves. On the H200 (bench/results/2026-12-03f-h200-session-083f534)
// ungated it gained where there are many waves (8192^3 0.980 -> 0.987 of cuBLASLt,
// 4096x28672x4096 0.953 -> 0.963) and lost where there are few (4096^3, 3 waves: 0.996 -> 0.900;
// 4000x3000x2000, 2 waves: 0.999 -> 0.733): the partials and reduce_tail cost about a quarter of
// a wave. Gated (call F): 0.995 / 0.987 / 0.998 / 0.875 against 0.994 / 0.973 / 0.998 / 0.878
// (bench/gemm_dev/variants.sh `tma_nostreamk`, `llm_nostreamk`).
constexpr bool kStreamKTail = true;
constexpr int kStreamKMinWaves = 8;
// Whether the tail tiles several CTAs share are summed inside the GEMM kernel by the last CTA
// whose range touches them (tail_fixup, gemm/sm90_gemm_tail_fixup.cuh) instead of by reduce_tail
// after it: no second kernel, no wait for the whole grid, and the finishing piece's partial is
// never stored. Off until bench/gemm_dev measures it (`tma_tail_fixup`).
constexpr bool kTailFixup = false;
// Whether a CTA takes its tail pieces before its waves of whole tiles instead of after them: the
// pieces' partials (and with kTailFixup their sums) then happen early, and every CTA ends on whole
// tiles. Off until measured (`tma_tail_first`).
constexpr bool kTailFirst = false;
// tail_fixup's CTA that finishes a tile (the last whose range touches it) waits for the others'
// partials: its pieces in descending order reach that tile after they stored theirs.
constexpr TailOrder kTailOrder{kTailFirst, kTailFixup};
// Whether a persistent launch without the tail schedule takes the fewest CTAs that still finish
// its units in as many rounds as one CTA per SM (balanced_ctas): every CTA then takes as many
// units, and the SMs left over idle for the whole kernel instead of its last round (4096^3, 512
// tiles on 132 SMs: 128 CTAs of 4 tiles instead of 116 of 4 and 16 of 3; the same rounds, four
// SMs less drawing power). On the H200 (bench/results/2026-12-07e-session, call 2, two rounds,
// against the expert without it in the same round) 4096^3 1.006-1.007 of cuBLASLt against
// 0.996-0.997, 4000x3000x2000 0.999-1.002 against 0.990-0.993; the shapes it leaves alone (8192^3
// takes the tail schedule, 128x8192x8192 the narrow kernel) within 0.7%; `unbalanced` turns it off.
// Measured and not taken: with the tail schedule off (`tma_nostreamk_balanced`, 8192^3 on 128 CTAs
// of 16 tiles each) 0.969-0.975 against the tail schedule's 0.985-0.989; the same with CTA pairs
// (`tma_cluster2_balanced`) 0.970-0.976.
constexpr bool kBalancedWaves = true;
static_assert(!kStreamKTail || (kPersistent && kClusterM == 1),
              "the tail schedule runs on persistent single-CTA clusters");

// Workspace bytes of the tail schedule `tail`: its partial slots, and with kTailFixup their
// flags after them.
uint64_t tail_workspace_bytes(const TailSchedule& tail) {
  return tail.tail_tiles == 0 ? 0 : tail_bytes(tail) + (kTailFixup ? tail_fixup_bytes(tail) : 0);
}

// tail_fixup's epoch for the next launch: new for each launch (a bijection of the launch count:
// 2^32 - 1 launches before one repeats), never 0, and scattered over 32 bits, so that leftover
// data in a fresh workspace (small integers, say) is unlikely to read as the epoch's flag.
// ptxb_run is called from one host thread (docs/abi.md).
uint32_t next_tail_epoch() {
  static uint32_t launches = 0;
  uint32_t epoch = 0;
  while (epoch == 0) {
    epoch = ++launches * 0x9E3779B1u;  // odd: a bijection modulo 2^32
    epoch ^= epoch >> 16;              // a bijection too
  }
  return epoch;
}

static_assert(!kDoubleBufferedStore || kOwnStaging, "the buffers are the own staging's");
static_assert(!kTmaStoreEpilogue || !kPersistent || kOwnStaging,
              "the staging would race the next unit's loads");
static_assert(!kTmaStoreEpilogue || kOwnStaging || kStages * kStoreBoxCols >= kBlockN,
              "one A stage per box of the staged tile");

// Work unit u: block u % blocks of C (grouped raster over blocks of kClusterM tile rows by one
// tile column) and split u / blocks of K (k-blocks [split * split_kb, (split + 1) * split_kb)).
// The CTA of rank r in its cluster computes the block's tile row r. Cluster c takes units c,
// c + clusters, ... One split writes C; several write fp32 partials (`splits` of them) for
// reduce_splits. With store_by_tma (one split only), map_c maps C for store_tile_tma. With a
// tail schedule (tail.tail_tiles > 0) CTA c takes tail_unit(tail, ..., c, j) for every j, the
// pieces of shared tiles summed by reduce_tail, or with kTailFixup here (`epoch`: tail_fixup's,
// new for every launch and never 0).
__global__ void __launch_bounds__(kThreads, 1)
    gemm_bf16_tma_ws(const __grid_constant__ CUtensorMap map_a,
                     const __grid_constant__ CUtensorMap map_b,
                     const __grid_constant__ CUtensorMap map_c, bool store_by_tma, __nv_bfloat16* c,
                     float* partials, int M, int N, int K, int split_kb, int splits,
                     const TailSchedule tail, uint32_t epoch) {
  SharedStorage& smem = shared_storage();
  // The split reduction (kSplitPdl) may launch now; it waits for this grid to complete. No-op
  // without a dependent launch.
  if (kSplitPdl && (splits > 1 || (kStreamKTail && !kTailFixup && tail.tail_tiles > 0)))
    griddep_launch_dependents();
  const int warpgroup = warpgroup_index();
  const int rows = ((M + kBlockM - 1) / kBlockM + kClusterM - 1) / kClusterM;  // block rows
  const int tiles_n = (N + kBlockN - 1) / kBlockN;
  const int blocks = rows * tiles_n;
  const int units = blocks * splits;
  const int k_total = (K + kBlockK - 1) / kBlockK;
  const int tail_units = kStreamKTail ? tail_unit_bound(tail) : 0;
  const int cluster = blockIdx.x / kClusterM, clusters = gridDim.x / kClusterM;
  const int rank = kClusterM == 1 ? 0 : static_cast<int>(cluster_ctarank());
  auto tile_of = [&](int u) {  // this CTA's tile of unit u
    const TileCoord block = tile_of_block(u % blocks, rows, tiles_n);
    return TileCoord{(block.m0 / kBlockM * kClusterM + rank) * kBlockM, block.n0};
  };

  if (threadIdx.x == 0) init_barriers(smem);
  if constexpr (kClusterM == 1) {
    __syncthreads();
  } else {
    __syncwarp();    // barrier.cluster is .aligned: the warp converged
    cluster_sync();  // the peer's barriers exist before anything multicasts or arrives there
  }

  uint32_t it = 0;  // k-blocks through the ring so far (produce, consume)
  if (warpgroup == 0) {
    setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      TailUnit t;
      for (int j = 0; tail.tail_tiles > 0 && j < tail_units; ++j) {
        if (!tail_unit(tail, blocks, cluster, j, t, kTailOrder)) continue;
        const TileCoord tile = tile_of_block(t.block, rows, tiles_n);
        produce(smem, &map_a, &map_b, TileWork{tile.m0, tile.n0, tile.n0, t.kb_begin, t.k_blocks},
                it);
      }
      for (int u = cluster; (!kStreamKTail || tail.tail_tiles == 0) && u < units; u += clusters) {
        const TileCoord tile = tile_of(u);
        const int kb_begin = (u / blocks) * split_kb;
        const TileWork work{tile.m0, tile.n0, tile.n0, kb_begin, min(k_total - kb_begin, split_kb)};
        if (kSplitL2Policy && splits > 1)
          produce<kSplitL2Policy>(smem, &map_a, &map_b, work, it, l2_policy_evict_last(),
                                  l2_policy_evict_first());
        else
          produce(smem, &map_a, &map_b, work, it);
      }
      producer_tail(smem, it);
    }
    return;
  }

  setmaxnreg_inc<232>();
  const int consumer = warpgroup - 1;
  // A consumer's half of a whole tile of C (one split, no tail piece).
  auto store_whole = [&](const float(&d)[kBlockN / 2], const TileCoord& tile) {
    if (kTmaStoreEpilogue && store_by_tma)
      store_tile_tma<kBlockN, kOwnStaging ? kStorePassCols : kBlockN, false,
                     kOwnStaging ? kStagingCols / kStorePassCols : 1>(
          d, 1.f,
          kOwnStaging ? smem.staging + consumer * kStagingBytes
                      : reinterpret_cast<uint8_t*>(smem.a[0] + consumer * 64 * kBlockK),
          kOwnStaging ? 64 * kStoreBoxCols * 2 : kATileBytes, &map_c, consumer,
          tile.m0 + consumer * 64, tile.n0);
    else
      store_tile(d, c, tile.m0 + consumer * 64, tile.n0, M, N);
  };
  TailUnit t;
  for (int j = 0; tail.tail_tiles > 0 && j < tail_units; ++j) {
    if (!tail_unit(tail, blocks, cluster, j, t, kTailOrder)) continue;
    const TileCoord tile = tile_of_block(t.block, rows, tiles_n);
    float d[kBlockN / 2];
    consume(smem, consumer, t.k_blocks, d, it, slices_in_last_k_block(t.kb_begin + t.k_blocks, K));
    if (t.slot < 0) {
      store_whole(d, tile);
    } else if (kTailFixup) {  // the tile's last CTA stores it whole
      if (tail_fixup(d, partials, tail, t.block - tail.waves * tail.ctas, cluster, consumer, epoch))
        store_whole(d, tile);
    } else {  // the slot's (kBlockM, kBlockN) fp32 tile, row-major
      store_partial(d, partials + static_cast<int64_t>(t.slot) * kBlockM * kBlockN, consumer * 64,
                    0, kBlockM, kBlockN);
    }
  }
  for (int u = cluster; (!kStreamKTail || tail.tail_tiles == 0) && u < units; u += clusters) {
    const TileCoord tile = tile_of(u);
    const int split = u / blocks;
    const int kb_begin = split * split_kb;
    const int k_blocks = min(k_total - kb_begin, split_kb);
    float d[kBlockN / 2];
    consume(smem, consumer, k_blocks, d, it, slices_in_last_k_block(kb_begin + k_blocks, K));
    if (splits > 1)
      store_partial<kSplitL2Policy>(d, partials + static_cast<int64_t>(split) * M * N,
                                    tile.m0 + consumer * 64, tile.n0, M, N,
                                    kSplitL2Policy ? l2_policy_evict_last() : 0);
    else
      store_whole(d, tile);
  }
  if (kTmaStoreEpilogue && threadIdx.x % 128 == 0)
    bulk_wait_group_read<0>();  // the staging stays until read: before exit
}

// Split-K inside a cluster (kSplitCluster, off here; bench/gemm_dev measures it): the `splits`
// CTAs of a cluster compute the K splits of one output tile (rank = split). Each leaves its fp32
// partial tile in its own shared memory (the stage buffers, free once its k-blocks are consumed);
// after a cluster barrier each sums one slice of the tile's rows over every CTA's partial, in
// split order, through distributed shared memory and writes bf16 C. No partials in global memory
// and no second kernel.
constexpr bool kSplitCluster = false;
constexpr int kMaxClusterSplits = 8;    // the portable cluster size
constexpr int kRedPitch = kBlockN + 8;  // floats per row of a partial tile (+8: fewer conflicts)
static_assert(!kSplitCluster || kClusterM == 1, "split clusters are clusters along K only");
static_assert(kBlockM * kRedPitch * sizeof(float) <=
                  sizeof(SharedStorage::a) + sizeof(SharedStorage::b),
              "a partial tile fits in the stage buffers");

__global__ void __launch_bounds__(kThreads, 1)
    gemm_bf16_tma_ws_split_cluster(const __grid_constant__ CUtensorMap map_a,
                                   const __grid_constant__ CUtensorMap map_b, __nv_bfloat16* c,
                                   int M, int N, int K, int split_kb, int splits) {
  SharedStorage& smem = shared_storage();
  const int warpgroup = warpgroup_index();
  const int rank = static_cast<int>(cluster_ctarank());  // the split
  const TileCoord tile =
      tile_of_block(blockIdx.x / splits, (M + kBlockM - 1) / kBlockM, (N + kBlockN - 1) / kBlockN);
  const int kb_begin = rank * split_kb;
  const int k_blocks = min((K + kBlockK - 1) / kBlockK - kb_begin, split_kb);
  float* partial = reinterpret_cast<float*>(&smem.a[0][0]);  // (kBlockM, kRedPitch)

  if (threadIdx.x == 0) init_barriers(smem);
  __syncthreads();

  uint32_t it = 0;
  if (warpgroup == 0) {
    setmaxnreg_dec<40>();
    if (threadIdx.x == 0)
      produce(smem, &map_a, &map_b, TileWork{tile.m0, tile.n0, tile.n0, kb_begin, k_blocks}, it);
  } else {
    setmaxnreg_inc<232>();
    const int consumer = warpgroup - 1;
    float d[kBlockN / 2];
    consume(smem, consumer, k_blocks, d, it, slices_in_last_k_block(kb_begin + k_blocks, K));
    // Both consumer warpgroups are done with the stage buffers before either overwrites them.
    named_barrier_sync_immediate<1, 128 * kConsumers>();
    const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const int row = consumer * 64 + warp * 16 + lane / 4;
#pragma unroll
    for (int i = 0; i < kBlockN / 8; ++i) {
      const int col = i * 8 + (lane % 4) * 2;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        float* dst = partial + (row + half * 8) * kRedPitch + col;
        dst[0] = d[i * 4 + half * 2];
        dst[1] = d[i * 4 + half * 2 + 1];
      }
    }
  }
  __syncwarp();
  cluster_sync();  // every CTA's partial tile written

  const int per = (kBlockM + splits - 1) / splits;  // rows summed by each CTA
  const int row0 = rank * per, rows = max(0, min(per, kBlockM - row0));
  if (warpgroup > 0) {
    for (int i = threadIdx.x - 128; i < rows * (kBlockN / 2); i += 128 * kConsumers) {
      const int r = row0 + i / (kBlockN / 2), col = 2 * (i % (kBlockN / 2));
      float x = 0.f, y = 0.f;
      for (int q = 0; q < splits; ++q) {
        float px, py;
        ld_shared_cluster_f32x2(partial + r * kRedPitch + col, static_cast<uint32_t>(q), px, py);
        x += px;
        y += py;
      }
      const int gr = tile.m0 + r, gc = tile.n0 + col;
      if (gr < M && gc < N) store_bf16_pair(c, gr, gc, N, x, y);
    }
  }
  __syncwarp();
  cluster_sync();  // no CTA leaves while a peer still reads its shared memory
}

// Resident clusters of each size 1..kMaxClusterSplits (index = size; kSplitCluster only), read by
// ptxb_plan: on the H200 66 clusters of 2 fit but only 30 of 4, so 32 tiles split 4 ways would
// run their last 2 clusters as a second wave (bench/probes/cluster_occupancy_probe.cu).
int g_max_clusters[kMaxClusterSplits + 1] = {};

// How the work is cut (few_tile_splits: several splits only when the output tiles fill less than
// half the SMs and every split keeps kMinKBlocksPerSplit k-blocks); split clusters also all
// resident at once.
SplitK split_k(int64_t M, int64_t N, int64_t K, int sms) {
  const int64_t tiles = ((M + kBlockM - 1) / kBlockM) * ((N + kBlockN - 1) / kBlockN);
  const int k_blocks = static_cast<int>((K + kBlockK - 1) / kBlockK);
  int splits = few_tile_splits(tiles, k_blocks, sms, kMinKBlocksPerSplit);
  if (kSplitCluster) {
    splits = std::min(splits, kMaxClusterSplits);
    while (splits > 1 && tiles > g_max_clusters[splits]) --splits;
  }
  return cut_k(k_blocks, splits);
}

int g_sms = 0;  // the device's SM count, read by ptxb_plan

// The fewest CTAs (at most `most`) that take `units` units in as many rounds as `most` CTAs do.
int balanced_ctas(int units, int most) {
  if (units <= 0 || most <= 0) return most;
  const int rounds = (units + most - 1) / most;
  return (units + rounds - 1) / rounds;
}

// The tail schedule of an (M, N, K) problem cut as `split` (kStreamKTail; no tail with splits or
// fewer than kStreamKMinWaves full waves).
TailSchedule plan_tail(int64_t M, int64_t N, int64_t K, const SplitK& split) {
  if (!kStreamKTail || split.splits > 1) return {};
  return ring_tail_schedule(M, N, K, g_sms, kStreamKMinWaves);
}

// A launch of `blocks` CTAs of the kernels here (a multiple of `cluster`) in clusters of
// `cluster` CTAs along x; `cluster_dims` holds the attribute the config points to.
cudaLaunchConfig_t cluster_config(int blocks, int cluster, cudaStream_t stream,
                                  cudaLaunchAttribute& cluster_dims) {
  cluster_dims = {};
  cluster_dims.id = cudaLaunchAttributeClusterDimension;
  cluster_dims.val.clusterDim = {static_cast<unsigned>(cluster), 1, 1};
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = kSharedBytes;
  config.stream = stream;
  config.attrs = &cluster_dims;
  config.numAttrs = 1;
  return config;
}

// `kernel` on `blocks` CTAs (a multiple of `cluster`) in clusters of `cluster` CTAs along x.
template <typename... Params, typename... Args>
cudaError_t launch_in_clusters(void (*kernel)(Params...), int blocks, int cluster,
                               cudaStream_t stream, Args... args) {
  cudaLaunchAttribute cluster_dims;
  const cudaLaunchConfig_t config = cluster_config(blocks, cluster, stream, cluster_dims);
  return cudaLaunchKernelEx(&config, kernel, args...);
}

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaFuncSetAttribute(gemm_bf16_tma_ws, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(kSharedBytes)) != cudaSuccess ||
      cudaFuncSetAttribute(gemm_bf16_tma_ws_split_cluster,
                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(kSharedBytes)) != cudaSuccess ||
      cudaFuncSetAttribute(gemm_bf16_narrow, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(kNarrowSharedBytes)) != cudaSuccess)
    return kLaunchFailed;
  *workspace_bytes = 0;
  if (kSplitCluster) {  // the partials stay in shared memory
    for (int size = 1; size <= kMaxClusterSplits; ++size) {
      cudaLaunchAttribute cluster_dims;
      const cudaLaunchConfig_t config = cluster_config(size * g_sms, size, nullptr, cluster_dims);
      if (cudaOccupancyMaxActiveClusters(&g_max_clusters[size], gemm_bf16_tma_ws_split_cluster,
                                         &config) != cudaSuccess)
        return kLaunchFailed;
    }
    return PTXB_OK;
  }
  if (problem->num_inputs == 2 && problem->inputs[0].rank == 2 && problem->inputs[1].rank == 2) {
    const int64_t M = problem->inputs[0].shape[0], K = problem->inputs[0].shape[1],
                  N = problem->inputs[1].shape[0];
    const SplitK split = split_k(M, N, K, g_sms);
    *workspace_bytes = plan_narrow(M, N, K, g_sms).use
                           ? 0
                           : std::max(split_partial_bytes(split, M, N),
                                      tail_workspace_bytes(plan_tail(M, N, K, split)));
  }
  return PTXB_OK;
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const std::optional<GemmDims> dims = gemm_dims(*args->problem);
  if (!dims) return kBadProblem;
  const auto [M, N, K] = *dims;

  const auto stream = static_cast<cudaStream_t>(args->stream);
  auto* c = static_cast<__nv_bfloat16*>(args->outputs[0]);
  auto* partials = static_cast<float*>(args->workspace);
  if (const NarrowPlan narrow = plan_narrow(M, N, K, g_sms); narrow.use && !kSplitCluster)
    return run_narrow(narrow, args->inputs[0], args->inputs[1], c, M, N, K, stream);
  CUtensorMap map_a, map_b, map_c = {};
  if (!encode_k_major(&map_a, args->inputs[0], M, K, kBlockM) ||
      !encode_k_major(&map_b, args->inputs[1], N, K, kBlockN / kClusterM))
    return kNoTensorMap;

  const SplitK split = split_k(M, N, K, g_sms);
  // NOTE: an N without a 16-byte row pitch keeps the stores from registers.
  const bool store_by_tma =
      kTmaStoreEpilogue && split.splits == 1 && encode_c_store(&map_c, args->outputs[0], M, N);
  if (!kSplitCluster && args->workspace_bytes < split_partial_bytes(split, M, N))
    return kBadProblem;
  const TailSchedule tail = plan_tail(M, N, K, split);
  if (args->workspace_bytes < tail_workspace_bytes(tail)) return kBadProblem;
  if (kSplitCluster && split.splits > 1) {
    const int tiles =
        static_cast<int>(((M + kBlockM - 1) / kBlockM) * ((N + kBlockN - 1) / kBlockN));
    return launch_in_clusters(gemm_bf16_tma_ws_split_cluster, tiles * split.splits, split.splits,
                              stream, map_a, map_b, c, static_cast<int>(M), static_cast<int>(N),
                              static_cast<int>(K), split.split_kb, split.splits) == cudaSuccess
               ? PTXB_OK
               : kLaunchFailed;
  }
  const int rows = static_cast<int>(((M + kBlockM - 1) / kBlockM + kClusterM - 1) / kClusterM);
  const int units = rows * static_cast<int>((N + kBlockN - 1) / kBlockN) * split.splits;
  int clusters = kPersistent ? std::min(units, g_sms / kClusterM) : units;
  if (kBalancedWaves && kPersistent && tail.tail_tiles == 0)
    clusters = balanced_ctas(units, clusters);
  const uint32_t epoch = kTailFixup && tail.tail_tiles > 0 ? next_tail_epoch() : 0;
  if constexpr (kClusterM == 1) {
    gemm_bf16_tma_ws<<<clusters, kThreads, kSharedBytes, stream>>>(
        map_a, map_b, map_c, store_by_tma, c, partials, static_cast<int>(M), static_cast<int>(N),
        static_cast<int>(K), split.split_kb, split.splits, tail, epoch);
  } else if (launch_in_clusters(gemm_bf16_tma_ws, clusters * kClusterM, kClusterM, stream, map_a,
                                map_b, map_c, store_by_tma, c, partials, static_cast<int>(M),
                                static_cast<int>(N), static_cast<int>(K), split.split_kb,
                                split.splits, tail, epoch) != cudaSuccess) {
    return kLaunchFailed;
  }
  if (sum_splits(split, partials, c, M, N, g_sms, kSplitPdl, stream) != cudaSuccess)
    return kLaunchFailed;
  if (tail.tail_tiles > 0 && !kTailFixup) {
    if (launch_dependent(reduce_tail, static_cast<int64_t>(tail.tail_tiles) * kBlockM * kBlockN / 4,
                         g_sms, kSplitPdl, stream, static_cast<const float*>(partials), c, tail,
                         static_cast<int>(M), static_cast<int>(N)) != cudaSuccess)
      return kLaunchFailed;
  }
  return cudaGetLastError() == cudaSuccess ? PTXB_OK : kLaunchFailed;
}
// ==== end kernels/gemm/sm90_gemm_bf16_tma_ws_gemm.cuh ====
