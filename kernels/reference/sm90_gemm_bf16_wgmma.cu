// Expert solution for sm90/gemm/bf16-wgmma: C[M,N] = A[M,K] * B[N,K]^T with bf16 inputs, fp32
// accumulation and bf16 output (all row-major, B K-major), loads by cp.async only (no TMA).
//
// Design (written for PTXBench; the TMA expert's warp-specialized ring with a cp.async producer):
// - one CTA per SM loops over (128, 256) output tiles in a grouped raster, 384 threads: warpgroup 0
//   produces, warpgroups 1 and 2 each compute a (64, 256) half with wgmma m64n256k16 (A and B
//   K-major from shared memory, 128-byte swizzle); setmaxnreg gives the producer 40 registers and
//   the consumers 232 (128 accumulators each);
// - a 4-stage ring of (128, 64) A and (256, 64) B k-blocks with a full and an empty mbarrier per
//   stage. Every producer thread copies one 16-byte chunk column of every 16th row with cp.async
//   (24 copies a k-block, about six instructions each: one pointer walks the rows), writing the
//   swizzled layout itself, and arrives on the stage's full barrier when its copies complete
//   (cp.async.mbarrier.arrive.noinc: 128 arrivals complete a stage); the consumers fence the
//   stage to the async proxy after their wait. Consumers release a stage when the wgmma group
//   after it is issued (one group in flight);
// - the producer runs on into the next tile while the consumers store the last one: each
//   consumer stages its (64, 256) half in two (64, 128) passes through 16 KB of shared memory of
//   its own (128-byte swizzle) and stores 16-byte chunks, masked at M and N; rows past M, columns
//   past K zero-filled;
// - few-tile shapes (tiles <= SMs / 2, e.g. 128 x 8192 x 8192: 32 tiles) split K over idle SMs
//   (fp32 partials in the workspace, summed in split order by reduce_splits, a programmatic
//   dependent); no stream-K tail (measured slower here, see the kernel's header).
// H200 (bench/results/2026-12-05b-h200-session, call v1): 0.78 / 0.73 / 0.77 / 0.83 of cuBLASLt
// (4096^3, 8192^3, 4000x3000x2000, 128x8192x8192; 0.70-0.72 at 8192^3 on later machine starts),
// before the producer's unchecked interior copies and the warp-uniform warpgroup index; with them
// on an H100 0.87 / 0.84 / 0.85 / 0.85 against 0.78 / 0.73-0.75 / 0.78 / 0.85 in the same call
// (bench/results/2026-12-06b-session, call A).
// Requirements checked by ptxb_run: K % 8 == 0, 16-byte aligned pointers, row-major tensors.
// NOTE: a submission is one self-contained file (docs/abi.md): the pieces below are copies of
// kernels/ptx/ and kernels/gemm/ files, kept equal to them by scripts/amalgamate.py.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <algorithm>
#include <cstdint>
#include <optional>

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
// ==== begin kernels/ptx/cp_async.cuh (generated: scripts/amalgamate.py) ====
// Ampere-style asynchronous copies, global -> shared, 16 bytes per thread (cp.async.cg), grouped
// with commit_group and waited for with wait_group, or signalled on an mbarrier.

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
// ==== end kernels/ptx/cp_async.cuh ====
// ==== begin kernels/ptx/prefetch.cuh (generated: scripts/amalgamate.py) ====
// Software prefetch of global memory into the L2 cache: a hint, no data reaches the SM and no
// result is waited for.

// Asks for the 128-byte line of global memory holding `p` to be brought into L2.
__device__ __forceinline__ void prefetch_l2(const void* p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}
// ==== end kernels/ptx/prefetch.cuh ====
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
// ==== begin kernels/gemm/sm90_gemm_bf16_cp_async_ws.cuh (generated: scripts/amalgamate.py) ====
// The warp-specialized cp.async + wgmma bf16 GEMM (C = A * B^T, bf16 in, fp32 accumulation, bf16
// out, row-major, B K-major; no TMA): a producer warpgroup of 128 threads fills the ring of
// gemm/sm90_gemm_bf16_ws_ring.cuh with 16-byte cp.async copies, two consumer warpgroups run
// wgmma on it, one CTA per SM loops over the output tiles, and few-tile shapes split K (fp32
// partials summed by reduce_splits, gemm/sm90_gemm_split_sum.cuh). Needs the ring and the split
// sum before it (scripts/amalgamate.py copies them); ptxb_plan / ptxb_run at the end.
// NOTE: no stream-K tail (the TMA expert's, gemm/sm90_gemm_bf16_tail_reduce.cuh): on this kernel
// it measured 2-3% slower on every shape, also on those without a tail (H200, 0.746 / 0.699 /
// 0.748 / 0.823 against 0.767 / 0.704 / 0.767 / 0.828 of cuBLASLt;
// bench/results/2026-12-05b-h200-session, whose v2 and v3 tars hold that source).

namespace {

constexpr int kProducerThreads = 128;            // warpgroup 0, every thread copies
constexpr int kChunksPerRow = kBlockK * 2 / 16;  // 16-byte chunks of a tile row (8)
constexpr int kRowsPerPass =
    kProducerThreads / kChunksPerRow;  // rows one pass of the threads fills
// k-blocks whose copies a producer thread keeps in flight before it waits for the oldest, makes it
// visible to the async proxy and marks its stage full. The consumers can then hold two stages (one
// in wgmma, one waiting for release) while the producer fills the others: kStages >= kLag + 2, or
// the producer would wait for a stage the consumers can only free after a stage it still holds.
constexpr int kLag = 2;
// Whether each producer thread's stage is marked full by the hardware when its copies complete
// (cp.async.mbarrier.arrive.noinc: no wait, no fence in the producer; the consumers fence the
// stage to the async proxy after their wait) instead of after kLag more k-blocks (the wait,
// fence and arrive above). On the H200 (bench/results/2026-12-05b-h200-session) 0.779 / 0.727 /
// 0.775 / 0.833 of cuBLASLt against 0.758 / 0.696 / 0.751 / 0.826 with the lag.
constexpr bool kArriveOnCompletion = true;
// k-blocks ahead of its copies at which every producer thread asks L2 for a unit's rows
// (prefetch.global.L2, a line of each of three of the tile's 384 rows a k-block; 0: none), so
// that the copies, which the ring's depth keeps at most kStages k-blocks ahead of the wgmma, find
// their lines in L2 more often than in DRAM. 2 and 4 were 1-16% slower on every timed shape (H100,
// bench/results/2026-12-05d-h100-session, variants `wgmma_prefetch2`, `wgmma_prefetch4`).
constexpr int kL2PrefetchAhead = 0;
// Whether a producer thread whose rows of a tile are all in bounds (every tile but the last row
// and column of tiles) copies without the per-copy bound, selects and source size
// (copy_tile_chunks' unchecked path): the producer's k-block 160 -> 99 instructions on such tiles
// (static, ptxas 13.0, bench/sass_loops.py --around LDGSTS). H100, three interleaved rounds of
// `ptxbench eval` beside the expert without it (bench/results/2026-12-06b-session, call A): 1.088
// / 1.113 / 1.063 / 1.001 of its speedups (4096^3, 8192^3, 4000x3000x2000, 128x8192x8192);
// 1.112 / 1.138 / 1.090 / 1.002 with the warp-uniform warpgroup index too. The producer's issue
// rate bounded the kernel. Undone by variants `wgmma_checked`, `wgmma_checked_threadwg`.
constexpr bool kUncheckedInterior = true;
static_assert(kStages >= kLag + 2, "the ring must hold the lag and the consumers' two stages");
static_assert(kClusterM == 1, "cp.async fills one CTA's ring: no multicast");
static_assert(kBlockM % kRowsPerPass == 0 && kBlockN % kRowsPerPass == 0, "whole passes");
// Whether reduce_splits is a programmatic dependent of the split GEMM (its launch hidden under it).
constexpr bool kSplitPdl = true;
// Whether a whole tile leaves through the consumer's staging (store_tile_staged: 16-byte stores of
// whole 128-byte row segments) instead of bf16x2 stores from the accumulators (store_tile). The
// TMA expert's direct stores cost it 8-12% against its staged (TMA) stores; the older cp.async
// expert gained from the same staging.
constexpr bool kStagedEpilogue = true;
static_assert(!kStagedEpilogue || (kOwnStaging && kStagingCols == 128 && kBlockN % 128 == 0),
              "a consumer stages (64, 128) of its (64, kBlockN) tile at a time");

// This producer thread's 16-byte chunks of the (kRows, kBlockK) tile at rows [row0, row0 + kRows)
// and columns [k0, k0 + kBlockK) of a row-major (num_rows, K) matrix: chunk `chunk` of tile rows
// first, first + kRowsPerPass, ..., written into `stage` in the 128-byte swizzle the wgmma
// descriptors describe (chunk c of row r at chunk c ^ (r % 8)). Rows past num_rows and columns
// past K are zero-filled (cp.async's source size 0; K % 8 == 0: a chunk is all in or all out) and
// read the matrix's first element instead, so no address leaves the matrix.
// NOTE: unrolled, one pointer walking the rows: a copy costs about six instructions (bound,
// selects, the copy, the 64-bit step). The loop it replaces, with a row and column bound and a
// 64-bit address per copy, took about 22, and the producer's issue rate bounded the kernel; the
// hoisted row addresses of every copy would not fit the producer's 40 registers (setmaxnreg).
template <int kRows>
__device__ __forceinline__ void copy_tile_chunks(__nv_bfloat16* stage, const __nv_bfloat16* src,
                                                 int num_rows, int K, int row0, int k0, int first,
                                                 int chunk) {
  const int k = k0 + chunk * 8;
  const int rows_left = k < K ? num_rows - row0 - first : 0;  // rows of this thread in bounds
  const __nv_bfloat16* from = src + static_cast<int64_t>(row0 + first) * K + k;
  const int64_t pass_stride = static_cast<int64_t>(kRowsPerPass) * K;
  // (first % 8) == (r % 8) for every row r this thread copies: one swizzled chunk position.
  __nv_bfloat16* to = stage + first * kBlockK + ((chunk ^ (first % 8)) * 8);
  // The last row's bound, which every earlier row also meets.
  if (kUncheckedInterior && (kRows / kRowsPerPass - 1) * kRowsPerPass < rows_left) {
#pragma unroll
    for (int i = 0; i < kRows / kRowsPerPass; ++i) {
      cp_async_16_full(to + i * kRowsPerPass * kBlockK, from);
      from += pass_stride;
    }
    return;
  }
#pragma unroll
  for (int i = 0; i < kRows / kRowsPerPass; ++i) {
    const bool in_bounds = i * kRowsPerPass < rows_left;
    cp_async_16(to + i * kRowsPerPass * kBlockK, in_bounds ? from : src, in_bounds ? 16 : 0);
    from += pass_stride;
  }
}

// This producer thread's share of the L2 prefetch of k-block column k0 of the unit's A and B
// tiles (kL2PrefetchAhead): the first line of tile rows thread, thread + kProducerThreads, ...
// (A's kBlockM rows, then B's kBlockN), rows past M or N skipped.
__device__ __forceinline__ void prefetch_unit_rows(const __nv_bfloat16* a, const __nv_bfloat16* b,
                                                   int M, int N, int K, const TileWork& w, int k0,
                                                   int thread) {
  static_assert((kBlockM + kBlockN) % kProducerThreads == 0 && kBlockM % kProducerThreads == 0,
                "whole passes, each all A or all B");
#pragma unroll
  for (int pass = 0; pass < (kBlockM + kBlockN) / kProducerThreads; ++pass) {
    const int r = pass * kProducerThreads + thread;
    const bool in_a = pass < kBlockM / kProducerThreads;
    const int row = in_a ? w.m0 + r : w.b_row0 + r - kBlockM;
    if (row < (in_a ? M : N)) prefetch_l2((in_a ? a : b) + static_cast<int64_t>(row) * K + k0);
  }
}

// Every producer thread: streams the unit's (kBlockM, kBlockK) A and (kBlockN, kBlockK) B k-blocks
// through the ring, each thread kRowsPerPass-th of the rows, one chunk column. `it` as in
// consume(): the k-blocks this CTA put through the ring before, advanced past this unit's. A stage
// is full once all kProducerThreads threads arrived on it, each after its own copies landed and a
// proxy fence made them visible to wgmma's reads (NOTE: cp.async writes through the generic proxy).
// The unit's last kLag k-blocks are marked full at its end.
__device__ __forceinline__ void produce_cp_async(SharedStorage& smem, const __nv_bfloat16* a,
                                                 const __nv_bfloat16* b, int M, int N, int K,
                                                 const TileWork& w, uint32_t& it) {
  const int thread = static_cast<int>(threadIdx.x) % kProducerThreads;
  const int chunk = thread % kChunksPerRow, first = thread / kChunksPerRow;
  int pending = 0;  // k-blocks copied by this thread, not yet marked full
  for (int kb = 0; kb < w.k_blocks; ++kb, ++it) {
    const uint32_t s = it % kStages;
    if (kL2PrefetchAhead > 0 && kb + kL2PrefetchAhead < w.k_blocks)
      prefetch_unit_rows(a, b, M, N, K, w, (w.kb_begin + kb + kL2PrefetchAhead) * kBlockK, thread);
    // NOTE: a fresh barrier counts as having completed the phase before phase 0 (parity 1).
    mbar_wait(&smem.empty[s], ((it / kStages) & 1) ^ 1);
    const int k0 = (w.kb_begin + kb) * kBlockK;
    copy_tile_chunks<kBlockM>(smem.a[s], a, M, K, w.m0, k0, first, chunk);
    copy_tile_chunks<kBlockN>(smem.b[s], b, N, K, w.b_row0, k0, first, chunk);
    cp_async_commit();
    if constexpr (kArriveOnCompletion) {
      cp_async_mbar_arrive_noinc(&smem.full[s]);
      continue;
    }
    if (pending < kLag) {
      ++pending;
      continue;
    }
    cp_async_wait<kLag>();  // k-block it - kLag has landed
    fence_proxy_async_shared();
    mbar_arrive(&smem.full[(it - kLag) % kStages]);
  }
  if constexpr (kArriveOnCompletion) return;
  cp_async_wait<0>();
  fence_proxy_async_shared();
  for (; pending > 0; --pending) mbar_arrive(&smem.full[(it - pending) % kStages]);
}

// Consumer warpgroup `consumer`'s (64, kBlockN) tile of accumulators d at rows [row0, row0 + 64)
// and columns [n0, n0 + kBlockN) of C, rounded to bf16, through its `staging` (64 x 128 bf16) in
// kBlockN / 128 passes: the accumulators go to two (64, 64) halves of 128-byte rows with the
// 128-byte swizzle (chunk c of row r at chunk c ^ (r % 8): conflict-free), then every thread of
// the warpgroup stores 16-byte chunks, a row's 16 chunks by 16 consecutive threads. Elements past
// M or N are masked. Named barrier 1 + consumer (its 128 threads) orders the writes and reads.
__device__ __forceinline__ void store_tile_staged(const float (&d)[kBlockN / 2], uint8_t* staging,
                                                  __nv_bfloat16* c, int row0, int n0, int M, int N,
                                                  int consumer) {
  static_assert(kConsumers == 2, "named barriers 1 and 2, one per consumer warpgroup");
  constexpr uint32_t kHalfBytes = 64 * 128;  // a (64, 64) bf16 half
  constexpr int kPassGroups = 16;            // 8-column groups of the accumulators per pass
  const int thread = static_cast<int>(threadIdx.x) % 128;
  const int warp = thread / 32, lane = thread % 32;
  auto sync_consumer = [&] {  // NOTE: immediate ids (ptx/barrier.cuh)
    if (consumer == 0)
      named_barrier_sync_immediate<1, 128>();
    else
      named_barrier_sync_immediate<2, 128>();
  };
#pragma unroll
  for (int pass = 0; pass < kBlockN / 128; ++pass) {
#pragma unroll
    for (int j = 0; j < kPassGroups; ++j) {
      const int i = pass * kPassGroups + j;  // the accumulators' 8-column group
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int r = warp * 16 + lane / 4 + half * 8;
        *reinterpret_cast<__nv_bfloat162*>(staging + (j / 8) * kHalfBytes + r * 128 +
                                           (((j % 8) ^ (r % 8)) * 16) + (lane % 4) * 4) =
            __floats2bfloat162_rn(d[i * 4 + half * 2], d[i * 4 + half * 2 + 1]);
      }
    }
    sync_consumer();  // the pass is staged
#pragma unroll
    for (int k = 0; k < 64 * kPassGroups / 128; ++k) {
      const int idx = k * 128 + thread;
      const int r = idx / kPassGroups, chunk = idx % kPassGroups;
      const int row = row0 + r, col = n0 + pass * 128 + chunk * 8;
      if (row >= M || col >= N) continue;
      const uint8_t* from =
          staging + (chunk / 8) * kHalfBytes + r * 128 + (((chunk % 8) ^ (r % 8)) * 16);
      __nv_bfloat16* dst = c + static_cast<int64_t>(row) * N + col;
      if (N % 8 == 0) {  // col + 8 <= N and 16-byte aligned
        *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(from);
      } else {
        const auto* e = reinterpret_cast<const __nv_bfloat16*>(from);
        for (int q = 0; q < 8 && col + q < N; ++q) dst[q] = e[q];
      }
    }
    sync_consumer();  // read before the next pass (or tile) overwrites it
  }
}

// Work unit u: output tile u % blocks (grouped raster) and K split u / blocks (k-blocks
// [split * split_kb, (split + 1) * split_kb)). CTA x takes units x, x + gridDim.x, ... One split
// writes C; several write fp32 partials (`splits` planes of M x N) for reduce_splits.
__global__ void __launch_bounds__(kThreads, 1)
    gemm_bf16_cp_async_ws(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
                          __nv_bfloat16* __restrict__ c, float* partials, int M, int N, int K,
                          int split_kb, int splits) {
  SharedStorage& smem = shared_storage();
  // The split reduction (kSplitPdl) may launch now; it waits for this grid to complete.
  if (kSplitPdl && splits > 1) griddep_launch_dependents();
  // NOTE: warp-uniform (ptx/wgmma.cuh): 1.014 / 1.007 / 1.017 / 1.000 of the speedups with
  // threadIdx.x / 128 on the H100 (bench/results/2026-12-06b-session, `wgmma_uniformwg`).
  const int warpgroup = warpgroup_index();
  const int tiles_m = (M + kBlockM - 1) / kBlockM, tiles_n = (N + kBlockN - 1) / kBlockN;
  const int blocks = tiles_m * tiles_n;
  const int units = blocks * splits;
  const int k_total = (K + kBlockK - 1) / kBlockK;
  auto work_of = [&](int u) {
    const TileCoord tile = tile_of_block(u % blocks, tiles_m, tiles_n);
    const int kb_begin = (u / blocks) * split_kb;
    return TileWork{tile.m0, tile.n0, tile.n0, kb_begin, min(k_total - kb_begin, split_kb)};
  };

  if (threadIdx.x == 0) init_barriers(smem, kProducerThreads);
  __syncthreads();

  uint32_t it = 0;  // k-blocks through the ring so far (produce_cp_async, consume)
  if (warpgroup == 0) {
    setmaxnreg_dec<40>();
    for (int u = blockIdx.x; u < units; u += gridDim.x)
      produce_cp_async(smem, a, b, M, N, K, work_of(u), it);
    return;
  }

  setmaxnreg_inc<232>();
  const int consumer = warpgroup - 1;
  for (int u = blockIdx.x; u < units; u += gridDim.x) {
    const TileWork w = work_of(u);
    float d[kBlockN / 2];
    consume<kArriveOnCompletion>(smem, consumer, w.k_blocks, d, it,
                                 slices_in_last_k_block(w.kb_begin + w.k_blocks, K));
    if (splits > 1)
      store_partial(d, partials + static_cast<int64_t>(u / blocks) * M * N, w.m0 + consumer * 64,
                    w.n0, M, N);
    else if (kStagedEpilogue)
      store_tile_staged(d, smem.staging + consumer * kStagingBytes, c, w.m0 + consumer * 64, w.n0,
                        M, N, consumer);
    else
      store_tile(d, c, w.m0 + consumer * 64, w.n0, M, N);
  }
}

int g_sms = 0;  // the device's SM count, read by ptxb_plan

// Splits only where the output tiles fill at most half of the SMs (gemm/sm90_gemm_split_sum.cuh).
SplitK split_k(int64_t M, int64_t N, int64_t K, int sms) {
  const int64_t tiles = ((M + kBlockM - 1) / kBlockM) * ((N + kBlockN - 1) / kBlockN);
  const int k_blocks = static_cast<int>((K + kBlockK - 1) / kBlockK);
  return cut_k(k_blocks, few_tile_splits(tiles, k_blocks, sms, kMinKBlocksPerSplit));
}

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaFuncSetAttribute(gemm_bf16_cp_async_ws, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(kSharedBytes)) != cudaSuccess)
    return kLaunchFailed;
  *workspace_bytes = 0;
  if (problem->num_inputs == 2 && problem->inputs[0].rank == 2 && problem->inputs[1].rank == 2) {
    const int64_t M = problem->inputs[0].shape[0], K = problem->inputs[0].shape[1],
                  N = problem->inputs[1].shape[0];
    *workspace_bytes = split_partial_bytes(split_k(M, N, K, g_sms), M, N);
  }
  return PTXB_OK;
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const std::optional<GemmDims> dims = gemm_dims(*args->problem);
  if (!dims) return kBadProblem;
  const auto [M, N, K] = *dims;
  const SplitK split = split_k(M, N, K, g_sms);
  if (args->workspace_bytes < split_partial_bytes(split, M, N)) return kBadProblem;
  const auto stream = static_cast<cudaStream_t>(args->stream);
  auto* c = static_cast<__nv_bfloat16*>(args->outputs[0]);
  auto* partials = static_cast<float*>(args->workspace);
  const int64_t units =
      ((M + kBlockM - 1) / kBlockM) * ((N + kBlockN - 1) / kBlockN) * split.splits;
  const int ctas = static_cast<int>(std::min<int64_t>(units, g_sms));
  gemm_bf16_cp_async_ws<<<ctas, kThreads, kSharedBytes, stream>>>(
      static_cast<const __nv_bfloat16*>(args->inputs[0]),
      static_cast<const __nv_bfloat16*>(args->inputs[1]), c, partials, static_cast<int>(M),
      static_cast<int>(N), static_cast<int>(K), split.split_kb, split.splits);
  if (sum_splits(split, partials, c, M, N, g_sms, kSplitPdl, stream) != cudaSuccess)
    return kLaunchFailed;
  return cudaGetLastError() == cudaSuccess ? PTXB_OK : kLaunchFailed;
}
// ==== end kernels/gemm/sm90_gemm_bf16_cp_async_ws.cuh ====
