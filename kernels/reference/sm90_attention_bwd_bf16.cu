// Expert solution for sm90/attention/bwd-bf16 and sm90/attention/bwd-bf16-gqa (the file of the
// latter is a link to this one): the attention backward pass dQ, dK, dV from Q, K, V, O, dO and
// the forward's LSE (docs/attention.md), causal or not, with HKV key/value heads shared by groups
// of G = H / HKV query heads (G = 1: plain multi-head), bf16 inputs, fp32 accumulation, all
// matmuls on wgmma.
//
// Design (written for PTXBench from the public description of FlashAttention-style backward
// passes on Hopper; no shared-memory transposes, and no atomics but the fused form's dQ
// reductions, below):
// - k0 `delta_kernel`: one warp per query row writes, into the workspace, Delta_i = dO_i . O_i
//   and LSE_i * log2(e), per (batch, head) padded to kSeqPad rows (Delta 0, LSE +inf past S) so
//   that k1 and k2 read them without bounds checks and padded queries get P = 0.
// - k1 `dkdv_kernel`: one CTA per (128 keys, kv head, batch). K and V (128 x D) are loaded once;
//   64-query tiles (128 at D = 64) of Q and dO (plus their LSE/Delta) of each of the G query heads
//   of the group, one head after the other, stream through a kStages ring, so that dK and dV sum
//   the group's contributions in registers (no atomics, no second pass). Each of the two consumer
//   warpgroups owns 64 keys and computes per query tile
//     S^T = K Q^T, dP^T = V dO^T (wgmma m64n64k16, m64n128k16 at D = 64; A and B K-major from
//     shared memory),
//     P^T = exp2(S^T scale log2e - LSE log2e), dS^T = P^T o (dP^T - Delta) (registers),
//     dV += P^T dO, dK += dS^T Q (wgmma m64nDk16, A = P^T / dS^T in registers as bf16, B = the
//     same row-major dO / Q tile read MN-major through wgmma's transpose-B),
//   then writes dK * scale and dV. When one CTA per (128 keys, kv head) would leave SMs idle
//   (few kv heads or short sequences), the group's query heads are split over `splits` CTAs
//   (splits divides G): each writes its partial dK * scale, dV in fp32 to the workspace and
//   k1b `sum_splits_kernel` adds them up in a fixed order (deterministic, no atomics).
// - k2 `dq_kernel`: one CTA per (128 queries, query head, batch). Q and dO are loaded once;
//   128-key tiles of K and V of the head's kv head stream through the ring; each consumer warpgroup
//   owns 64 queries:
//     S = Q K^T, dP = dO V^T (m64n128k16), P, dS as above, dQ += dS K (A = dS in registers,
//     B = the K tile MN-major); writes dQ * scale. At D = 64 a step's dQ product runs beside the
//     next step's S and dP (kDqOverlapNextStep).
// - k1 and k2 are warp-specialized: warpgroup 0 is the producer (one thread issues TMA:
//   cp.async.bulk.tensor 3-D with 128-byte swizzle, and 1-D cp.async.bulk for LSE/Delta), with
//   full/empty mbarriers per stage; setmaxnreg gives it 24 registers and the consumers 240, which
//   the 192 accumulator registers per consumer thread need (k1: dK, dV 64x128 fp32 plus S^T and
//   dP^T 64x64; k2: dQ 64x128 plus S and dP 64x128 at D = 128). A producer warpgroup rather
//   than an elected consumer thread: that thread would wait for the other consumer to release a
//   stage, coupling the two warpgroups whose point is to interleave on the tensor cores.
// - Shared memory at D = 128: k1 K, V + 3 stages of Q, dO (64 x D) ~ 162 KB; k2 Q, dO + 2 stages
//   of K, V (128 x D) ~ 193 KB (3 stages at D = 64; k1's at D = 64 are 128 x D). One CTA per SM.
// - D = 96 is stored as D = 128 (two 64-column blocks, TMA zero-filling columns past 96): the
//   products over D take 6 k-steps, those with D as N are m64n96k16 (a block and a half of the
//   MN-major operand), so the zero half is never read.
// NOTE: TMA maps are 3-D {D, S, B*H} ({D, S, B*HKV} for K and V) with box {64, rows, 1}: rows past
// S of a (batch, head) are zero-filled instead of being read from the next head. Keys >= S are
// masked in k2; in k1 they only produce dK/dV rows that are never stored (rows of a product are
// independent). Causal: k1 starts at the first query tile that sees its keys, k2 stops at the last
// key tile its queries see; tiles on the diagonal are masked per element, fully masked warpgroup
// tiles are skipped (the warpgroup still releases the stage). FLOPs: S and dP are computed twice
// (k1 and k2), 7 matmuls where the task counts 5. Where it pays (Dims::fused_dq: D 128 from S 8192,
// D 64 from S 768; kFusedDq, kFusedDqD64) k1 computes dQ too, in FlashAttention-3's form (5
// matmuls, dS^T shared between the consumers, dQ summed in fp32 in the workspace by TMA reductions
// issued by one producer thread, kDqReducerWarp) and k2 only converts it: dQ's last bits then
// depend on the reductions' order. Elsewhere (D 128 below S 8192, where ptxbench eval put the
// fused form at 0.97-1.00 of the three kernels; D 64 below S 768) and at D 96 the three kernels
// run.
//
// Contract (checked by ptxb_plan / ptxb_run): inputs Q [B,H,S,D], K, V [B,HKV,S,D] (HKV divides
// H), O, dO [B,H,S,D] bf16 and LSE [B,H,S] fp32; outputs dQ, dK, dV with the shapes of Q, K, V in
// bf16 (fp32 also accepted); all contiguous row-major; D in {64, 96, 128}; 1 <= S <= 32768;
// scalars [scale, causal] (causal absent means false); workspace 8 * B*H*roundup(S, 128) bytes,
// plus 8 * splits * B*HKV*S*D bytes of fp32 partials when k1 is split (splits > 1), plus
// 4 * B*H*S*D bytes for the fp32 dQ accumulator where the fused form runs (Dims::fused_dq), plus
// 16 bytes for k1's and k2's unit counters with kPersistentK1 or kPersistentK2.
// NOTE: a submission is one self-contained file (docs/abi.md): the PTX wrappers below are copies
// of kernels/ptx/ files, kept equal to them by scripts/amalgamate.py.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
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
// ==== begin kernels/ptx/smem_store.cuh (generated: scripts/amalgamate.py) ====
// Stores into shared memory at 32-bit shared addresses (smem_addr), for kernels whose buffers sit
// behind generic pointers (an aligned view of dynamic shared memory), where plain C++ stores would
// be generic ones (ST.E, a 64-bit address per pointer): stmatrix for 16-bit fragments, st.shared.v2
// for pairs of floats.

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
// ==== end kernels/ptx/smem_store.cuh ====
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

namespace {

using bf16 = __nv_bfloat16;

constexpr int kWgThreads = 128;
constexpr int kThreads = 3 * kWgThreads;  // producer warpgroup + 2 consumer warpgroups
constexpr int kWgRows = 64;               // rows of one wgmma (M) = rows owned by a consumer
constexpr int kCtaRows = 2 * kWgRows;     // resident rows per CTA: keys (k1) or queries (k2)
constexpr int kKStep = 128;               // k2: keys per pipeline stage
constexpr int kSwz = 64;                  // bf16 per 128-byte swizzled row = TMA box width
constexpr int kSeqPad = 128;              // workspace rows per (batch, head) are padded to this
constexpr int kMaxSeq = 32768;
constexpr float kLog2e = 1.4426950408889634f;
// Whether k1 (and k1b) and k2 are launched as programmatic dependents of the kernel before them:
// a kernel lets its successor launch at its start (griddepcontrol.launch_dependents) and waits
// for its predecessor (griddepcontrol.wait) before reading anything of the call, so the launch
// gaps between the three or four kernels are hidden (the hidden shapes' calls take 75-97 us).
// H200, two evaluations (bench/results/2026-12-03f-h200-session-083f534): the hidden shapes
// 0.870/0.824 -> 0.900/0.848 of cuDNN, GQA's 0.92 -> 0.98, the long shapes level within 0.5%
// (bench/gemm_dev/variants.sh `bwd_nochain_pdl`, `bwd_gqa_nochain_pdl`).
constexpr bool kChainPdl = true;
__device__ __forceinline__ void chain_launch_next() {
  if (kChainPdl) griddep_launch_dependents();
}
__device__ __forceinline__ void chain_wait_previous() {
  if (kChainPdl) griddep_wait();
}
// With kChainPdl, whether k2 runs beside k1 instead of after it. k2 reads nothing k1 (or k1b)
// writes, only k0's LSE and Delta, yet waited for k1 to end: on B4 H16 S4096 k1's 2,048 CTAs take
// 15.5 waves of 132 SMs, and during the last, half the SMs idled (k2's CTAs, launched, waited
// there). With it, k1 lets its dependents launch only once its own wait for k0 has returned, so
// that k2's CTAs (launched when every k1 CTA has done so) never start before k0 has completed and
// its writes are visible; k2 reads the LSE and Delta from L2 (ld.global.cg, not an L1 line of an
// earlier call) before it waits for k1, and waits only at its end, so that its grid, and with it
// the call, completes after k1's. Judged on an H100 (bench/results/2026-12-06e-session, three
// interleaved rounds a call, speedup over the expert without it in the same round), alone: 1.010
// / 1.031 / 0.997 / 1.004 / 1.040 / 1.091 (most on the short hidden shape B1 H64 S512, whose k1
// is two waves), GQA 1.012 / 1.026 / 1.012 / 1.012, D 96 1.015 / 1.018 / 1.044; with kDqPingPong
// (call 3) 1.022 / 1.042 / 1.013 / 1.020 / 1.053 / 1.105, GQA 1.015 / 1.040 / 1.007 / 1.025, D 96
// 1.000 / 1.022 / 1.038. Variants `bwd_dq_after_dkv`, `bwd_gqa_dq_after_dkv`,
// `bwd_d96_dq_after_dkv` turn it off.
constexpr bool kDqBesideDkv = true;

// k1's queries per pipeline stage: 64, or 128 at D 64 when kWideQStepD64 (S^T and dP^T are then
// m64n128 products and the steps half as many; the registers of the narrower dK, dV make room for
// S^T and dP^T of 128 queries, no spills). H200, one machine start
// (bench/results/2026-12-03h-h200-session-1423226, call F): k1 at B 4 H 32 S 4096 D 64 2648 ->
// 2239 us, the task's D 64 shape 0.695 -> 0.801 of cuDNN in ptxbench eval, the other shapes level
// (their kernels' SASS is unchanged); bench/gemm_dev/variants.sh `bwd_narrow_qstep`.
constexpr bool kWideQStepD64 = true;
template <int kD>
constexpr int kQStepOf = kD == 64 && kWideQStepD64 ? 128 : 64;

// Whether k1 computes P^T through probabilities() (the causal mask as one compare of a per-thread
// margin with a constant an element, the LSE loaded in pairs) instead of comparing key and query
// indices formed per element: the dK/dV step 397 -> 372 instructions at D 96, 409 -> 384 at D 128,
// 712 -> 613 at D 64 with the uniform warpgroup index it leaves room for (static counts,
// ptxas 13.0, bench/sass_loops.py), no spills. Off: 0.984-1.005 of the expert's speedups on an
// H100 (docs/attention.md; variants `bwd_margin`, `bwd_gqa_margin`, `bwd_d96_margin`), measured
// before kStatsEarly.
constexpr bool kMaskByMargin = false;
// With kMaskByMargin, whether the mask is a loop of its own that steps off the causal diagonal
// branch around (mask_future_keys) instead of predicated inside the exponent's loop on every step,
// the non-causal shapes' included (ptxas predicates it, it does not branch): off the diagonal a
// D 128 step 329 instructions, D 96 318. Not at D 64, where it spills 52-56 bytes. Off: on an
// H100, before kStatsEarly, 1.000-1.012 of the expert's speedups (D 128), GQA 0.992-1.018, D 96
// 1.019 / 1.006 / 0.997 (bench/results/2026-12-06c-session, call 2); judged again with kStatsEarly,
// kStatsSharedAtUse and kDqOverlapNextStep (bench/results/2026-12-06d-session, call 3): 0.993 /
// 0.996 / 0.995 / 0.952 (D 64) / 1.000 / 0.997, GQA 0.989 / 0.996 / 0.951 (D 64) / 0.995, D 96
// 1.011 / 0.999 / 1.003 (variants `bwd_diagloop`, `bwd_gqa_diagloop`, `bwd_d96_diagloop`).
constexpr bool kDiagonalLoopApart = false;
// Whether k1's consumers read a step's LSE and Delta values (a float2 of columns per four
// accumulator elements: 8 + 8 pairs a thread at D 128) into registers by ld.shared right after
// issuing the step's S^T and dP^T, instead of at their uses after the products' waits, where the
// compiler, not seeing that `sm` is shared memory, loads them by generic loads (LD.E) whose
// latency sits between each wait and the arithmetic behind it, twice a step. Nsight Compute on an
// H100 (bench/results/2026-12-06c-session, calls 2 and 4, B4 H16 S4096 D128): those loads' long-
// scoreboard stalls were 22% of k1's stall samples; k1 1.73 -> 1.51 ms under the profiler. Judged
// on an H100 (call 3, three interleaved rounds, speedup over the expert without it in the same
// round): 1.110 / 1.098 / 1.110 on the D 128 shapes, 1.053 / 1.038 on the hidden ones, GQA 1.116
// / 1.075 / 1.056, D 96 1.118 / 1.053 / 1.055; every case passed, every target at R2. Not at D 64
// (1.004, 0.997 for GQA: off there), where kQStep 128's 32 + 32 registers spill 412 bytes beside
// the waits, and the LSE's alone 220 (ptxas 13.0). Variants `bwd_stats_late`,
// `bwd_gqa_stats_late`, `bwd_d96_stats_late` turn it off.
constexpr bool kStatsEarly = true;
template <int kD>
constexpr bool kStatsEarlyOf = kStatsEarly&& kD != 64;
// With kStatsEarly, whether the pairs are read before the step's S^T and dP^T are issued instead
// of after (ptxas then places the loads among the first products: Nsight Compute on an H100,
// call 4 of bench/results/2026-12-06c-session, still found 5% of k1's stall samples on the first
// use of the LSE, short-scoreboard). Off: within 1% on an H100 (calls 5 and 6: k1 1619 -> 1606
// us at B4 H16 S4096 D128, 1336 -> 1273 us at D 96 in the dev harness; judged, three rounds,
// 1.005 / 1.002 / 1.010 / 0.996 / 0.999 / 0.999 of the expert's speedups; variant
// `bwd_stats_first`).
constexpr bool kStatsBeforeProducts = false;
// NOTE: reading a step's LSE pairs at the end of the step before (after its dK product is
// issued, where the ld.shared queue no longer sits behind the step's own S^T and dP^T operand
// reads) measured 0.996 / 0.999 / 1.005 / 0.999 / 1.002 / 1.003 of the expert's speedups on an
// H100 (bench/results/2026-12-06f-session, call 1, three interleaved rounds) and was removed.
// Where kStatsEarly is off (D 64), whether the pairs are read by ld.shared.v2 each just before
// its first use (load_stat_pair) instead of by the generic loads the compiler emits: the D 64
// step 712 -> 695 instructions, LDS for LD, no spills (ptxas 13.0; loading them all at once spills
// there, kStatsEarly's note). Nsight Compute on an H100 without it (bench/results/2026-12-06d-
// session, call 1, B4 H32 S4096 D64): the FFMA behind the LSE's generic load was k1's second
// long-scoreboard stall. Judged on an H100 (same call, three interleaved rounds, speedup over the
// expert without it in the same round): 1.051 on the D 64 shape (0.845 -> 0.888 of cuDNN), GQA's
// D 64 shape 1.051 (0.885 -> 0.930), the other shapes 0.997-1.006; every case passed. Variants
// `bwd_d64_ldg`, `bwd_gqa_d64_ldg` turn it off.
constexpr bool kStatsSharedAtUse = true;

// Whether k1 also computes dQ at D 128 (k1 "dkdvq"), in FlashAttention-3's form: after dS^T, each
// consumer warpgroup writes its 64 keys' dS^T rows (bf16) into a buffer of the step (two, used in
// turn), and after one barrier of both warpgroups each computes one 64-column block of dQ over
// all 128 keys of the CTA, dS K (wgmma m64n64k16, k over the keys; A = dS read MN-major from the
// dS^T rows, B = the resident K tile MN-major), and adds it in fp32 into a dQ accumulator in the
// workspace by TMA reductions (cp.reduce.async.bulk.tensor .add); k0 zeroes the accumulator and
// k2 becomes a conversion (dQ = scale * accumulator): 5 matmuls instead of 7. The dK product runs
// while a warpgroup waits at the barrier. A warpgroup whose keys all follow a causal query tile
// (warpgroup 1 on a head's first tile) writes zero rows and still computes its block. Its fp32
// reductions make dQ's last bits depend on their order (the dev harness's ABI-run comparison
// reports it). Nsight Compute on an H100 (bench/results/2026-12-06g-session, call 1, B4 H16
// S4096 D128) found cuDNN's backward one kernel of five products' tensor work with dQ summed by
// TMA reductions (2294 us, the tensor pipe 65% active) against the three-kernel expert's 1494 +
// 1112 us at 81-82%: the seven products' extra work, not idle tensor cores, is what the expert
// loses. In the dev harness (call 2, three rounds, every case's errors the expert's) 1.08-1.20
// times slower than the expert with one dQ staging; with two (kSharedDqStagings) 1.01-1.04 times
// faster at S 16384, 0.94-1.01 at S 4096, 0.93 causal (the accumulator's zeroing and conversion
// cost about 105 us a call); its k1 at S 4096 2586 us, the tensor pipe 56% active. With
// kDqReducerWarp and kSharedAddressStores see there. Written, measured and removed (session
// 2026-12-06i): the form where each warpgroup computed all of dQ's columns over its own 64 keys
// (twice the reduced bytes; B4 H16 S4096 D128 2992 -> 3375 us against the expert on an H100,
// bench/results/2026-12-05e-h100-session), and that form with the dQ product beside dK (3440
// against 3001 us, bench/results/2026-12-06b-session). On since session 2026-12-07 where it pays
// (Dims::fused_dq: D 128 from S 8192; D 64 from S 768 with kFusedDqD64, off), with kDqReducerWarp
// and kSharedAddressStores: ptxbench eval on an H100 (bench/results/2026-12-07-session, calls 2
// and 3, variant `bwd_fused_d64_long`, which also has kFusedDqD64, over the three-kernel expert's
// speedups in the same round) 1.017 at B1 H16 S16384 D128, the shapes that keep the three kernels
// 0.999-1.009 (the same kernels: the rounds' noise); every evaluation with its evidence `passed`.
// Variants `bwd_three_kernels`, `bwd_gqa_three_kernels` turn it off.
constexpr bool kFusedDq = true;
// With kFusedDq, whether D 64 takes the fused form too (written in session 2026-12-06j): k1's steps
// there are 128 queries wide (kWideQStepD64) and D has one 64-column block, so each consumer
// computes the dQ rows of one half of the step's queries over D's 64 columns and all 128 keys (A =
// its 64-query block of the dS^T rows, B = K), instead of one column block of all the step's
// queries as at D 128: either way a (64 queries, 64 columns) block, the same product (m64n64k16
// over the keys), staging and reductions at another origin (dq_block_origin). The dS^T buffers hold
// the step's 128 queries as two 64-query blocks of 128-byte rows. Its shared memory (the fused
// tiles at D 64 take what they take at D 128, plus 2 KB of LSE and Delta for the wider steps)
// leaves no room for the 1024 bytes of alignment slack: the kernel requires a 1024-byte aligned
// dynamic shared-memory base, as CUTLASS's Hopper kernels do, and traps otherwise (kSmemSlack).
// Registers: the step's peak is the three-kernel D 64 k1's (S^T and dP^T beside dK and dV, 192),
// the dQ product's 32 accumulators live only once S^T and dP^T are dead. ptxbench eval on an H100
// (kFusedDqMinSeqD128's note): 1.017 of the three kernels' speedup at B4 H32 S4096 D64, every case
// correct; with kFusedDq's gates (kFusedDq's note, variant `bwd_fused_d64_overlap`) 1.017 there
// and 1.064 at GQA's H32 HKV4 S4096 D64. That k1 spilled 8 bytes (a dS value and the loop's end,
// stored and loaded once a step), and the experts compile without spills
// (EvalCpu.EveryTaskHasAnExpertWithStaticEvidence): hence kFusedD64DvBeforeDs. On since session
// 2026-12-07b: that spill-free form passed every case of the dev harness on an H100 (the ABI
// run's bits apart, the fp32 reductions' order, as at D 128) and ran 1.043 / 1.106 times the
// three kernels' speed at H32 S4096 D64 / H32 HKV4 S4096 D64 (three rounds,
// bench/results/2026-12-07b-session); not yet judged by ptxbench eval in this form (variant
// `bwd_three_kernels_d64`: the three kernels at D 64).
constexpr bool kFusedDqD64 = true;
// With kFusedDqD64, whether a consumer of the fused D 64 k1 waits for its dV product before it
// computes dS (instead of while dV runs): P^T's 32 bf16 fragment registers, which dV reads, are
// then free before dS^T's are formed beside S^T, dP^T, dK and dV (224 accumulator registers of the
// 240). Without it ptxas spilled 8 bytes in that kernel; with it none (ptxas 13.0; the step loop
// 929 -> 921 instructions); not measured on a GPU. The other kernels are unchanged.
constexpr bool kFusedD64DvBeforeDs = true;
template <int kD>
constexpr bool kFusedDqOf = kFusedDq && (kD == 128 || (kD == 64 && kFusedDqD64 && kWideQStepD64));
// With kFusedDq, the ring stages of Q and dO: 2 (3 fit only beside one dQ staging buffer; with it
// 7-11% slower than 2 in the dev harness, call 2 of the same results).
constexpr int kFusedDqStages = 2;
// With kFusedDq, each consumer's dQ staging buffers, used in turn: 2 lets a step stage its
// block while the step before's reduction still reads the other (fits with 2 stages, not 3).
// With 2, ptxas spills nothing in the fused k1 (120 bytes with 1) and the backward took 2720-
// 2784 us against 3052-3073 at B4 H16 S4096 D128 (same call).
constexpr int kSharedDqStagings = 2;
// With kFusedDq, whether one thread of the producer warpgroup (warp 1, lane 0) issues the
// dQ blocks' TMA reductions, as FlashAttention-3's backward does, instead of thread 0 of each
// consumer warpgroup after a barrier of its 128 threads: a consumer stages its block once the
// reducer has freed the buffer (an mbarrier, `dq_empty`), and announces it (`dq_full`, one
// arrival a warp) without waiting for anything; the reducer waits for both warpgroups' blocks of
// a step, issues their reductions, and frees a step's buffers once they have been read. On. On an
// H100 in the dev harness (bench/results/2026-12-06h-session, call 1, three rounds), the expert's
// time over the fused form's at B4 H16 S4096 D128 / causal / B1 H16 S16384 / B2 H8 S1000 / B1 H64
// S512: 0.770 / 0.830 / 0.871 / 0.806 / 0.759 alone (`bwd_fused_dq_shared_reducer`), 1.018 /
// 1.001 / 1.076 / 1.008 / 0.973 with kSharedAddressStores (`bwd_fused_dq_shared_reducer_sts`),
// against 0.973 / 0.949 / 1.016 / 0.978 / 0.951 without either. ptxbench eval of the form with
// both (call 2, three rounds, speedup over the expert's): 0.986 / 0.965 / 1.031 / 0.999 (S 1000),
// GQA 0.993 / 0.920 (causal) / 1.028 (S 1000).
constexpr bool kDqReducerWarp = true;
// With kFusedDq, whether a consumer stores its dS^T rows by stmatrix (4 instructions a step, 16
// bytes of a key's row per lane, no bank conflict under the 128-byte swizzle) and stages dQ by
// st.shared.v2 (and zeroes a skipped step's rows by st.shared.v4), all at 32-bit shared
// addresses, instead of by C++ stores through the generic pointers of the aligned shared-memory
// view: ptxas emitted generic stores (ST.E, 64-bit addresses), 52 in the step's loop (878 -> 743
// instructions with it; no spills either way). Nsight Compute put the fused k1's warps at 0.56
// cycles of MIO throttle, 0.10 of LG throttle and 0.40 of dispatch stall per issued instruction
// against cuDNN's 0.06, 0 and 0 (an H100, bench/results/2026-12-06g-session). On. Alone
// (`bwd_fused_dq_shared_sts`) 1.005 / 0.970 / 1.038 / 0.987 / 0.960 of the expert's speed on the
// shapes of kDqReducerWarp's note (same call), with it its row there.
constexpr bool kSharedAddressStores = true;
static_assert(!kSharedAddressStores || kFusedDq, "the stores it changes are the fused dQ's");
// With kFusedDq, the shortest sequence that takes the fused form at D 64 (and was at D 128 until
// kFusedDqMinSeqD128; shorter ones take the three kernels, which k1 and k2 of every build hold):
// each CTA of the fused k1 then has at least 12 query tiles to amortise the fp32 accumulator's
// zeroing and conversion over. On an H100 (bench/results/2026-12-06h-session, call 1, three
// interleaved rounds in the dev harness), the fused form with kDqReducerWarp and
// kSharedAddressStores over the three kernels: 0.973 at B1 H64 S512, 1.008 at B2 H8 S1000
// (1.02-1.08 on the long shapes): between the two.
constexpr int kFusedDqMinSeq = 768;
// With kFusedDq, the shortest sequence that takes the fused form at D 128. ptxbench eval on an H100
// of the fused form (with kFusedDqD64, kDqReducerWarp, kSharedAddressStores, kLongestFirst;
// bench/results/2026-12-07-session, call 1, three rounds) over the three-kernel expert's speedups
// in the same round: 0.974 at B4 H16 S4096 D128, 1.002 causal, 1.034 at B1 H16 S16384, 1.017 at B4
// H32 S4096 D64: at D 128 the fused form pays on the long sequence only. 8192 lies between the two
// measured lengths, not measured itself.
constexpr int kFusedDqMinSeqD128 = 8192;
// Whether causal k1 CTAs start in chunks of kOrderChunk (batch, kv head slot) pairs, key block 0
// of every pair of the chunk first, then key block 1, ... (cta_slot), instead of every key block
// of one pair before the next pair's. A causal CTA of key block j sees S / 64 - 2 j query tiles
// (times the group's heads): starting the long ones first leaves the short ones to fill the last
// wave (the longest-processing-time order), where in launch order the last pairs' long CTAs start
// late and run alone. A chunk's pairs keep their Q and dO in L2. The three-kernel form hides
// k1's tail under k2, which starts beside it; the fused form's conversion cannot. ptxbench eval
// on an H100 before it (bench/results/2026-12-06h-session, call 2): the fused form 0.965 of the
// three kernels' speedup on the causal shape, 0.920 on the causal GQA one (group 4), 0.99-1.03
// elsewhere; with it, in the dev harness (bench/results/2026-12-06i-session, call 1, one round,
// the expert's time over the fused form's): 1.014 causal, 0.992 causal GQA, 1.03-1.09 on the
// long non-causal shapes. Variants `bwd_fused_longest_first`, `bwd_gqa_fused_longest_first`.
constexpr bool kLongestFirst = false;
constexpr int kOrderChunk = 8;
// Whether the unsplit k1 is persistent: one CTA per SM (fewer when there are fewer units), each
// taking (128 keys, kv head, batch) units one after the other from a counter in the workspace
// (k0 zeroes it; the order is cta_slot's, so kLongestFirst's on causal problems), instead of one
// CTA per unit. A CTA's consumers release K and V (`kv_empty`) once a unit's last products have
// completed, and store its dK and dV while the producer already loads the next unit's K, V and
// first Q and dO stages: with one CTA per SM (the shared memory), every unit's prologue (the K
// and V loads, the first stage's wait) and epilogue (64 KB of dK and dV stores) otherwise run with
// the tensor cores idle, about 3 of the 96 us a unit takes at B4 H16 S4096 D128 on an H100
// (estimated from the loads' and stores' sizes, not measured). With kDqReducerWarp the consumers
// pass each step's query tile to the reducer thread beside the staged block (`dq_at`), and a
// last block marked -1 ends it. Not with kDkvPingPong or kOverlapNextStep. Judged on an H100
// (bench/results/2026-12-06j-session, call B, two interleaved rounds, every shape persistent then,
// speedup over the expert's in the same round): 1.008 / 1.003 / 1.003 on the timed D 128 shapes,
// 1.028 at D 64 (0.918-0.930 -> 0.945-0.954 of cuDNN), but 0.980 and 0.990 on the hidden B2 H8
// S1000 and B1 H64 S512 (128 and 256 units: one and two waves of CTAs, nothing to overlap); GQA
// 1.007 / 0.998 / 1.006 / 1.001. Hence kPersistentK1MinWaves. Variants `bwd_k1_per_unit`,
// `bwd_gqa_k1_per_unit` turn it off.
constexpr bool kPersistentK1 = true;
// With kPersistentK1, the fewest units a problem must have, in waves of one CTA per SM, for k1 to
// be persistent (fewer: one CTA per unit, the kernel without the loop): the measured shapes had 1-2
// waves (slower persistent) or 16-31 (faster); 4 lies between, not measured itself.
constexpr int kPersistentK1MinWaves = 4;
// With kPersistentK1 and kFusedDq, whether the fused k1 takes the persistent loop too (else only
// the three-kernel form's k1 does). Off: in the dev harness (bench/results/2026-12-06j-session,
// call B, one round) the fused form with it was 4-5% slower than without on the long shapes.
// Variant `bwd_fused_persistent`.
constexpr bool kPersistentK1Fused = false;
// Whether k2 is persistent as k1 is with kPersistentK1 (on since session 2026-12-07, written in
// 2026-12-06j): one CTA per SM taking (128 queries, query head, batch) units in turn from the
// second counter of the workspace (k0 zeroes it), in the one-CTA-per-unit grid's order (causal: the
// last query tiles, which see the most keys, first), where a problem has at least
// kPersistentK2MinWaves units per SM (Dims::persistent_k2). k2 also takes one CTA per SM (its
// shared memory), so each unit's prologue (Q and dO, the first K and V stage) and epilogue (the dQ
// rows stored from registers) run with its tensor cores idle; persistent, the producer loads the
// next unit's Q and dO once the consumers release them (`qd_empty`, after the unit's last products)
// while they store dQ. The consumers' turns (kDqPingPong) run on across units: every turn ends with
// `last` false, and warpgroup 0 takes one more turn's barrier at the end, the opening warpgroup 1's
// last turn gave it (TakeTurns). Judged on an H100 (bench/results/2026-12-07-session, call 1, two
// interleaved rounds, over the expert's speedups in the same round): 1.006 / 1.021 / 1.005 /
// 1.000 / 1.003 / 1.007 on the six timed shapes (the last two hidden and short, where k2 runs one
// unit a CTA); every case of the dev harness correct, GQA and D 96 included. Variants
// `bwd_k2_per_unit`, `bwd_gqa_k2_per_unit`, `bwd_d96_k2_per_unit` turn it off.
constexpr bool kPersistentK2 = true;
constexpr int kPersistentK2MinWaves = 4;
constexpr int kDsBarrier = 6;  // kFusedDq: named barrier of both consumer warpgroups
// kFusedDq: each consumer's dQ block of a step, (kDqBlockRows queries, 64 columns), starts at
// query offset .x of the step and column .y: at D 128 column block w of the step's 64 queries,
// at D 64 (kFusedDqD64) the w-th 64 of the step's 128 queries.
constexpr int kDqBlockRows = 64;
template <int kD>
__host__ __device__ constexpr int2 dq_block_origin(int w) {
  return kD == 64 ? int2{w * kDqBlockRows, 0} : int2{0, w * 64};
}
// Whether k1's consumers queue the next step's S^T product behind this step's dV and dK and form
// the next step's P^T while its dP^T runs (overlapped_dkdv_steps), instead of draining their
// products at the end of every step (wgmma_wait<0>, the stage's release and the next stage's
// wait) before the next step's S^T and dP^T are issued. The step grows from 409 to 462
// instructions at D 128 (397 -> 444 at D 96; descriptors formed per product), no spills, no
// serialized wgmma (ptxas 13.0). Not at D 64 (kQStep 128: the registers do not fit) nor with
// kFusedDq. Off: slower. On an H100, before kStatsEarly (bench/results/2026-12-06c-session, call
// 1, `ptxbench eval` interleaved with the expert's, speedup over it in the same round): 0.953 /
// 0.946 / 0.966 / 1.002 / 0.971 / 0.977, GQA 0.944 / 0.923 / 1.015 / 0.977, D 96 0.964 / 0.918
// / 0.973 (variants `bwd_overlap`, ...); the wgmma rate probe of the same call ran k1's product
// schedule alone at 984 TFLOP/s: the products do not bound the step.
constexpr bool kOverlapNextStep = false;
template <int kD>
constexpr bool kOverlapNextStepOf = kOverlapNextStep&& kD != 64;
// Whether k1 at D 64 reads its warpgroup index from lane 0 (warpgroup_index(), which ptxas can
// prove warp-uniform, so that descriptors and tile addresses stay in uniform registers) like the
// other head dims' kernels, instead of from threadIdx (the index's note in dkdv_kernel): with
// kStatsSharedAtUse the D 64 step takes 695 -> 661 instructions, no spills (ptxas 13.0). Off:
// level on an H100 (bench/results/2026-12-06f-session, call 1, three interleaved rounds, over the
// expert in the same round: 1.000 / 1.000 / 1.008 / 1.008 (D 64) / 1.000 / 1.000, only the D 64
// kernels differ). Variants `bwd_d64_uniformwg`, `bwd_gqa_d64_uniformwg`.
constexpr bool kD64UniformIndex = false;
// Whether k1's two consumers take turns issuing their products (ping-pong through two named
// barriers, TakeTurns, as the forward expert's consumers do): per step three turns, the S^T and
// dP^T products, dV, dK, in the order warpgroup 0, warpgroup 1, so that each warpgroup's products
// reach the tensor cores together and ahead of the other's instead of interleaved with them (each
// SMSP's tensor core is shared by a warp of each): the warpgroups then finish their steps half a
// product apart rather than together, and one drains and refills while the other's products
// run. A warpgroup that skips a causal step still takes its three turns. Not with kFusedDq nor
// kOverlapNextStep; at D 64 with the uniform warpgroup index. Steps (ptxas 13.0, static, no
// spills): D 128 399 -> 411 instructions, D 96 386 -> 399, D 64 695 -> 673 (661 with the uniform
// index alone). Judged on an H100 (bench/results/2026-12-06e-session, call 1, three interleaved
// rounds, over the expert without it): 0.884 / 0.895 / 0.890 / 0.983 / 0.938 / 0.953, k1 at S 4096
// D 128 1661 -> 1934 us in the dev harness (one sample): the turns' barriers cost more than the
// staggering gives. Kept, off, for later forms (variants `bwd_pingpong`, `bwd_gqa_pingpong`,
// `bwd_d96_pingpong`).
constexpr bool kDkvPingPong = false;
// Whether k2's two consumers take turns issuing their products (TakeTurns), as kDkvPingPong has
// k1's: two turns a step (S and dP, then dQ), one an iteration of overlapped_dq_steps (dQ and the
// next step's S and dP). The kernels' loops (ptxas 13.0, static, no spills, as
// bench/sass_loops.py finds them): D 128 914 -> 934 instructions, D 96 901 -> 922, D 64 887 ->
// 917. Judged on an H100 (bench/results/2026-12-06e-session, call 2, alone, three interleaved
// rounds): 1.010 / 1.015 / 1.008 / 1.008 / 1.006 / 1.008 over the expert without it; with
// kDqBesideDkv see there. k1's turns (kDkvPingPong) measured 0.88-0.98 (call 1) and stay off.
// Variants `bwd_dq_together`, `bwd_gqa_dq_together`, `bwd_d96_dq_together` turn it off.
constexpr bool kDqPingPong = true;
// Whether k2's consumers issue a step's dQ product and behind it the next step's S and dP, and
// wait for dQ (and return its K and V stage) only then (overlapped_dq_steps), instead of draining
// dQ at the end of every step: the wait, the stage's release and the next stage's wait no longer
// sit between the warpgroup's products. Nsight Compute on an H100 at D 64 (bench/results/
// 2026-12-06d-session, call 1, B4 H32 S4096): k2's wait for dQ at the end of the step was 11% of
// its consumers' stall samples. Only at D 64, where the dS fragments (32 registers) fit beside S,
// dP and dQ (64 + 64 + 32); no spills, no serialized wgmma (ptxas 13.0). Judged on an H100 (call
// 2, three interleaved rounds, speedup over the expert without it in the same round): 1.030 on
// the D 64 shape, GQA's 1.044. Above D 64 (S alone behind dQ, dP after its wait: no room for
// both) it measured 1.004 / 0.997 / 1.001 / 0.993 / 0.993 on the D 128 shapes and 0.958 / 0.973
// / 0.975 at D 96, and was removed. Variants `bwd_dq_drain`, `bwd_gqa_dq_drain` turn it off.
constexpr bool kDqOverlapNextStep = true;
template <int kD>
constexpr bool kDqOverlapNextStepOf = kDqOverlapNextStep&& kD == 64;
inline int qstep_of(int dim) { return dim == 64 ? kQStepOf<64> : kQStepOf<128>; }

// Stored columns of a head dim: whole 64-column blocks (D 96: two, the second half zero-filled by
// TMA and never read: k-steps stop at D, and the m64n96 products read 96 columns).
constexpr int stored_cols(int d) { return (d + kSwz - 1) / kSwz * kSwz; }
template <int kD>
constexpr int kCols = stored_cols(kD);

// Tiles wider than 64 columns are stored as kCols / 64 column blocks of (rows, 64), each block a
// TMA box with the 128-byte swizzle; all tile sizes are multiples of 1024 bytes (the swizzle
// atom), so every tile and block below starts on a 1024-byte boundary.
template <int kD>
struct DkvSmem {
  static constexpr int kQStep = kQStepOf<kD>;
  static constexpr int kStages = 3;
  bf16 k[kCtaRows * kCols<kD>];            // (kCtaRows, kD) keys of the CTA
  bf16 v[kCtaRows * kCols<kD>];            // (kCtaRows, kD)
  bf16 q[kStages][kQStep * kCols<kD>];     // (kQStep, kD) per stage
  bf16 dout[kStages][kQStep * kCols<kD>];  // (kQStep, kD) per stage
  float lse2[kStages][kQStep];             // LSE * log2(e) of the stage's queries
  float delta[kStages][kQStep];            // Delta of the stage's queries
  uint64_t kv_full, full[kStages], empty[kStages];
  uint64_t kv_empty;  // kPersistentK1: the unit's K and V are read
  int unit;           // kPersistentK1: the unit in K and V (its order index), -1: none left
};

template <int kD>
struct DqSmem {
  static constexpr int kStages = kCols<kD> == 128 ? 2 : 3;
  bf16 q[kCtaRows * kCols<kD>];         // (kCtaRows, kD) queries of the CTA
  bf16 dout[kCtaRows * kCols<kD>];      // (kCtaRows, kD)
  bf16 k[kStages][kKStep * kCols<kD>];  // (kKStep, kD) per stage
  bf16 v[kStages][kKStep * kCols<kD>];  // (kKStep, kD) per stage
  uint64_t qd_full, full[kStages], empty[kStages];
  uint64_t qd_empty;  // kPersistentK2: the unit's Q and dO are read
  int unit;           // kPersistentK2: the unit in Q and dO (its order index), -1: none left
};

// k1 with kFusedDq: DkvSmem's tiles (2 stages: 3 do not fit beside two dQ stagings) plus two dS^T
// buffers of all the CTA's keys (kQStep / 64 blocks of 64 queries) and each consumer's stagings of
// its (kDqBlockRows, 64) block of dQ for the TMA reductions.
template <int kD>
struct DkvqSmem {
  static constexpr int kQStep = kQStepOf<kD>;
  static constexpr int kStages = kFusedDqStages;
  static constexpr int kDsBuffers = 2;
  static constexpr int kDqCols = kSwz;  // staged per consumer
  static constexpr int kStagings = kSharedDqStagings;
  bf16 k[kCtaRows * kCols<kD>];            // (kCtaRows, kD) keys of the CTA
  bf16 v[kCtaRows * kCols<kD>];            // (kCtaRows, kD)
  bf16 q[kStages][kQStep * kCols<kD>];     // (kQStep, kD) per stage
  bf16 dout[kStages][kQStep * kCols<kD>];  // (kQStep, kD) per stage
  bf16 ds[kDsBuffers][kCtaRows * kQStep];  // (kCtaRows keys, kQStep queries) dS^T, 128-byte rows
  float dq[2 * kStagings][kDqBlockRows * kDqCols];  // per consumer: (kDqBlockRows, 32) fp32 boxes
  float lse2[kStages][kQStep];                      // LSE * log2(e) of the stage's queries
  float delta[kStages][kQStep];                     // Delta of the stage's queries
  uint64_t kv_full, full[kStages], empty[kStages];
  uint64_t dq_full[2 * kStagings], dq_empty[2 * kStagings];  // kDqReducerWarp, as dq
  uint64_t kv_empty;  // kPersistentK1: the unit's K and V are read
  int unit;           // kPersistentK1: the unit in K and V (its order index), -1: none left
  // kPersistentK1 with kDqReducerWarp: (first query, query head) of warpgroup 0's block in
  // staging buffer i; query head -1: no more blocks
  int2 dq_at[kStagings];
};
template <int kD, bool kFused>
struct DkvSmemOf {
  using type = DkvSmem<kD>;
};
template <int kD>
struct DkvSmemOf<kD, true> {
  using type = DkvqSmem<kD>;
};

// NOTE: +1024 (the slack) so the kernel can align the dynamic shared-memory base to the swizzle
// atom, where that fits; where it does not (the fused k1 at D 64), the kernel requires the base
// aligned and traps otherwise (dkdv_kernel).
constexpr size_t kMaxSmem = 227 * 1024;  // sm_90's opt-in shared memory per CTA
template <class Smem>
constexpr size_t kSmemSlack = sizeof(Smem) + 1024 <= kMaxSmem ? 1024 : 0;
template <class Smem>
constexpr size_t smem_bytes() {
  return sizeof(Smem) + kSmemSlack<Smem>;
}
static_assert(smem_bytes<DkvqSmem<128>>() <= kMaxSmem && kSmemSlack<DkvqSmem<128>> == 1024);
static_assert(smem_bytes<DkvqSmem<64>>() <= kMaxSmem, "sm_90's opt-in shared memory");

// The TMA maps of one kernel, passed as one __grid_constant__ parameter; k1 with kFusedDq also
// gets the dQ accumulator's (fp32, (kDqBlockRows, 32) boxes).
struct Maps {
  CUtensorMap q, dout, k, v;
};
struct MapsDq {
  CUtensorMap q, dout, k, v, dq;
};
template <bool kFused>
struct MapsOf {
  using type = Maps;
};
template <>
struct MapsOf<true> {
  using type = MapsDq;
};

struct Params {
  int seq, seq_pad, heads, causal, out_f32;
  int kv_heads, group;      // HKV; G = H / HKV query heads per kv head
  int splits;               // k1: CTAs per (128 keys, kv head), each G / splits query heads
  int64_t part_elems;       // k1, splits > 1: B*HKV*S*D, the elements of one partial
  float* part;              // k1, splits > 1: [2 (dK, dV)][splits][part_elems] fp32, workspace
  float scale, scale_log2;  // softmax scale; scale * log2(e)
  float* lse2;              // [B*H, seq_pad], workspace (k0 writes, k1 and k2 read)
  float* delta;             // [B*H, seq_pad], workspace
  void* out0;               // k1: dK, k2: dQ
  void* out1;               // k1: dV
  float* dq_acc;            // kFusedDq: [B*H, seq, D] fp32, workspace (k0 zeroes, k1 adds)
  int units;                // kPersistentK1: k1's units, (seq / 128 rounded up) * HKV * B
  int dq_units;             // kPersistentK2: k2's units, (seq / 128 rounded up) * H * B
  int* next_unit;           // kPersistentK1, kPersistentK2: the units k1 ([0]) and k2 ([1]) took
                            // so far, workspace (k0 zeroes)
};

// ---- PTX wrappers of this solution (the shared ones are the kernels/ptx/ copies above) ----
__device__ __forceinline__ float ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
// 2^x on the FMA pipe instead of the MUFU unit: x = n + f with n the nearest integer (by the
// 1.5 * 2^23 rounding trick) and f in [-0.5, 0.5], 2^f by a degree-3 polynomial fitted to the
// relative error, n added to the result's exponent bits; x clamped at -125 so that the exponent
// cannot wrap (2^-125 stands for anything smaller: P's bf16 rounding and the products cannot tell).
// NOTE: -inf gives 2^-125, not 0: masked elements are zeroed by their callers (k1 and k2 select 0
// for them after the exponential; padded queries, LSE +inf, meet zero-filled rows of dO and Q).
// Relative error at most 7.5e-5 for x in [-125, 0.05] (float32 evaluation of these steps on a
// grid of 4M points), below the 2^-9 of the bf16 rounding P and dS get next. 9 instructions where
// ex2 issues 1, but on a pipe that issues one warp instruction a cycle, where MUFU takes eight.
__device__ __forceinline__ float ex2_fma(float x) {
  x = fmaxf(x, -125.f);
  const float shifted = x + 12582912.f;
  const float f = x - (shifted - 12582912.f);
  const float p = fmaf(fmaf(fmaf(0.0551716685f, f, 0.24261114f), f, 0.69326097f), f, 0.99992806f);
  return __int_as_float(__float_as_int(p) + (__float_as_int(shifted) << 23));
}
// Whether part of the exponentials of k1's P^T and k2's P at D 64 (every kFmaExpEvery-th element
// of a thread's accumulator, 0: none) go to ex2_fma: at D 64 a step's 8,192 exponentials a
// warpgroup take the MUFU unit (16 a cycle per SM) about half as long as the step's products
// take the tensor cores, twice the share at D 128. The polynomial's floating-point work (about 10
// FLOPs an element: FMNMX, 3 FADD, 3 FFMA) counts as non-target arithmetic (docs/evidence.md);
// with both kernels' exponentials (10 D = 640 FLOPs of products an element at D 64) every fourth
// element adds about 0.8% of the task's FLOPs, every third 1.0%, every second 1.6%, beside the
// expert's 1.3% and the task's ceiling of 2.6%: every second would fail it. Off: every fourth
// measured 0.974 of the expert's speedup on the D 64 shape, the others 0.995-1.002 (an H100,
// before kStatsSharedAtUse, bench/results/2026-12-06d-session, call 1; variant `bwd_fmaexp4`):
// the exponentials are not what the D 64 step waits on. `bwd_fmaexp3` and the `_gqa_` forms
// never run.
constexpr int kFmaExpEvery = 0;
template <int kD>
constexpr int kFmaExpEveryOf = kD == 64 ? kFmaExpEvery : 0;
// 2^x for accumulator element e (a constant once unrolled): ex2_fma for every kEvery-th element.
template <int kEvery>
__device__ __forceinline__ float ex2_mixed(float x, int e) {
  if constexpr (kEvery > 0)
    if (e % kEvery == kEvery - 1) return ex2_fma(x);
  return ex2(x);
}

// ---- wgmma operands and instructions ----
// Whether desc_k and desc_mn form a k-step's descriptor from the tile's start
// (wgmma_desc_advance by the step's offset) instead of from the step's address: the tile's
// descriptor is then formed once a product (the unrolled steps share it) and each step costs an
// add instead of a mask, a shift and an or. In the fp8 GEMM experts the same change took 16 of 109
// instructions out of two k-blocks of the consumers' loop and 5% off the kernel's time (H100,
// bench/results/2026-12-05g-h100-session, call 7). Here, on an H100
// (bench/results/2026-12-05h-h100-session, call 2, three rounds): 0.990-1.017x the speedups without
// it over the six timed shapes; with the uniform warpgroup index as well 1.009-1.046x (0.986x at D
// 64, where that index now stays off). Variants `bwd_slicedesc_threadwg`,
// `bwd_gqa_slicedesc_threadwg` turn both off.
constexpr bool kStepDescriptors = true;
// K-major operand (the reduction dimension is the contiguous one), k-step kk (16 columns) of a
// tile stored as column blocks of `rows` x 64: 8-row groups are 1024 bytes apart (SBO); the LBO
// is unused with swizzling; inside a 128-byte row the kk-th slice starts 32 * (kk % 4) bytes in
// and the hardware applies the swizzle to the computed addresses.
__device__ __forceinline__ uint64_t desc_k(const bf16* tile, int rows, int kk) {
  const int offset = (kk / 4) * rows * kSwz + (kk % 4) * 16;  // elements
  if constexpr (kStepDescriptors)
    return wgmma_desc_advance(wgmma_desc_sw128(tile, 16, 1024), offset * sizeof(bf16));
  return wgmma_desc_sw128(tile + offset, 16, 1024);
}
// MN-major operand B (N contiguous) for transpose-B: the k-step kk covers tile rows 16kk..16kk+15.
// In the canonical MN-major 128B-swizzle layout ((8,8,n),(8,k)) of 16-byte units, N runs through
// 64 contiguous elements (one 128-byte swizzled row), the next 64 N-elements sit LBO bytes away
// (the next column block: rows * 128 bytes), and K steps through 128-byte rows in groups of 8
// whose starts are SBO = 1024 bytes apart. 16kk rows = 2048 kk bytes keeps the atom alignment.
__device__ __forceinline__ uint64_t desc_mn(const bf16* tile, int rows, int kk) {
  const int offset = kk * 16 * kSwz;  // elements
  if constexpr (kStepDescriptors)
    return wgmma_desc_advance(wgmma_desc_sw128(tile, rows * 128, 1024), offset * sizeof(bf16));
  return wgmma_desc_sw128(tile + offset, rows * 128, 1024);
}

#define PTXB_ACC32                                                                             \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define PTXB_ACC48 \
  PTXB_ACC32       \
  ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47"
#define PTXB_ACC64                                                                          \
  PTXB_ACC32                                                                                \
  ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, " \
  "%49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define PTXB_D8(i)                                                                            \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
      "+f"(d[i + 6]), "+f"(d[i + 7])
#define PTXB_D32 PTXB_D8(0), PTXB_D8(8), PTXB_D8(16), PTXB_D8(24)
#define PTXB_D48 PTXB_D32, PTXB_D8(32), PTXB_D8(40)
#define PTXB_D64 PTXB_D48, PTXB_D8(48), PTXB_D8(56)

// wgmma m64nNk16 bf16 -> f32, A and B from shared memory (A K-major; B K-major when kTransB is
// 0, MN-major when 1). Accumulates into d when scale_d != 0, overwrites it when 0.
template <int kTransB>
__device__ __forceinline__ void wgmma_ss(float (&d)[32], uint64_t a, uint64_t b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {" PTXB_ACC32
      "}, %32, %33, p, 1, 1, 0, %35;\n}\n"
      : PTXB_D32
      : "l"(a), "l"(b), "r"(scale_d), "n"(kTransB));
}
template <int kTransB>
__device__ __forceinline__ void wgmma_ss(float (&d)[64], uint64_t a, uint64_t b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {" PTXB_ACC64
      "}, %64, %65, p, 1, 1, 0, %67;\n}\n"
      : PTXB_D64
      : "l"(a), "l"(b), "r"(scale_d), "n"(kTransB));
}
// m64n128k16 (or m64n64k16) with A and B from shared memory, both MN-major (transpose-A and
// transpose-B): k1's dQ contribution = dS K (all of dQ's columns, or one 64-column block) with dS
// read from the dS^T rows and K from the key rows. (A template so that a build without kFusedDq,
// which never calls it, compiles without an unused warning.)
template <int kRegs>
__device__ __forceinline__ void wgmma_ss_mn(float (&d)[kRegs], uint64_t a, uint64_t b,
                                            int scale_d) {
  static_assert(kRegs == 64 || kRegs == 32, "m64n128 or m64n64");
  if constexpr (kRegs == 64) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {" PTXB_ACC64
        "}, %64, %65, p, 1, 1, 1, 1;\n}\n"
        : PTXB_D64
        : "l"(a), "l"(b), "r"(scale_d));
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {" PTXB_ACC32
        "}, %32, %33, p, 1, 1, 1, 1;\n}\n"
        : PTXB_D32
        : "l"(a), "l"(b), "r"(scale_d));
  }
}
// The same with A from registers: four .b32 holding the bf16 pairs of the A fragment.
template <int kTransB>
__device__ __forceinline__ void wgmma_rs(float (&d)[32], const uint32_t (&a)[4], uint64_t b,
                                         int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {" PTXB_ACC32
      "}, {%32, %33, %34, %35}, %36, p, 1, 1, %38;\n}\n"
      : PTXB_D32
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scale_d), "n"(kTransB));
}
// N = 96 (head dim 96): a whole 64-wide swizzle block of B and half of the next (LBO away).
template <int kTransB>
__device__ __forceinline__ void wgmma_rs(float (&d)[48], const uint32_t (&a)[4], uint64_t b,
                                         int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %53, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n96k16.f32.bf16.bf16 {" PTXB_ACC48
      "}, {%48, %49, %50, %51}, %52, p, 1, 1, %54;\n}\n"
      : PTXB_D48
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scale_d), "n"(kTransB));
}
template <int kTransB>
__device__ __forceinline__ void wgmma_rs(float (&d)[64], const uint32_t (&a)[4], uint64_t b,
                                         int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {" PTXB_ACC64
      "}, {%64, %65, %66, %67}, %68, p, 1, 1, %70;\n}\n"
      : PTXB_D64
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scale_d), "n"(kTransB));
}

// Element e of a thread's m64nN fp32 accumulator fragment (t = thread in the warpgroup):
// row 16 (t / 32) + (t % 32) / 4 + 8 ((e / 2) % 2), column 8 (e / 4) + 2 (t % 4) + e % 2.
__device__ __forceinline__ int acc_row(int e, int t) {
  return 16 * (t / 32) + (t % 32) / 4 + 8 * ((e >> 1) & 1);
}
__device__ __forceinline__ int acc_col(int e, int t) {
  return 8 * (e >> 2) + 2 * (t % 4) + (e & 1);
}

// Whether element e of a k1 step's P^T is a key past its query (masked when causal): key0 +
// acc_row(e, t) > m0 + acc_col(e, t), with margin = key0 - m0 + acc_row(0, t) - acc_col(0, t) and
// the element's part a constant once unrolled.
[[maybe_unused]] __device__ __forceinline__ bool future_key(int e, int margin) {
  return margin > acc_col(e, 0) - acc_row(e, 0);  // acc_col(0, 0) = acc_row(0, 0) = 0
}
// A step's per-query values (LSE or Delta) for this thread's accumulator columns: pair j holds
// the columns of elements 4j..4j+3 (acc_col(4j, t) and the next), read by ld.shared.v2.
__device__ __forceinline__ void load_stat_pair(float2& pair, const float* stats, int j, int t) {
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];"
               : "=f"(pair.x), "=f"(pair.y)
               : "r"(smem_addr(stats + acc_col(4 * j, t)))
               : "memory");
}
template <int kPairs>
__device__ __forceinline__ void load_stat_pairs(float2 (&pairs)[kPairs], const float* stats,
                                                int t) {
#pragma unroll
  for (int j = 0; j < kPairs; ++j) load_stat_pair(pairs[j], stats, j, t);
}
// A consumer warp is done reading a ring stage: lane 0 arrives on the stage's empty barrier
// (one arrival per warp: the barrier counts the consumer warps) after the warp has converged.
__device__ __forceinline__ void release_stage(uint64_t* empty) {
  __syncwarp();
  if (threadIdx.x % 32 == 0) mbar_arrive(empty);
}
// Element e's value of load_stat_pairs' pairs.
template <int kPairs>
__device__ __forceinline__ float stat_of(const float2 (&pairs)[kPairs], int e) {
  return (e & 1) ? pairs[e >> 2].y : pairs[e >> 2].x;
}
// Element e's LSE or Delta in a k1 step (e a constant once unrolled): from `pairs` loaded before
// (kStatsEarly), from `pairs` loaded at the first element of each (kStatsSharedAtUse), or by the
// generic load the compiler emits for `stats`.
template <int kD, int kPairs>
__device__ __forceinline__ float step_stat(float2 (&pairs)[kPairs], const float* stats, int e,
                                           int t) {
  if constexpr (kStatsEarlyOf<kD>) return stat_of(pairs, e);
  if constexpr (!kStatsSharedAtUse) return stats[acc_col(e, t)];
  if (e % 4 == 0) load_stat_pair(pairs[e >> 2], stats, e >> 2, t);
  return stat_of(pairs, e);
}
// P^T of a k1 step in place: s[e] = 2^(s[e] * scale_log2 - lse2[column]), zero where `mask` and
// future_key. lse_pair(e) gives the LSE of element e's column and the next as a float2 (acc_col
// of an even e is even): loaded one by one, each took an address of its own.
template <int kN, class LsePair>
__device__ __forceinline__ void probabilities(float (&s)[kN], LsePair lse_pair, float scale_log2,
                                              bool mask, int margin) {
#pragma unroll
  for (int e = 0; e < kN; e += 2) {
    const float2 l = lse_pair(e);
    float p0 = ex2(s[e] * scale_log2 - l.x), p1 = ex2(s[e + 1] * scale_log2 - l.y);
    if (mask && future_key(e, margin)) p0 = 0.f;
    if (mask && future_key(e + 1, margin)) p1 = 0.f;
    s[e] = p0, s[e + 1] = p1;
  }
}
// The mask of probabilities() alone, for the steps on the causal diagonal (kDiagonalLoopApart).
template <int kN>
__device__ __forceinline__ void mask_future_keys(float (&s)[kN], int margin) {
#pragma unroll
  for (int e = 0; e < kN; ++e)
    if (future_key(e, margin)) s[e] = 0.f;
}

// NOTE: the A-register fragment of m64nNk16 (per warp a 16x16 block: {a0,a1} row g, columns
// 2c, 2c+1; {a2,a3} row g+8; {a4,a5} row g, columns 8+2c..; {a6,a7} row g+8, with g = lane / 4,
// c = lane % 4) holds the same (row, column) pairs as accumulator elements 8kk..8kk+7 for the
// columns 16kk..16kk+15, so the k-step kk operand is those 8 floats packed in order.
template <int kRegs>
__device__ __forceinline__ void to_a_frags(const float (&acc)[kRegs], uint32_t (&a)[kRegs / 8][4]) {
#pragma unroll
  for (int kk = 0; kk < kRegs / 8; ++kk) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      __nv_bfloat162 v = __floats2bfloat162_rn(acc[8 * kk + 2 * j], acc[8 * kk + 2 * j + 1]);
      a[kk][j] = *reinterpret_cast<uint32_t*>(&v);
    }
  }
}

// Writes a consumer's (64, kD) accumulator times `mul` to rows row0.. (< seq) of the
// (batch, head) slice `out` (row-major, kD columns), as bf16 or fp32.
template <int kRegs>
__device__ __forceinline__ void store_rows(const float (&acc)[kRegs], float mul, void* out,
                                           int row0, int seq, bool f32) {
  constexpr int kD = kRegs * 2;
  const int t = threadIdx.x % kWgThreads;
#pragma unroll
  for (int e = 0; e < kRegs; e += 2) {
    const int row = row0 + acc_row(e, t);
    if (row >= seq) continue;
    const int64_t idx = static_cast<int64_t>(row) * kD + acc_col(e, t);
    if (f32) {
      *reinterpret_cast<float2*>(static_cast<float*>(out) + idx) =
          make_float2(acc[e] * mul, acc[e + 1] * mul);
    } else {
      *reinterpret_cast<__nv_bfloat162*>(static_cast<bf16*>(out) + idx) =
          __floats2bfloat162_rn(acc[e] * mul, acc[e + 1] * mul);
    }
  }
}

// k1 with kFusedDq: a consumer's dS^T (its kWgRows keys, kQ queries), held as the bf16
// A-fragment registers of the dK product, into rows of 128 bytes of `ds` (one key, 64 queries)
// with the 128-byte swizzle, queries 64 b.. in block b (kCtaRows rows further): the MN-major A
// operand of dQ = dS K.
template <int kQ>
__device__ __forceinline__ void store_ds(bf16* ds, const uint32_t (&frag)[kQ / 16][4]) {
  static_assert(kQ % kSwz == 0, "whole 64-query blocks of 128-byte rows");
  constexpr int kBlockBytes = kCtaRows * 128;
  const int t = threadIdx.x % kWgThreads;
  if constexpr (kSharedAddressStores) {
    // lane l gives row l % 8 of matrix l / 8: frag[kk][j] holds rows 8 (j % 2) + 0..7 of the
    // warp's 16 and queries 16 kk + 8 (j / 2) + 0..7, one 16-byte chunk of a key's row
    const int lane = t % 32;
    const uint32_t row = 16 * (t / 32) + lane % 8 + 8 * ((lane / 8) % 2);
    const uint32_t row_addr = smem_addr(ds) + row * 128;
#pragma unroll
    for (int kk = 0; kk < kQ / 16; ++kk) {
      const uint32_t chunk = (2 * (kk % 4) + lane / 16) ^ (lane % 8);
      stmatrix_x4(row_addr + (kk / 4) * kBlockBytes + chunk * 16, frag[kk][0], frag[kk][1],
                  frag[kk][2], frag[kk][3]);
    }
    return;
  }
  uint8_t* base = reinterpret_cast<uint8_t*>(ds);
#pragma unroll
  for (int kk = 0; kk < kQ / 16; ++kk) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {  // frag[kk][j]: accumulator elements 8 kk + 2 j, + 1
      const int r = acc_row(8 * kk + 2 * j, t), c = acc_col(8 * kk + 2 * j, t) % kSwz;
      const int offset =
          (kk / 4) * kBlockBytes + r * 128 + (((c / 8) ^ (r % 8)) * 16) + (c % 8) * 2;
      *reinterpret_cast<uint32_t*>(base + offset) = frag[kk][j];
    }
  }
}

// k1 with kFusedDq: a warpgroup's kWgRows rows of 128 bytes in each of the kBlocks 64-query
// blocks of a dS^T buffer (kCtaRows rows apart) set to zero.
template <int kBlocks>
__device__ __forceinline__ void zero_ds_rows(bf16* rows) {
  constexpr int kPerThread = kWgRows * 128 / 16 / kWgThreads;  // 16-byte stores
#pragma unroll
  for (int b = 0; b < kBlocks; ++b) {
    bf16* block = rows + b * kCtaRows * kSwz;
    if constexpr (kSharedAddressStores) {  // a warp's 32 stores side by side: no bank conflict
      const uint32_t addr = smem_addr(block) + (threadIdx.x % kWgThreads) * 16;
#pragma unroll
      for (int i = 0; i < kPerThread; ++i) st_shared_v4_b32(addr + i * kWgThreads * 16, 0, 0, 0, 0);
    } else {
      uint4* out = reinterpret_cast<uint4*>(block) + (threadIdx.x % kWgThreads) * kPerThread;
#pragma unroll
      for (int i = 0; i < kPerThread; ++i) out[i] = make_uint4(0, 0, 0, 0);
    }
  }
}

// k1 with kFusedDq: a consumer's (kQ, kRegs * 2) fp32 dQ contribution into `stage` as
// (kQ, 32) boxes of 128-byte rows with the 128-byte swizzle (the dQ accumulator map's boxes).
template <int kQ, int kRegs>
__device__ __forceinline__ void stage_dq(const float (&dq)[kRegs], float* stage) {
  const int t = threadIdx.x % kWgThreads;
  uint8_t* base = reinterpret_cast<uint8_t*>(stage);
#pragma unroll
  for (int e = 0; e < kRegs; e += 2) {
    const int r = acc_row(e, t), c = acc_col(e, t);
    const int cc = c % 32;
    const int offset = (c / 32) * kQ * 128 + r * 128 + (((cc / 4) ^ (r % 8)) * 16) + (cc % 4) * 4;
    if constexpr (kSharedAddressStores)
      st_shared_v2_f32(smem_addr(stage) + offset, dq[e], dq[e + 1]);
    else
      *reinterpret_cast<float2*>(base + offset) = make_float2(dq[e], dq[e + 1]);
  }
}

// k1 with kFusedDq: once every thread of warpgroup `wg` has staged its dQ contribution, one thread
// adds the (kRows, kCols) stage into the fp32 accumulator's columns col0.. at queries m0.. of
// query head bh by TMA reductions, (kRows, 32) boxes, as one bulk group.
template <int kCols, int kRows>
__device__ __forceinline__ void add_staged_dq(const CUtensorMap* map, const float* stage, int m0,
                                              int bh, int wg, int col0 = 0) {
  fence_proxy_async_shared();
  named_barrier_sync<kWgThreads>(2 + wg);
  if (threadIdx.x % kWgThreads == 0) {
    for (int box = 0; box < kCols / 32; ++box)
      tma_reduce_add_3d(map, stage + box * kRows * 32, col0 + box * 32, m0, bh);
    bulk_commit_group();
  }
}

__device__ __forceinline__ uint8_t* align_1024(uint8_t* p) {
  return reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(p) + 1023) & ~uintptr_t(1023));
}

// The resident-tile barrier and the ring's full (TMA bytes) and empty (lane 0 of each of the 8
// consumer warps) barriers; ends with a CTA barrier so that every thread sees them initialised.
template <int kStages>
__device__ __forceinline__ void init_barriers(uint64_t* resident, uint64_t (&full)[kStages],
                                              uint64_t (&empty)[kStages]) {
  if (threadIdx.x == 0) {
    mbar_init(resident, 1);
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], 2 * 4);
    }
    fence_mbarrier_init();
  }
  __syncthreads();
}

// kDqReducerWarp: warpgroup w's staged dQ block `stage` of the step at query m0 of query head
// bh into the accumulator, by TMA reductions of (kDqBlockRows, 32) boxes (not committed).
template <int kD>
__device__ __forceinline__ void reduce_dq_block(const MapsDq* maps, const float* stage, int w,
                                                int m0, int bh) {
  const int2 at = dq_block_origin<kD>(w);
  for (int box = 0; box < kSwz / 32; ++box)
    tma_reduce_add_3d(&maps->dq, stage + box * kDqBlockRows * 32, at.y + box * 32, m0 + at.x, bh);
}

// k1 with kDqReducerWarp: the producer warpgroup's reducer thread. Step t of the ring (query tile
// first + t % per_head of query head bh_q0 + t / per_head, as the producer counts them) leaves one
// dQ block per consumer warpgroup in that warpgroup's staging buffer t % kStagings; each is added
// into the accumulator at its warpgroup's place (dq_block_origin) once the warpgroup's four warps
// have announced it, and a step's buffers go back to the consumers once their reductions have read
// them (the reductions of the last kStagings - 1 steps may still be reading).
template <int kD, int kStagings, class Smem>
__device__ __forceinline__ void reduce_dq_blocks(Smem& sm, const MapsDq* maps, int bh_q0, int first,
                                                 int per_head, int iters) {
  constexpr int kQStep = Smem::kQStep;
  int bh = bh_q0, tile = first;
  for (int t = 0; t < iters; ++t) {
    const int buf = t % kStagings;
    for (int w = 0; w < 2; ++w) {
      mbar_wait(&sm.dq_full[w * kStagings + buf], (t / kStagings) & 1);
      reduce_dq_block<kD>(maps, sm.dq[w * kStagings + buf], w, tile * kQStep, bh);
    }
    bulk_commit_group();
    bulk_wait_group_read<kStagings - 1>();  // every step's group but the last kStagings - 1
    const int freed = t - (kStagings - 1);  // the step whose buffers its group has read
    if (freed >= 0)
      for (int w = 0; w < 2; ++w) mbar_arrive(&sm.dq_empty[w * kStagings + freed % kStagings]);
    if (++tile == first + per_head) tile = first, ++bh;
  }
  bulk_wait_group<0>();  // the reductions are done before the grid is
}

// k1 with kDqReducerWarp and kPersistentK1: reduce_dq_blocks over the steps of every unit the CTA
// takes, each step's first query and query head read from `dq_at` beside warpgroup 0's block,
// until a block there is marked -1.
template <int kD, int kStagings, class Smem>
__device__ __forceinline__ void reduce_marked_dq_blocks(Smem& sm, const MapsDq* maps) {
  for (int t = 0;; ++t) {
    const int buf = t % kStagings;
    mbar_wait(&sm.dq_full[buf], (t / kStagings) & 1);
    const int2 at = sm.dq_at[buf];  // (first query, query head)
    if (at.y < 0) break;
    mbar_wait(&sm.dq_full[kStagings + buf], (t / kStagings) & 1);
    for (int w = 0; w < 2; ++w)
      reduce_dq_block<kD>(maps, sm.dq[w * kStagings + buf], w, at.x, at.y);
    bulk_commit_group();
    bulk_wait_group_read<kStagings - 1>();  // every step's group but the last kStagings - 1
    const int freed = t - (kStagings - 1);  // the step whose buffers its group has read
    if (freed >= 0)
      for (int w = 0; w < 2; ++w) mbar_arrive(&sm.dq_empty[w * kStagings + freed % kStagings]);
  }
  bulk_wait_group<0>();  // the reductions are done before the grid is
}

// dQ elements 4i..4i+3 = scale * v, as bf16 or fp32 (k2 with kFusedDq).
__device__ __forceinline__ void store_dq_quad(void* dq, int64_t i, float4 v, float scale,
                                              int out_f32) {
  v.x *= scale, v.y *= scale, v.z *= scale, v.w *= scale;
  if (out_f32) {
    reinterpret_cast<float4*>(dq)[i] = v;
  } else {
    __nv_bfloat162 lo = __floats2bfloat162_rn(v.x, v.y), hi = __floats2bfloat162_rn(v.z, v.w);
    uint2 packed;
    packed.x = *reinterpret_cast<uint32_t*>(&lo);
    packed.y = *reinterpret_cast<uint32_t*>(&hi);
    reinterpret_cast<uint2*>(dq)[i] = packed;
  }
}

// ---- k0: Delta and LSE * log2(e) into the workspace ----
// kZeroDq (k1 with kFusedDq): also zeroes the row's dQ accumulator `dq_acc` ([B*H, seq, kD]).
// kPersistentK1, kPersistentK2: the first thread zeroes k1's and k2's unit counters `next_unit`.
template <int kD, bool kZeroDq = false>
__global__ void __launch_bounds__(256)
    delta_kernel(const bf16* out, const bf16* dout, const float* lse, float* lse2, float* delta,
                 int seq, int seq_pad, int64_t rows_padded, float* dq_acc, int* next_unit) {
  chain_launch_next();             // k1 may launch; it waits for this grid
  constexpr int kPairs = kD / 64;  // bf16 pairs per lane: 2 (D = 128) or 1 (D = 64; D = 96 below)
  const int64_t row = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (row == 0 && lane == 0) {  // none taken
    if constexpr (kPersistentK1) next_unit[0] = 0;
    if constexpr (kPersistentK2) next_unit[1] = 0;
  }
  if (row >= rows_padded) return;
  const int64_t bh = row / seq_pad;
  const int i = static_cast<int>(row % seq_pad);
  float sum = 0.f;
  if (i < seq) {
    if constexpr (kD % 64 == 0) {
      const int64_t base = (bh * seq + i) * kD / 2 + lane * kPairs;  // in bf16 pairs
      const auto* o2 = reinterpret_cast<const __nv_bfloat162*>(out) + base;
      const auto* do2 = reinterpret_cast<const __nv_bfloat162*>(dout) + base;
#pragma unroll
      for (int j = 0; j < kPairs; ++j) {
        const float2 a = __bfloat1622float2(o2[j]), b = __bfloat1622float2(do2[j]);
        sum += a.x * b.x + a.y * b.y;
      }
    } else {  // pairs lane, lane + 32, ... of the row's kD / 2
      const int64_t base = (bh * seq + i) * kD / 2;
      const auto* o2 = reinterpret_cast<const __nv_bfloat162*>(out) + base;
      const auto* do2 = reinterpret_cast<const __nv_bfloat162*>(dout) + base;
#pragma unroll
      for (int j = lane; j < kD / 2; j += 32) {
        const float2 a = __bfloat1622float2(o2[j]), b = __bfloat1622float2(do2[j]);
        sum += a.x * b.x + a.y * b.y;
      }
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if (lane == 0) {
    delta[row] = sum;
    lse2[row] = i < seq ? lse[bh * seq + i] * kLog2e : INFINITY;
  }
  if constexpr (kZeroDq) {
    if (i < seq) {
      auto* acc = reinterpret_cast<float4*>(dq_acc + (bh * seq + i) * kD);
      for (int j = lane; j < kD / 4; j += 32) acc[j] = make_float4(0.f, 0.f, 0.f, 0.f);
    }
  }
}

// The two consumer warpgroups of k1 or k2 taking turns issuing products (kDkvPingPong,
// kDqPingPong; kOn false: no-ops). A warpgroup waits on its own named barrier (4 + wg, 256
// threads) before a turn and opens the other's after it; warpgroup 1 opens warpgroup 0's first
// turn and not one after its last, so that each side arrives exactly as often as the other syncs:
// both must take the same number of turns, the last one ended with `last` true. Ids 2 and 3 are
// kFusedDq's per-warpgroup barriers, kDsBarrier (6) its barrier of both.
template <bool kOn>
struct TakeTurns {
  int mine, other;
  bool second;  // warpgroup 1
  // any: whether the warpgroups take a turn at all.
  __device__ __forceinline__ TakeTurns(int wg, bool any)
      : mine(4 + wg), other(5 - wg), second(wg == 1) {
    if constexpr (kOn)
      if (second && any) named_barrier_arrive<2 * kWgThreads>(other);
  }
  __device__ __forceinline__ void begin() const {
    if constexpr (kOn) named_barrier_sync<2 * kWgThreads>(mine);
  }
  __device__ __forceinline__ void end(bool last) const {
    if constexpr (kOn)
      if (!(second && last)) named_barrier_arrive<2 * kWgThreads>(other);
  }
};

// k1's consumer steps with kOverlapNextStep (see there). Step t's S^T and dP^T are issued, waited
// for and turned into P^T (in s) and dS^T (in dp) in the iteration before (the first step's before
// the loop). Iteration t issues step t's dV and dK and behind them step t + 1's S^T; once dV and dK
// have completed it returns stage t and issues step t + 1's dP^T, forms P^T while dP^T runs, then
// dS^T and the A fragments. Every product retires in the iteration that issued it: products left
// running across the loop's back edge made ptxas serialize all of them (C7514, C7515), and S^T,
// dP^T and dK in flight at once, dV's accumulators beside them, did not fit at D 128 (serialized
// for want of registers, C7512). Every step runs its products, also a causal step whose keys all
// follow its queries (the unoverlapped loop skips it; its P^T is all masked here and adds zeros).
template <int kD, int kQStep, int kStages, typename Smem>
__device__ __forceinline__ void overlapped_dkdv_steps(Smem& sm, const Params& p, const bf16* k_wg,
                                                      const bf16* v_wg, int key0, int first,
                                                      int per_head, int iters, float (&dv)[kD / 2],
                                                      float (&dk)[kD / 2]) {
  const int t_id = threadIdx.x % kWgThreads;
  float s[kQStep / 2], dp[kQStep / 2];  // (kWgRows keys, kQStep queries): S^T -> P^T, dP^T -> dS^T
  uint32_t a[kQStep / 16][4];           // P^T as the bf16 A operand of dV
  uint32_t b[kQStep / 16][4];           // dS^T as the A operand of dK
  // acc = rows tile^T over the head dim (S^T = K Q^T, dP^T = V dO^T), one group.
  auto issue_scores = [&](auto& acc, const bf16* rows, const bf16* tile) {
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kD / 16; ++kk)
      wgmma_ss<0>(acc, desc_k(rows, kCtaRows, kk), desc_k(tile, kQStep, kk), kk);
    wgmma_commit();
  };
  auto issue_s = [&](int st) { issue_scores(s, k_wg, sm.q[st]); };
  auto issue_dp = [&](int st) { issue_scores(dp, v_wg, sm.dout[st]); };
  // acc += frags tile over the step's queries (dV += P^T dO, dK += dS^T Q), one group.
  auto issue_gradient = [&](auto& acc, auto& frags, const bf16* tile) {
    wgmma_fence();
    fence_regs(acc);
#pragma unroll
    for (int kk = 0; kk < kQStep / 16; ++kk)
      wgmma_rs<1>(acc, frags[kk], desc_mn(tile, kQStep, kk), 1);
    wgmma_commit();
  };
  auto issue_dv = [&](int st) { issue_gradient(dv, a, sm.dout[st]); };
  auto issue_dk = [&](int st) { issue_gradient(dk, b, sm.q[st]); };
  // P^T of the step at queries m0 in stage st, in s, once S^T is done.
  auto to_p = [&](int st, int m0) {
    fence_regs(s);
    const float* lse2 = sm.lse2[st];
    const bool diagonal = p.causal && key0 + kWgRows - 1 > m0;
#pragma unroll
    for (int e = 0; e < kQStep / 2; ++e) {
      const int col = acc_col(e, t_id);
      float pe = ex2(s[e] * p.scale_log2 - lse2[col]);
      if (diagonal && key0 + acc_row(e, t_id) > m0 + col) pe = 0.f;
      s[e] = pe;
    }
  };
  // dS^T = P^T (dP^T - Delta), in dp, once dP^T is done.
  auto to_ds = [&](int st) {
    fence_regs(dp);
    const float* delta = sm.delta[st];
#pragma unroll
    for (int e = 0; e < kQStep / 2; ++e) dp[e] = s[e] * (dp[e] - delta[acc_col(e, t_id)]);
  };
  auto release = [&](int st) { release_stage(&sm.empty[st]); };  // its Q and dO are read
  int tile = first;
  auto next_m0 = [&] {  // the queries of the next step
    const int m0 = tile * kQStep;
    if (++tile == first + per_head) tile = first;
    return m0;
  };
  mbar_wait(&sm.full[0], 0);
  issue_s(0);
  issue_dp(0);
  wgmma_wait<1>();
  to_p(0, next_m0());
  wgmma_wait<0>();
  to_ds(0);
  to_a_frags(s, a);
  for (int t = 0; t + 1 < iters; ++t) {
    const int st = t % kStages, next = (t + 1) % kStages;
    to_a_frags(dp, b);
    mbar_wait(&sm.full[next], ((t + 1) / kStages) & 1);
    issue_dv(st);
    issue_dk(st);
    issue_s(next);
    wgmma_wait<1>();  // dV and dK are done; the next S^T may run
    fence_regs(dv);
    fence_regs(dk);
    release(st);
    issue_dp(next);
    wgmma_wait<1>();  // the next S^T is done
    to_p(next, next_m0());
    wgmma_wait<0>();  // the next dP^T is done
    to_ds(next);
    to_a_frags(s, a);
  }
  to_a_frags(dp, b);
  issue_dv((iters - 1) % kStages);
  issue_dk((iters - 1) % kStages);
  wgmma_wait<0>();
  fence_regs(dv);
  fence_regs(dk);
  release((iters - 1) % kStages);
}

// ---- k1: dK, dV (and with kFused, dQ into its accumulator) ----
// A k1 CTA's place: key block `block` of kv head slot y (kv head, split) of batch z (unsigned,
// as blockIdx: the expressions k1 forms from them are those it formed from blockIdx).
struct CtaSlot {
  unsigned block, y, z;
};
// The slot of the CTA (or kPersistentK1's unit) `linear`-th in launch order on a grid of
// (blocks, ys, zs): the grid coordinates, or with kLongestFirst and a causal problem the chunked
// key-block-major order described there (a bijection on the grid: the last chunk may hold fewer
// pairs).
__device__ __forceinline__ CtaSlot slot_in_order(unsigned linear, unsigned blocks, unsigned ys,
                                                 unsigned zs, bool causal) {
  if (!kLongestFirst || !causal)
    return {linear % blocks, linear / blocks % ys, linear / blocks / ys};
  const unsigned pairs = ys * zs;
  const unsigned first_pair = linear / (blocks * kOrderChunk) * kOrderChunk;
  const unsigned chunk_pairs = min(static_cast<unsigned>(kOrderChunk), pairs - first_pair);
  const unsigned within = linear - first_pair * blocks;
  const unsigned pair = first_pair + within % chunk_pairs;
  return {within / chunk_pairs, pair % ys, pair / ys};
}
// The slot of this CTA (not kPersistentK1).
__device__ __forceinline__ CtaSlot cta_slot(bool causal) {
  if (!kLongestFirst || !causal) return {blockIdx.x, blockIdx.y, blockIdx.z};
  const unsigned linear = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  return slot_in_order(linear, gridDim.x, gridDim.y, gridDim.z, causal);
}

// One k1 unit, a CTA's work (kPersistentK1: one of a CTA's units): keys n0 .. n0 + 127 of the
// (batch, kv head) slice bh_kv against query heads bh_q0 .. bh_q0 + G / splits - 1 (split `split`
// of the group), query tiles first .. first + per_head - 1 of each: `iters` steps of the ring.
// NOTE: causal: query tiles before n0 see none of these keys. Step t of the unit is query tile
// first + t % per_head of query head bh_q0 + t / per_head (counted incrementally in k1).
struct K1Unit {
  int n0, split, bh_kv, bh_q0, first, per_head, iters;
};
template <bool kSplit, int kQStep>
__device__ __forceinline__ K1Unit k1_unit(const Params& p, const CtaSlot& slot) {
  K1Unit u;
  u.n0 = slot.block * kCtaRows;
  const int kv = kSplit ? slot.y / p.splits : slot.y;
  u.split = kSplit ? slot.y % p.splits : 0;
  const int heads_per_cta = kSplit ? p.group / p.splits : p.group;
  u.bh_kv = slot.z * p.kv_heads + kv;
  u.bh_q0 = slot.z * p.heads + kv * p.group + u.split * heads_per_cta;
  u.first = p.causal ? u.n0 / kQStep : 0;
  u.per_head = (p.seq + kQStep - 1) / kQStep - u.first;  // >= 1: n0 < seq
  u.iters = u.per_head * heads_per_cta;
  return u;
}
// kPersistentK1: the slot of unit `linear` of the unsplit grid, in cta_slot's order.
__device__ __forceinline__ CtaSlot unit_slot(const Params& p, int linear) {
  const unsigned blocks = (p.seq + kCtaRows - 1) / kCtaRows, ys = p.kv_heads;
  return slot_in_order(linear, blocks, ys, p.units / (blocks * ys), p.causal);
}

// The units of a persistent kernel (kPersistentK1, kPersistentK2). The producer thread takes unit
// indices from *counter until `units` are taken; before loading each it waits until the
// consumers have released the unit before (`released`), publishes the index in `published` (-1:
// none left) by its arrival on `full` (the load's expect_tx, or a plain arrival at the end), and
// load(linear, t0) loads unit `linear` from ring step t0 on and returns its ring steps.
template <class Load>
__device__ __forceinline__ void produce_units(int* counter, int units, uint64_t* released,
                                              uint64_t* full, int* published, const Load& load) {
  for (int k = 0, t0 = 0;; ++k) {
    const int linear = atomicAdd(counter, 1);
    mbar_wait(released, (k & 1) ^ 1);  // the unit before is read (fresh: parity 1 passes)
    *published = linear < units ? linear : -1;
    if (linear >= units) {
      mbar_arrive(full);  // nothing to load: the consumers' last unit
      break;
    }
    t0 += load(linear, t0);
  }
}
// The consumers' side: once `full` completes, run(linear, t0) runs the published unit from ring
// step t0 on and returns its ring steps, until none is left; returns the ring steps of all. The
// index is read by lane 0 and shuffled: provably warp-uniform, so that what derives from it (tile
// addresses, descriptors) stays in uniform registers (read by every lane, ptxas formed k1's step's
// descriptors per thread: the D 128 step 388 -> 572 instructions).
template <class Run>
__device__ __forceinline__ int consume_units(uint64_t* full, const int* published, const Run& run) {
  int t0 = 0;
  for (int k = 0;; ++k) {
    mbar_wait(full, k & 1);
    const int linear = __shfl_sync(0xffffffffu, *published, 0);
    if (linear < 0) break;
    t0 += run(linear, t0);
  }
  return t0;
}

// kSplit: p.splits > 1 CTAs per (128 keys, kv head), partials to p.part. A template parameter so
// that the unsplit kernel (every large shape) compiles exactly as without splitting: the split
// arithmetic in it cost 2-3% of the backward on the H200 (2026-12-02, A/B in one machine start).
// kFused: kFusedDq (D 128; D 64 with kFusedDqD64). kLoop (kPersistentK1, unsplit only): the
// persistent grid, for problems of kPersistentK1MinWaves or more (Dims::persistent_k1).
template <int kD, bool kSplit, bool kFused = false, bool kLoop = false>
__global__ void __launch_bounds__(kThreads, 1)
    dkdv_kernel(const __grid_constant__ typename MapsOf<kFused>::type maps, const Params p) {
  static_assert(!kFused || kFusedDqOf<kD>, "the fused dQ is written for D 128 (and 64)");
  if constexpr (!kDqBesideDkv) chain_launch_next();  // k1b or k2 may launch; they wait for it
  using Smem = typename DkvSmemOf<kD, kFused>::type;
  constexpr int kStages = Smem::kStages;
  constexpr int kQStep = Smem::kQStep;
  extern __shared__ uint8_t smem_raw[];
  Smem& sm = *reinterpret_cast<Smem*>(align_1024(smem_raw));
  if constexpr (kSmemSlack<Smem> == 0)  // no room to align: the base must be aligned already
    if ((smem_addr(smem_raw) & 1023) != 0) __trap();

  constexpr bool kPersistent = kLoop;
  static_assert(!kLoop || (kPersistentK1 && !kSplit), "the persistent grid is unsplit");
  static_assert(!kPersistent || (!kDkvPingPong && !kOverlapNextStep), "one unit a CTA only");
  // the CTA's unit (kPersistent: none; each unit is taken from the counter below)
  const K1Unit own = kPersistent ? K1Unit{} : k1_unit<kSplit, kQStep>(p, cta_slot(p.causal));
  // NOTE: at D 64 the uniform index's registers made ptxas spill 12-36 bytes in this kernel
  // (0.986 of the thread-derived index's speed there on an H100; 1.02-1.05 at D 128), unless
  // kMaskByMargin frees them (no spill; the D 64 step 649 -> 613 instructions, static).
  // kD64UniformIndex: with kStatsSharedAtUse it no longer spills. kDkvPingPong needs it: with
  // the thread-derived index and the turns' barriers ptxas forms the D 64 step's wgmma
  // descriptors per thread (64 R2UR, the step 695 -> 842 instructions).
  constexpr bool kThreadIndex =
      kD == 64 && !kMaskByMargin && !kD64UniformIndex && !kDkvPingPong && !kPersistent && !kFused;
  const int warpgroup = kThreadIndex ? static_cast<int>(threadIdx.x / 128) : warpgroup_index();

  constexpr bool kReducer = kFused && kDqReducerWarp;
  if constexpr (kReducer) {
    if (threadIdx.x == 0)  // init_barriers fences them and syncs the CTA
      for (int i = 0; i < 2 * Smem::kStagings; ++i) {
        mbar_init(&sm.dq_full[i], 4);  // the consumer warps of a warpgroup
        mbar_init(&sm.dq_empty[i], 1);
      }
  }
  if constexpr (kPersistent)
    if (threadIdx.x == 0) mbar_init(&sm.kv_empty, 2 * 4);  // fenced by init_barriers
  init_barriers(&sm.kv_full, sm.full, sm.empty);
  chain_wait_previous();                            // k0's LSE and Delta (and unit counter)
  if constexpr (kDqBesideDkv) chain_launch_next();  // k1b or k2 may launch: k0 has completed

  if (warpgroup == 0) {
    setmaxnreg_dec<24>();
    if (threadIdx.x == 0) {
      prefetch_map(&maps.q);
      prefetch_map(&maps.dout);
      // K and V of unit u, then its Q and dO tiles, ring steps t0 .. t0 + u.iters - 1
      const auto load_unit = [&](const K1Unit& u, int t0) {
        mbar_arrive_expect_tx(&sm.kv_full, 2 * kCtaRows * kCols<kD> * 2);
        for (int cb = 0; cb < kCols<kD> / kSwz; ++cb) {
          tma_load_3d(sm.k + cb * kCtaRows * kSwz, &maps.k, &sm.kv_full, cb * kSwz, u.n0, u.bh_kv);
          tma_load_3d(sm.v + cb * kCtaRows * kSwz, &maps.v, &sm.kv_full, cb * kSwz, u.n0, u.bh_kv);
        }
        const int first = u.first, per_head = u.per_head;
        int bh = u.bh_q0, tile = first;
        for (int t = t0; t < t0 + u.iters; ++t) {
          const int s = t % kStages;
          const int m0 = tile * kQStep;
          const int64_t stats = static_cast<int64_t>(bh) * p.seq_pad;
          // NOTE: a fresh barrier counts as having completed the phase before phase 0, so the
          // first pass over the ring (parity 1) does not wait.
          mbar_wait(&sm.empty[s], ((t / kStages) & 1) ^ 1);
          mbar_arrive_expect_tx(&sm.full[s], 2 * kQStep * kCols<kD> * 2 + 2 * kQStep * 4);
          for (int cb = 0; cb < kCols<kD> / kSwz; ++cb) {
            tma_load_3d(sm.q[s] + cb * kQStep * kSwz, &maps.q, &sm.full[s], cb * kSwz, m0, bh);
            tma_load_3d(sm.dout[s] + cb * kQStep * kSwz, &maps.dout, &sm.full[s], cb * kSwz, m0,
                        bh);
          }
          bulk_load(sm.lse2[s], p.lse2 + stats + m0, kQStep * 4, &sm.full[s]);
          bulk_load(sm.delta[s], p.delta + stats + m0, kQStep * 4, &sm.full[s]);
          if (++tile == first + per_head) tile = first, ++bh;
        }
      };
      if constexpr (kPersistent) {  // released: the unit before's K and V are read
        produce_units(p.next_unit, p.units, &sm.kv_empty, &sm.kv_full, &sm.unit,
                      [&](int linear, int t0) {
                        const K1Unit u = k1_unit<kSplit, kQStep>(p, unit_slot(p, linear));
                        load_unit(u, t0);
                        return u.iters;
                      });
      } else {
        load_unit(own, 0);
      }
    } else if constexpr (kReducer) {
      if (threadIdx.x == 32) {
        if constexpr (kPersistent)
          reduce_marked_dq_blocks<kD, Smem::kStagings>(sm, &maps);
        else
          reduce_dq_blocks<kD, Smem::kStagings>(sm, &maps, own.bh_q0, own.first, own.per_head,
                                                own.iters);
      }
    }
    return;
  }

  setmaxnreg_inc<240>();
  const int wg = warpgroup - 1;
  const int t_id = threadIdx.x % kWgThreads;
  const bf16* k_wg = sm.k + wg * kWgRows * kSwz;  // (kWgRows, kD) inside kCtaRows-row blocks
  const bf16* v_wg = sm.v + wg * kWgRows * kSwz;
  float dv[kD / 2], dk[kD / 2];         // (kWgRows, kD) accumulators
  float s[kQStep / 2], dp[kQStep / 2];  // (kWgRows keys, kQStep queries): S^T -> P^T -> dS^T
  if constexpr (!kPersistent) {
#pragma unroll
    for (int i = 0; i < kD / 2; ++i) dv[i] = dk[i] = 0.f;
  }

  constexpr bool kTurns = kDkvPingPong && !kFused && !kOverlapNextStepOf<kD>;
  const TakeTurns<kTurns> turns(wg, own.iters > 0);
  // kFusedDq: once this warpgroup's dS^T rows of step t are in `ds` (and its dK product
  // is issued), waits for the other warpgroup's rows, computes dQ's column block wg over all the
  // CTA's keys, returns the stage and adds the block into the accumulator (or hands it to the
  // reducer thread, kDqReducerWarp).
  [[maybe_unused]] const auto shared_dq_block = [&](const bf16* ds, int t, int m0, int bh) {
    if constexpr (kFused) {
      named_barrier_sync<2 * kWgThreads>(kDsBarrier);  // both warpgroups' rows are stored
      float dq[kSwz / 2];                              // (kDqBlockRows queries, 64 columns)
      // dS: the dS^T rows' query block of this warpgroup's dQ rows; K: the column block of its
      // dQ columns (dq_block_origin), both for every key
      const int2 at = dq_block_origin<kD>(wg);
      const bf16* ds_block = ds + at.x / kSwz * kCtaRows * kSwz;
      const bf16* k_block = sm.k + at.y / kSwz * kCtaRows * kSwz;
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kCtaRows / 16; ++kk)
        wgmma_ss_mn(dq, desc_mn(ds_block, kCtaRows, kk), desc_mn(k_block, kCtaRows, kk), kk);
      wgmma_commit();
      wgmma_wait<1>();  // dV and dK (none on a skipped step): Q and dO are read
      fence_regs(dv);
      fence_regs(dk);
      release_stage(&sm.empty[t % kStages]);
      wgmma_wait<0>();
      fence_regs(dq);
      constexpr int kStagings = Smem::kStagings;
      if constexpr (kReducer) {
        const int buf = wg * kStagings + t % kStagings;
        mbar_wait(&sm.dq_empty[buf], ((t / kStagings) & 1) ^ 1);  // fresh: parity 1 passes
        stage_dq<kDqBlockRows>(dq, sm.dq[buf]);
        fence_proxy_async_shared();
        if constexpr (kPersistent)
          if (wg == 0 && t_id == 0) sm.dq_at[t % kStagings] = make_int2(m0, bh);
        release_stage(&sm.dq_full[buf]);
        return;
      }
      // the reduction that last read this step's staging buffer has read it
      if (t_id == 0) bulk_wait_group_read<kStagings - 1>();
      named_barrier_sync<kWgThreads>(2 + wg);
      float* stage = sm.dq[wg * kStagings + t % kStagings];
      stage_dq<kDqBlockRows>(dq, stage);
      add_staged_dq<kSwz, kDqBlockRows>(&maps.dq, stage, m0 + at.x, bh, wg, at.y);
    }
  };

  // Unit u once its K and V are in: its ring steps t0 .. t0 + u.iters - 1, then its dK and dV.
  const auto run_unit = [&](const K1Unit& u, int t0) {
    const int key0 = u.n0 + wg * kWgRows;  // first key of this warpgroup
    const int first = u.first, per_head = u.per_head, iters = u.iters;
    if constexpr (kPersistent) {  // (zeroed before the first wait otherwise)
#pragma unroll
      for (int i = 0; i < kD / 2; ++i) dv[i] = dk[i] = 0.f;
    }
    int tile = first, head = u.bh_q0;
    if constexpr (kOverlapNextStepOf<kD> && !kFused) {
      overlapped_dkdv_steps<kD, kQStep, kStages>(sm, p, k_wg, v_wg, key0, first, per_head, iters,
                                                 dv, dk);
    } else {
      for (int t = t0; t < t0 + iters; ++t) {
        const int st = t % kStages;
        const int m0 = tile * kQStep;
        [[maybe_unused]] const int bh = head;  // the query head of step t
        if (++tile == first + per_head) tile = first, ++head;
        mbar_wait(&sm.full[st], (t / kStages) & 1);
        if (!(p.causal && key0 > m0 + kQStep - 1)) {
          const bf16* q = sm.q[st];
          const bf16* dout = sm.dout[st];
          const float* lse2 = sm.lse2[st];
          const float* delta = sm.delta[st];
          float2 lse_pairs[kQStep / 8], delta_pairs[kQStep / 8];  // kStatsEarly, kStatsSharedAtUse
          if constexpr (kStatsEarlyOf<kD> && kStatsBeforeProducts) {
            load_stat_pairs(lse_pairs, lse2, t_id);
            load_stat_pairs(delta_pairs, delta, t_id);
          }
          turns.begin();
          wgmma_fence();
#pragma unroll
          for (int kk = 0; kk < kD / 16; ++kk)
            wgmma_ss<0>(s, desc_k(k_wg, kCtaRows, kk), desc_k(q, kQStep, kk), kk);
          wgmma_commit();
#pragma unroll
          for (int kk = 0; kk < kD / 16; ++kk)
            wgmma_ss<0>(dp, desc_k(v_wg, kCtaRows, kk), desc_k(dout, kQStep, kk), kk);
          wgmma_commit();
          turns.end(false);
          if constexpr (kStatsEarlyOf<kD> && !kStatsBeforeProducts) {
            load_stat_pairs(lse_pairs, lse2, t_id);
            load_stat_pairs(delta_pairs, delta, t_id);
          }

          wgmma_wait<1>();
          fence_regs(s);
          const bool diagonal = p.causal && key0 + kWgRows - 1 > m0;
          if constexpr (kMaskByMargin) {
            constexpr bool kApart = kDiagonalLoopApart && kD != 64;
            const int margin = key0 - m0 + acc_row(0, t_id) - acc_col(0, t_id);
            const auto lse_pair = [&](int e) {
              if constexpr (kStatsEarlyOf<kD>) return lse_pairs[e >> 2];
              return *reinterpret_cast<const float2*>(lse2 + acc_col(e, t_id));
            };
            probabilities(s, lse_pair, p.scale_log2, !kApart && diagonal, margin);
            if (kApart && diagonal) mask_future_keys(s, margin);
          } else {
#pragma unroll
            for (int e = 0; e < kQStep / 2; ++e) {
              const int col = acc_col(e, t_id);
              const float lse = step_stat<kD>(lse_pairs, lse2, e, t_id);
              float pe = ex2_mixed<kFmaExpEveryOf<kD>>(s[e] * p.scale_log2 - lse, e);
              if (diagonal && key0 + acc_row(e, t_id) > m0 + col) pe = 0.f;
              s[e] = pe;
            }
          }
          uint32_t a[kQStep / 16][4];  // P^T as the bf16 A operand, one set per 16 queries
          to_a_frags(s, a);
          turns.begin();
          wgmma_fence();
          fence_regs(dv);
#pragma unroll
          for (int kk = 0; kk < kQStep / 16; ++kk)
            wgmma_rs<1>(dv, a[kk], desc_mn(dout, kQStep, kk), 1);
          wgmma_commit();
          turns.end(false);

          if constexpr (kFused && kD == 64 && kFusedD64DvBeforeDs) {
            wgmma_wait<0>();  // dP^T and dV are done: P^T's fragments are free
            fence_regs(dv);
          } else {
            wgmma_wait<1>();  // dP^T is done; dV may still run
          }
          fence_regs(dp);
#pragma unroll
          for (int e = 0; e < kQStep / 2; ++e)
            s[e] *= dp[e] - step_stat<kD>(delta_pairs, delta, e, t_id);
          uint32_t b[kQStep / 16][4];  // dS^T as the A operand
          to_a_frags(s, b);
          if constexpr (kFused) {
            // This warpgroup's rows of the step's dS^T buffer (the other warpgroup may still read
            // the step before's), then dK, which reads the same fragments: not while it runs.
            bf16* ds = sm.ds[t & 1];
            store_ds<kQStep>(ds + wg * kWgRows * kSwz, b);
            fence_proxy_async_shared();
            wgmma_fence();
            fence_regs(dk);
#pragma unroll
            for (int kk = 0; kk < kQStep / 16; ++kk)
              wgmma_rs<1>(dk, b[kk], desc_mn(q, kQStep, kk), 1);
            wgmma_commit();
            shared_dq_block(ds, t, m0, bh);
            continue;  // the stage went back in shared_dq_block
          }
          turns.begin();
          wgmma_fence();
          fence_regs(dk);
#pragma unroll
          for (int kk = 0; kk < kQStep / 16; ++kk)
            wgmma_rs<1>(dk, b[kk], desc_mn(q, kQStep, kk), 1);
          wgmma_commit();
          turns.end(t == t0 + iters - 1);
          wgmma_wait<0>();
          fence_regs(dv);
          fence_regs(dk);
        } else {
          if constexpr (kFused) {
            // zero dS^T rows, which the other warpgroup's dQ block reads
            bf16* ds = sm.ds[t & 1];
            zero_ds_rows<kQStep / kSwz>(ds + wg * kWgRows * kSwz);
            fence_proxy_async_shared();
            shared_dq_block(ds, t, m0, bh);
            continue;
          }
          if constexpr (kTurns) {
#pragma unroll
            for (int turn = 0; turn < 3; ++turn) {  // the turns of the products it skips
              turns.begin();
              turns.end(turn == 2 && t == t0 + iters - 1);
            }
          }
        }
        release_stage(&sm.empty[st]);
      }
    }
    // kPersistent: the unit's products, dQ's included, have completed (K and V are read)
    if constexpr (kPersistent) release_stage(&sm.kv_empty);
    if constexpr (kFused && !kPersistent)
      if (t_id == 0) bulk_wait_group<0>();  // the reductions are done before the grid is

    const int64_t slice = static_cast<int64_t>(u.bh_kv) * p.seq * kD;
    if constexpr (kSplit) {
      float* dk_part = p.part + u.split * p.part_elems + slice;
      store_rows(dk, p.scale, dk_part, key0, p.seq, true);
      store_rows(dv, 1.f, dk_part + p.splits * p.part_elems, key0, p.seq, true);
    } else {
      const int64_t elem = p.out_f32 ? 4 : 2;
      store_rows(dk, p.scale, static_cast<uint8_t*>(p.out0) + slice * elem, key0, p.seq, p.out_f32);
      store_rows(dv, 1.f, static_cast<uint8_t*>(p.out1) + slice * elem, key0, p.seq, p.out_f32);
    }
  };

  if constexpr (kPersistent) {
    const int steps = consume_units(&sm.kv_full, &sm.unit, [&](int linear, int t0) {
      const K1Unit u = k1_unit<kSplit, kQStep>(p, unit_slot(p, linear));
      run_unit(u, t0);
      return u.iters;
    });  // ring steps of every unit
    if constexpr (kReducer) {
      // the reducer's end: a block marked -1 in warpgroup 0's next staging buffer
      constexpr int kStagings = Smem::kStagings;
      if (wg == 0) {
        mbar_wait(&sm.dq_empty[steps % kStagings], ((steps / kStagings) & 1) ^ 1);
        if (t_id == 0) sm.dq_at[steps % kStagings] = make_int2(0, -1);
        release_stage(&sm.dq_full[steps % kStagings]);
      }
    }
    if constexpr (kFused)
      if (t_id == 0) bulk_wait_group<0>();  // the reductions are done before the grid is
  } else {
    mbar_wait(&sm.kv_full, 0);
    run_unit(own, 0);
  }
}

// ---- k1b: dK, dV = the sum of k1's split partials (splits > 1 only) ----
// Thread i handles 4 consecutive elements of dK (i < quads) or dV; part_elems % 4 == 0 (D is).
__global__ void __launch_bounds__(256)
    sum_splits_kernel(const float* part, int splits, int64_t part_elems, void* dk, void* dv,
                      int out_f32) {
  chain_launch_next();    // k2 may launch; it waits for this grid
  chain_wait_previous();  // k1's partials
  const int64_t quads = part_elems / 4;
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= 2 * quads) return;
  const int which = i < quads ? 0 : 1;  // 0: dK, 1: dV
  const int64_t q = i - which * quads;
  const auto* src = reinterpret_cast<const float4*>(part + which * splits * part_elems) + q;
  float4 sum = src[0];
  for (int s = 1; s < splits; ++s) {
    const float4 v = src[s * quads];
    sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
  }
  void* out = which == 0 ? dk : dv;
  if (out_f32) {
    reinterpret_cast<float4*>(out)[q] = sum;
  } else {
    auto* o2 = reinterpret_cast<__nv_bfloat162*>(out) + 2 * q;
    o2[0] = __floats2bfloat162_rn(sum.x, sum.y);
    o2[1] = __floats2bfloat162_rn(sum.z, sum.w);
  }
}

// ---- k2 with kFusedDq: dQ = scale * the accumulator k1 filled ----
// Thread i converts 4 consecutive elements; B*H*S*D % 4 == 0 (D is a multiple of 4).
__global__ void __launch_bounds__(256)
    convert_dq_kernel(const float* acc, int64_t quads, float scale, void* dq, int out_f32) {
  chain_wait_previous();  // k1's reductions (through k1b when split)
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= quads) return;
  store_dq_quad(dq, i, reinterpret_cast<const float4*>(acc)[i], scale, out_f32);
}

// ---- k2: dQ ----
// k2: acc = rows tile^T over the head dim (S = Q K^T, dP = dO V^T) for a warpgroup's queries
// (rows: its Q or dO) and a stage's keys (tile: K or V), one group. kFence: false where a
// wgmma.fence already follows the last register write (the products issued just before).
template <int kD, bool kFence = true>
__device__ __forceinline__ void issue_scores(float (&acc)[kKStep / 2], const bf16* rows,
                                             const bf16* tile) {
  if constexpr (kFence) wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < kD / 16; ++kk)
    wgmma_ss<0>(acc, desc_k(rows, kCtaRows, kk), desc_k(tile, kKStep, kk), kk);
  wgmma_commit();
}
// k2: dS of the keys from n0 into `a` (the bf16 A operand of dQ += dS K, one set per 16 keys),
// waiting for S and dP, the last two groups issued: P = exp2(S scale log2e - LSE log2e), zero
// past the sequence and (causal) past each query, then dS = P (dP - Delta).
template <int kD>
__device__ __forceinline__ void ds_frags(float (&s)[kKStep / 2], float (&dp)[kKStep / 2],
                                         uint32_t (&a)[kKStep / 16][4], const Params& p,
                                         const float (&lse2)[2], const float (&delta)[2], int n0,
                                         int qrow0, int t_id) {
  wgmma_wait<1>();
  fence_regs(s);
  const bool masked = (p.causal && n0 + kKStep - 1 > qrow0) || n0 + kKStep > p.seq;
#pragma unroll
  for (int e = 0; e < kKStep / 2; ++e) {
    float pe = ex2_mixed<kFmaExpEveryOf<kD>>(s[e] * p.scale_log2 - lse2[(e >> 1) & 1], e);
    if (masked) {
      const int key = n0 + acc_col(e, t_id);
      if (key >= p.seq || (p.causal && key > qrow0 + acc_row(e, t_id))) pe = 0.f;
    }
    s[e] = pe;
  }
  wgmma_wait<0>();
  fence_regs(dp);
#pragma unroll
  for (int e = 0; e < kKStep / 2; ++e) s[e] *= dp[e] - delta[(e >> 1) & 1];
  to_a_frags(s, a);
}
// k2: dQ += dS K over a stage's keys (k), one group.
template <int kD>
__device__ __forceinline__ void issue_dq(float (&dq)[kD / 2], const uint32_t (&a)[kKStep / 16][4],
                                         const bf16* k) {
  wgmma_fence();
  fence_regs(dq);
#pragma unroll
  for (int kk = 0; kk < kKStep / 16; ++kk) wgmma_rs<1>(dq, a[kk], desc_mn(k, kKStep, kk), 1);
  wgmma_commit();
}
// k2's consumer steps with kDqOverlapNextStep (see there). Step t's S and dP are issued, waited
// for and turned into dS (the A fragments) in the iteration before (the first step's before the
// loop). Iteration t issues step t's dQ product and behind it step t + 1's S and dP; once dQ has
// completed it returns stage t, then forms step t + 1's dS. Every product retires in the
// iteration that issued it (products left running across the loop's back edge make ptxas
// serialize them: overlapped_dkdv_steps' note). No step is skipped: with kKStep = kCtaRows, a
// causal CTA's last key tile starts at its first query, seen by both warpgroups.
// The steps are ring steps t0 .. t0 + iters - 1; `last`: the warpgroups' last turn ends here.
template <int kD, int kStages, typename Smem, typename Turns>
__device__ __forceinline__ void overlapped_dq_steps(Smem& sm, const Params& p, const bf16* q_wg,
                                                    const bf16* do_wg, int qrow0,
                                                    const float (&lse2)[2], const float (&delta)[2],
                                                    int t0, int iters, const Turns& turns,
                                                    bool last, float (&dq)[kD / 2]) {
  static_assert(kKStep == kCtaRows, "a causal warpgroup sees some key of its CTA's last tile");
  const int t_id = threadIdx.x % kWgThreads;
  float s[kKStep / 2], dp[kKStep / 2];  // (kWgRows queries, kKStep keys): S -> P -> dS
  uint32_t a[kKStep / 16][4];           // dS as the bf16 A operand
  auto release = [&](int st) { release_stage(&sm.empty[st]); };  // its K and V are read
  mbar_wait(&sm.full[t0 % kStages], (t0 / kStages) & 1);
  turns.begin();
  issue_scores<kD>(s, q_wg, sm.k[t0 % kStages]);
  issue_scores<kD, false>(dp, do_wg, sm.v[t0 % kStages]);
  turns.end(false);
  ds_frags<kD>(s, dp, a, p, lse2, delta, 0, qrow0, t_id);
  for (int t = 0; t + 1 < iters; ++t) {
    const int st = (t0 + t) % kStages, next = (t0 + t + 1) % kStages;
    mbar_wait(&sm.full[next], ((t0 + t + 1) / kStages) & 1);
    turns.begin();
    issue_dq<kD>(dq, a, sm.k[st]);
    issue_scores<kD, false>(s, q_wg, sm.k[next]);
    issue_scores<kD, false>(dp, do_wg, sm.v[next]);
    turns.end(false);
    wgmma_wait<2>();  // dQ is done: stage st and `a` are free
    fence_regs(dq);
    release(st);
    ds_frags<kD>(s, dp, a, p, lse2, delta, (t + 1) * kKStep, qrow0, t_id);
  }
  turns.begin();
  issue_dq<kD>(dq, a, sm.k[(t0 + iters - 1) % kStages]);
  turns.end(last);
  wgmma_wait<0>();
  fence_regs(dq);
  release((t0 + iters - 1) % kStages);
}

// One k2 unit, a CTA's work (kPersistentK2: one of a CTA's units): queries m0 .. m0 + 127 of query
// head bh (kv head bh_kv) against key tiles 0 .. iters - 1.
struct DqUnit {
  int m0, bh, bh_kv, iters;
};
// The unit at grid coordinates (x, y, z) of the one-CTA-per-unit grid (`tiles` query-tile slots,
// query heads, batches): causal, the last query tiles, which see the most keys, first. (Unsigned,
// as blockIdx: the expressions are those k2 formed from blockIdx.)
[[maybe_unused]] __device__ __forceinline__ DqUnit dq_unit(const Params& p, unsigned x, unsigned y,
                                                           unsigned z, unsigned tiles) {
  DqUnit u;
  u.m0 = (p.causal ? tiles - 1 - x : x) * kCtaRows;
  u.bh = z * p.heads + y;
  u.bh_kv = z * p.kv_heads + y / p.group;
  const int key_tiles = (p.seq + kKStep - 1) / kKStep;
  u.iters = p.causal ? min(key_tiles, (u.m0 + kCtaRows - 1) / kKStep + 1) : key_tiles;
  return u;
}

// k2 with kPersistentK2 (dq_kernel's kLoop): one CTA per SM taking units from the counter
// p.next_unit[1] until none is left. NOTE: its step loop repeats dq_kernel's (with the ring
// position t0 + t and no last turn): the one-unit kernel folded into this function as its
// kLoop-false case reordered that kernel's SASS (12 more uniform-datapath instructions a step at
// D 128, ptxas 13.0), and that kernel's SASS is the measured one.
template <int kD>
__device__ __forceinline__ void dq_units(const Maps& maps, const Params& p, uint8_t* smem_raw) {
  static_assert(kPersistentK2 && kD > 0, "the persistent grid is kPersistentK2's");
  using Smem = DqSmem<kD>;
  constexpr int kStages = Smem::kStages;
  Smem& sm = *reinterpret_cast<Smem*>(align_1024(smem_raw));

  const auto unit_of = [&](unsigned linear) {
    const unsigned tiles = (p.seq + kCtaRows - 1) / kCtaRows;
    return dq_unit(p, linear % tiles, linear / tiles % p.heads, linear / tiles / p.heads, tiles);
  };
  const int warpgroup = warpgroup_index();

  if (threadIdx.x == 0) mbar_init(&sm.qd_empty, 2 * 4);  // fenced by init_barriers
  init_barriers(&sm.qd_full, sm.full, sm.empty);
  // k0's LSE and Delta, through k1 (the kernel before it); with kDqBesideDkv at the end instead
  if constexpr (!kDqBesideDkv) chain_wait_previous();

  if (warpgroup == 0) {
    setmaxnreg_dec<24>();
    if (threadIdx.x == 0) {
      prefetch_map(&maps.k);
      prefetch_map(&maps.v);
      // Q and dO of unit u, then its K and V tiles, ring steps t0 .. t0 + u.iters - 1
      const auto load_unit = [&](const DqUnit& u, int t0) {
        mbar_arrive_expect_tx(&sm.qd_full, 2 * kCtaRows * kCols<kD> * 2);
        for (int cb = 0; cb < kCols<kD> / kSwz; ++cb) {
          tma_load_3d(sm.q + cb * kCtaRows * kSwz, &maps.q, &sm.qd_full, cb * kSwz, u.m0, u.bh);
          tma_load_3d(sm.dout + cb * kCtaRows * kSwz, &maps.dout, &sm.qd_full, cb * kSwz, u.m0,
                      u.bh);
        }
        for (int t = t0; t < t0 + u.iters; ++t) {
          const int s = t % kStages, n0 = (t - t0) * kKStep;
          mbar_wait(&sm.empty[s], ((t / kStages) & 1) ^ 1);
          mbar_arrive_expect_tx(&sm.full[s], 2 * kKStep * kCols<kD> * 2);
          for (int cb = 0; cb < kCols<kD> / kSwz; ++cb) {
            tma_load_3d(sm.k[s] + cb * kKStep * kSwz, &maps.k, &sm.full[s], cb * kSwz, n0, u.bh_kv);
            tma_load_3d(sm.v[s] + cb * kKStep * kSwz, &maps.v, &sm.full[s], cb * kSwz, n0, u.bh_kv);
          }
        }
      };
      // released: the unit before's Q and dO are read
      produce_units(p.next_unit + 1, p.dq_units, &sm.qd_empty, &sm.qd_full, &sm.unit,
                    [&](int linear, int t0) {
                      const DqUnit u = unit_of(linear);
                      load_unit(u, t0);
                      return u.iters;
                    });
    }
    return;
  }

  setmaxnreg_inc<240>();
  const int wg = warpgroup - 1;
  const int t_id = threadIdx.x % kWgThreads;
  const bf16* q_wg = sm.q + wg * kWgRows * kSwz;
  const bf16* do_wg = sm.dout + wg * kWgRows * kSwz;
  // k0's values; with kDqBesideDkv read from L2 (ld.global.cg): k2 has not waited for k0's grid
  auto k0_value = [](const float* values, int64_t i) {
    if constexpr (kDqBesideDkv) return __ldcg(values + i);
    return values[i];
  };
  float dq[kD / 2];                     // (kWgRows, kD) accumulator
  float s[kKStep / 2], dp[kKStep / 2];  // (kWgRows queries, kKStep keys): S -> P -> dS
  // the turns run on from unit to unit: every turn ends with `last` false
  const TakeTurns<kDqPingPong> turns(wg, true);
  // The LSE and Delta of the thread's two query rows of unit u (acc_row for e % 4 < 2 and >= 2;
  // in bounds: seq_pad >= m0 + 128), and the dQ accumulator zeroed.
  struct RowStats {
    float lse2[2], delta[2];
  };
  const auto begin_unit = [&](const DqUnit& u) {
    const int64_t stats =
        static_cast<int64_t>(u.bh) * p.seq_pad + u.m0 + wg * kWgRows + acc_row(0, t_id);
    const RowStats rs = {{k0_value(p.lse2, stats), k0_value(p.lse2, stats + 8)},
                         {k0_value(p.delta, stats), k0_value(p.delta, stats + 8)}};
#pragma unroll
    for (int i = 0; i < kD / 2; ++i) dq[i] = 0.f;
    return rs;
  };
  // Unit u once its Q and dO are in: its ring steps t0 .. t0 + u.iters - 1, then its dQ rows.
  const auto run_unit = [&](const DqUnit& u, int t0, const RowStats& rs) {
    const int qrow0 = u.m0 + wg * kWgRows;  // first query of this warpgroup
    const float(&lse2)[2] = rs.lse2;
    const float(&delta)[2] = rs.delta;
    const int iters = u.iters;
    if constexpr (kDqOverlapNextStepOf<kD>) {
      overlapped_dq_steps<kD, kStages>(sm, p, q_wg, do_wg, qrow0, lse2, delta, t0, iters, turns,
                                       false, dq);
    } else {
      for (int t = 0; t < iters; ++t) {
        const int st = (t0 + t) % kStages;
        const int n0 = t * kKStep;  // first key of the tile
        mbar_wait(&sm.full[st], ((t0 + t) / kStages) & 1);
        if (!(p.causal && n0 > qrow0 + kWgRows - 1)) {
          turns.begin();
          issue_scores<kD>(s, q_wg, sm.k[st]);
          issue_scores<kD, false>(dp, do_wg, sm.v[st]);
          turns.end(false);
          uint32_t a[kKStep / 16][4];  // dS as the bf16 A operand
          ds_frags<kD>(s, dp, a, p, lse2, delta, n0, qrow0, t_id);
          turns.begin();
          issue_dq<kD>(dq, a, sm.k[st]);
          turns.end(false);
          wgmma_wait<0>();
          fence_regs(dq);
        } else if constexpr (kDqPingPong) {
          turns.begin();  // the turns of the products it skips
          turns.end(false);
          turns.begin();
          turns.end(false);
        }
        release_stage(&sm.empty[st]);
      }
    }
    release_stage(&sm.qd_empty);  // the unit's products have completed (Q and dO are read)
    const int64_t slice = static_cast<int64_t>(u.bh) * p.seq * kD * (p.out_f32 ? 4 : 2);
    store_rows(dq, p.scale, static_cast<uint8_t*>(p.out0) + slice, qrow0, p.seq, p.out_f32);
  };

  consume_units(&sm.qd_full, &sm.unit, [&](int linear, int t0) {
    const DqUnit u = unit_of(linear);
    run_unit(u, t0, begin_unit(u));
    return u.iters;
  });
  if constexpr (kDqPingPong)
    if (wg == 0) turns.begin();                       // the opening warpgroup 1's last turn gave
  if constexpr (kDqBesideDkv) chain_wait_previous();  // the grid ends after k1's (or k1b's)
}

// kLoop (kPersistentK2): the persistent grid, for problems of kPersistentK2MinWaves or more
// (Dims::persistent_k2), dq_units.
template <int kD, bool kLoop = false>
__global__ void __launch_bounds__(kThreads, 1)
    dq_kernel(const __grid_constant__ Maps maps, const Params p) {
  using Smem = DqSmem<kD>;
  constexpr int kStages = Smem::kStages;
  extern __shared__ uint8_t smem_raw[];
  if constexpr (kLoop) {
    dq_units<kD>(maps, p, smem_raw);
    return;
  }
  Smem& sm = *reinterpret_cast<Smem*>(align_1024(smem_raw));

  // NOTE: causal: the last query tiles see the most keys; they are launched first.
  const int m_tile = p.causal ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  const int m0 = m_tile * kCtaRows;                                  // first query of the CTA
  const int bh = blockIdx.z * p.heads + blockIdx.y;                  // its query head
  const int bh_kv = blockIdx.z * p.kv_heads + blockIdx.y / p.group;  // and its kv head
  const int key_tiles = (p.seq + kKStep - 1) / kKStep;
  const int iters = p.causal ? min(key_tiles, (m0 + kCtaRows - 1) / kKStep + 1) : key_tiles;
  const int warpgroup = warpgroup_index();

  init_barriers(&sm.qd_full, sm.full, sm.empty);
  // k0's LSE and Delta, through k1 (the kernel before it); with kDqBesideDkv at the end instead
  if constexpr (!kDqBesideDkv) chain_wait_previous();

  if (warpgroup == 0) {
    setmaxnreg_dec<24>();
    if (threadIdx.x == 0) {
      prefetch_map(&maps.k);
      prefetch_map(&maps.v);
      mbar_arrive_expect_tx(&sm.qd_full, 2 * kCtaRows * kCols<kD> * 2);
      for (int cb = 0; cb < kCols<kD> / kSwz; ++cb) {
        tma_load_3d(sm.q + cb * kCtaRows * kSwz, &maps.q, &sm.qd_full, cb * kSwz, m0, bh);
        tma_load_3d(sm.dout + cb * kCtaRows * kSwz, &maps.dout, &sm.qd_full, cb * kSwz, m0, bh);
      }
      for (int t = 0; t < iters; ++t) {
        const int s = t % kStages;
        mbar_wait(&sm.empty[s], ((t / kStages) & 1) ^ 1);
        mbar_arrive_expect_tx(&sm.full[s], 2 * kKStep * kCols<kD> * 2);
        for (int cb = 0; cb < kCols<kD> / kSwz; ++cb) {
          tma_load_3d(sm.k[s] + cb * kKStep * kSwz, &maps.k, &sm.full[s], cb * kSwz, t * kKStep,
                      bh_kv);
          tma_load_3d(sm.v[s] + cb * kKStep * kSwz, &maps.v, &sm.full[s], cb * kSwz, t * kKStep,
                      bh_kv);
        }
      }
    }
    return;
  }

  setmaxnreg_inc<240>();
  const int wg = warpgroup - 1;
  const int t_id = threadIdx.x % kWgThreads;
  const int qrow0 = m0 + wg * kWgRows;  // first query of this warpgroup
  const bf16* q_wg = sm.q + wg * kWgRows * kSwz;
  const bf16* do_wg = sm.dout + wg * kWgRows * kSwz;
  // The thread's two query rows (acc_row for e % 4 < 2 and >= 2); in bounds: seq_pad >= m0 + 128.
  const int64_t stats = static_cast<int64_t>(bh) * p.seq_pad + qrow0 + acc_row(0, t_id);
  // k0's values; with kDqBesideDkv read from L2 (ld.global.cg): k2 has not waited for k0's grid
  auto k0_value = [](const float* values, int64_t i) {
    if constexpr (kDqBesideDkv) return __ldcg(values + i);
    return values[i];
  };
  const float lse2[2] = {k0_value(p.lse2, stats), k0_value(p.lse2, stats + 8)};
  const float delta[2] = {k0_value(p.delta, stats), k0_value(p.delta, stats + 8)};
  float dq[kD / 2];                     // (kWgRows, kD) accumulator
  float s[kKStep / 2], dp[kKStep / 2];  // (kWgRows queries, kKStep keys): S -> P -> dS
#pragma unroll
  for (int i = 0; i < kD / 2; ++i) dq[i] = 0.f;

  const TakeTurns<kDqPingPong> turns(wg, iters > 0);
  mbar_wait(&sm.qd_full, 0);
  if constexpr (kDqOverlapNextStepOf<kD>) {
    overlapped_dq_steps<kD, kStages>(sm, p, q_wg, do_wg, qrow0, lse2, delta, 0, iters, turns, true,
                                     dq);
  } else {
    for (int t = 0; t < iters; ++t) {
      const int st = t % kStages;
      const int n0 = t * kKStep;  // first key of the tile
      mbar_wait(&sm.full[st], (t / kStages) & 1);
      if (!(p.causal && n0 > qrow0 + kWgRows - 1)) {
        turns.begin();
        issue_scores<kD>(s, q_wg, sm.k[st]);
        issue_scores<kD, false>(dp, do_wg, sm.v[st]);
        turns.end(false);
        uint32_t a[kKStep / 16][4];  // dS as the bf16 A operand
        ds_frags<kD>(s, dp, a, p, lse2, delta, n0, qrow0, t_id);
        turns.begin();
        issue_dq<kD>(dq, a, sm.k[st]);
        turns.end(t == iters - 1);
        wgmma_wait<0>();
        fence_regs(dq);
      } else if constexpr (kDqPingPong) {
        turns.begin();  // the turns of the products it skips
        turns.end(false);
        turns.begin();
        turns.end(t == iters - 1);
      }
      release_stage(&sm.empty[st]);
    }
  }

  const int64_t slice = static_cast<int64_t>(bh) * p.seq * kD * (p.out_f32 ? 4 : 2);
  store_rows(dq, p.scale, static_cast<uint8_t*>(p.out0) + slice, qrow0, p.seq, p.out_f32);
  if constexpr (kDqBesideDkv) chain_wait_previous();  // the grid ends after k1's (or k1b's)
}

// ---- host side ----
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

// A row-major [heads, seq, dim] tensor of `type` (`elem_bytes` each) in (box_rows, 128 bytes)
// boxes with the 128-byte swizzle; rows past seq of a head are zero-filled on loads and skipped
// on stores and reductions.
bool encode_3d_of(CUtensorMap* map, CUtensorMapDataType type, uint32_t elem_bytes, void* ptr,
                  int64_t heads, int64_t seq, int64_t dim, uint32_t box_rows,
                  CUtensorMapL2promotion promotion) {
  auto encode = tensor_map_encoder();
  if (encode == nullptr) return false;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(dim), static_cast<cuuint64_t>(seq),
                              static_cast<cuuint64_t>(heads)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(dim) * elem_bytes,
                                 static_cast<cuuint64_t>(seq * dim) * elem_bytes};
  const cuuint32_t box[3] = {128 / elem_bytes, box_rows, 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  return encode(map, type, 3, ptr, dims, strides, box, element_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, promotion,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// A [heads, seq, dim] bf16 tensor read in (box_rows, 64) boxes.
bool encode_3d(CUtensorMap* map, const void* ptr, int64_t heads, int64_t seq, int64_t dim,
               uint32_t box_rows) {
  return encode_3d_of(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(ptr), heads, seq,
                      dim, box_rows, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
}

enum Status : int { kBadProblem = 1, kNoTensorMap = 2, kLaunchFailed = 3, kNoWorkspace = 4 };

struct Dims {
  int batch = 0, heads = 0, kv_heads = 0, seq = 0, dim = 0, seq_pad = 0;
  int splits = 1;  // k1's CTAs per (128 keys, kv head): choose_splits
  int sms = 0;     // the device's SMs (choose_splits)
  bool causal = false, out_f32 = false;
  float scale = 0.f;
  int64_t part_elems() const { return static_cast<int64_t>(batch) * kv_heads * seq * dim; }
  bool fused_dq() const {
    return dim == 128 ? kFusedDqOf<128> && seq >= kFusedDqMinSeqD128
                      : dim == 64 && kFusedDqOf<64> && seq >= kFusedDqMinSeq;
  }
  uint64_t dq_acc_bytes() const { return fused_dq() ? 4ull * batch * heads * seq * dim : 0; }
  uint64_t partial_bytes() const { return splits > 1 ? 8ull * splits * part_elems() : 0; }
  // LSE * log2(e) and Delta, k1's fp32 partials of dK and dV when it is split, the fp32 dQ
  // accumulator with kFusedDq, then k1's unit counter with kPersistentK1 (at this offset)
  uint64_t unit_counter_offset() const {
    return 8ull * batch * heads * seq_pad + partial_bytes() + dq_acc_bytes();
  }
  uint64_t workspace_bytes() const {
    return unit_counter_offset() + (kPersistentK1 || kPersistentK2 ? 16 : 0);
  }
  // kPersistentK1 (unsplit only): k1's units, one CTA's work each without it
  int units() const { return (seq + kCtaRows - 1) / kCtaRows * kv_heads * batch; }
  bool persistent_k1() const {
    return kPersistentK1 && (kPersistentK1Fused || !fused_dq()) && splits == 1 && sms > 0 &&
           units() >= kPersistentK1MinWaves * sms;
  }
  // kPersistentK2: k2's units, one CTA's work each without it
  int dq_units() const { return (seq + kCtaRows - 1) / kCtaRows * heads * batch; }
  bool persistent_k2() const {
    return kPersistentK2 && !fused_dq() && sms > 0 && dq_units() >= kPersistentK2MinWaves * sms;
  }
};

bool is_tensor(const ptxb_tensor_desc& t, int dtype, int rank, const int64_t* shape) {
  if (t.dtype != dtype || t.rank != rank) return false;
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    if (t.shape[i] != shape[i] || t.strides[i] != stride) return false;
    stride *= shape[i];
  }
  return true;
}

// Validates the problem (see the contract at the top) and returns its sizes.
int read_dims(const ptxb_problem& p, Dims* d) {
  if (p.num_inputs != 6 || p.num_outputs != 3 || p.num_scalars < 1) return kBadProblem;
  const ptxb_tensor_desc& q = p.inputs[0];
  if (q.rank != 4) return kBadProblem;
  const int64_t shape[4] = {q.shape[0], q.shape[1], q.shape[2], q.shape[3]};
  if (shape[0] < 1 || shape[1] < 1 || shape[2] < 1 || shape[2] > kMaxSeq ||
      (shape[3] != 64 && shape[3] != 96 && shape[3] != 128) || shape[0] > 65535 || shape[1] > 65535)
    return kBadProblem;
  const int64_t kv_heads = p.inputs[1].rank == 4 ? p.inputs[1].shape[1] : 0;
  if (kv_heads < 1 || shape[1] % kv_heads != 0) return kBadProblem;
  const int64_t kv_shape[4] = {shape[0], kv_heads, shape[2], shape[3]};
  // Q, O, dO with Q's shape; K, V (and dK, dV) with HKV heads
  for (int i = 0; i < 5; ++i)
    if (!is_tensor(p.inputs[i], PTXB_BF16, 4, i == 1 || i == 2 ? kv_shape : shape))
      return kBadProblem;
  if (!is_tensor(p.inputs[5], PTXB_F32, 3, shape)) return kBadProblem;
  const int out_dtype = p.outputs[0].dtype;
  if (out_dtype != PTXB_BF16 && out_dtype != PTXB_F32) return kBadProblem;
  for (int i = 0; i < 3; ++i)
    if (!is_tensor(p.outputs[i], out_dtype, 4, i == 0 ? shape : kv_shape)) return kBadProblem;
  d->batch = static_cast<int>(shape[0]);
  d->heads = static_cast<int>(shape[1]);
  d->kv_heads = static_cast<int>(kv_heads);
  d->seq = static_cast<int>(shape[2]);
  d->dim = static_cast<int>(shape[3]);
  d->seq_pad = (d->seq + kSeqPad - 1) / kSeqPad * kSeqPad;
  d->causal = p.num_scalars >= 2 && p.scalars[1] != 0.0;
  d->out_f32 = out_dtype == PTXB_F32;
  d->scale = static_cast<float>(p.scalars[0]);
  return d->workspace_bytes() <= PTXB_MAX_WORKSPACE_BYTES ? PTXB_OK : kBadProblem;
}

// k1 has one CTA per (128 keys, kv head, batch), each looping over the G query heads of its
// group. When that leaves SMs idle, the group is split: the smallest divisor of G that gives at
// least one CTA per SM (or G), within the workspace limit. A function of the problem and the
// SM count only, so ptxb_plan and ptxb_run agree.
void choose_splits(Dims* d) {
  int sms = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess) sms = 0;
  d->sms = sms;
  const int group = d->heads / d->kv_heads;
  const int64_t ctas =
      static_cast<int64_t>((d->seq + kCtaRows - 1) / kCtaRows) * d->batch * d->kv_heads;
  d->splits = 1;
  for (int s = 2; s <= group && ctas * d->splits < sms; ++s) {
    if (group % s != 0) continue;
    Dims trial = *d;
    trial.splits = s;
    if (trial.workspace_bytes() > PTXB_MAX_WORKSPACE_BYTES) break;
    d->splits = s;
  }
}

// Everything the three launches need; built once per ptxb_run.
struct Launch {
  Dims d;
  Params params;  // out0 / out1 set per kernel
  const bf16 *out, *dout;
  const float* lse;
  void *dq, *dk, *dv;
  Maps dkdv_maps;     // Q, dO in (q step, 64) boxes; K, V in (128, 64)
  Maps dq_maps;       // all in (128, 64) boxes
  MapsDq dkdvq_maps;  // kFusedDq: dkdv_maps and the dQ accumulator's
  cudaStream_t stream;
};

int prepare(const ptxb_args& args, Launch* l) {
  if (const int status = read_dims(*args.problem, &l->d); status != PTXB_OK) return status;
  choose_splits(&l->d);
  const Dims& d = l->d;
  if (args.workspace == nullptr || args.workspace_bytes < d.workspace_bytes()) return kNoWorkspace;
  const int64_t heads = static_cast<int64_t>(d.batch) * d.heads;
  const int64_t kv_heads = static_cast<int64_t>(d.batch) * d.kv_heads;
  auto encode = [&](CUtensorMap* map, int input, uint32_t rows) {
    return encode_3d(map, args.inputs[input], input == 1 || input == 2 ? kv_heads : heads, d.seq,
                     d.dim, rows);
  };
  const uint32_t q_step = static_cast<uint32_t>(qstep_of(d.dim));
  const bool ok = encode(&l->dkdv_maps.q, 0, q_step) && encode(&l->dkdv_maps.dout, 4, q_step) &&
                  encode(&l->dkdv_maps.k, 1, kCtaRows) && encode(&l->dkdv_maps.v, 2, kCtaRows) &&
                  encode(&l->dq_maps.q, 0, kCtaRows) && encode(&l->dq_maps.dout, 4, kCtaRows);
  l->dq_maps.k = l->dkdv_maps.k;
  l->dq_maps.v = l->dkdv_maps.v;
  if (!ok) return kNoTensorMap;
  float* dq_acc = nullptr;
  if (d.fused_dq()) {
    dq_acc = reinterpret_cast<float*>(static_cast<uint8_t*>(args.workspace) +
                                      8ull * heads * d.seq_pad + d.partial_bytes());
    l->dkdvq_maps = MapsDq{l->dkdv_maps.q, l->dkdv_maps.dout, l->dkdv_maps.k, l->dkdv_maps.v, {}};
    // (kDqBlockRows, 32) fp32 boxes for k1's reductions
    if (!encode_3d_of(&l->dkdvq_maps.dq, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, dq_acc, heads, d.seq,
                      d.dim, kDqBlockRows, CU_TENSOR_MAP_L2_PROMOTION_NONE))
      return kNoTensorMap;
  }
  l->out = static_cast<const bf16*>(args.inputs[3]);
  l->dout = static_cast<const bf16*>(args.inputs[4]);
  l->lse = static_cast<const float*>(args.inputs[5]);
  Params& p = l->params;
  p = Params{};
  p.seq = d.seq, p.seq_pad = d.seq_pad, p.heads = d.heads, p.causal = d.causal;
  p.kv_heads = d.kv_heads, p.group = d.heads / d.kv_heads;
  p.out_f32 = d.out_f32, p.scale = d.scale, p.scale_log2 = d.scale * kLog2e;
  p.lse2 = static_cast<float*>(args.workspace), p.delta = p.lse2 + heads * d.seq_pad;
  p.splits = d.splits, p.part_elems = d.part_elems();
  p.part = d.splits > 1 ? p.delta + heads * d.seq_pad : nullptr;
  p.dq_acc = dq_acc;
  p.units = d.units();
  p.dq_units = d.dq_units();
  p.next_unit =
      kPersistentK1 || kPersistentK2
          ? reinterpret_cast<int*>(static_cast<uint8_t*>(args.workspace) + d.unit_counter_offset())
          : nullptr;
  l->dq = args.outputs[0];
  l->dk = args.outputs[1];
  l->dv = args.outputs[2];
  l->stream = static_cast<cudaStream_t>(args.stream);
  return PTXB_OK;
}

int launch_status() { return cudaGetLastError() == cudaSuccess ? PTXB_OK : kLaunchFailed; }

// `kernel` on `grid` CTAs of `threads` with `smem` dynamic shared memory, a programmatic dependent
// of the kernel before it on `stream` when kChainPdl (else an ordinary launch).
template <typename... Params, typename... Args>
cudaError_t launch_chained(void (*kernel)(Params...), dim3 grid, unsigned threads, size_t smem,
                           cudaStream_t stream, Args... args) {
  return launch_programmatic(kernel, grid, dim3(threads), smem, stream, kChainPdl, args...);
}

// The kernels of one head dim and the dynamic shared memory of k1 and k2; where Dims::fused_dq()
// (kFusedDq: D 128, and D 64 with kFusedDqD64) k0 also zeroes the dQ accumulator (delta_zero), k1
// is the fused kernel (dkdvq, dkdvq_split) and k2 the conversion.
struct Kernels {
  using Delta = void (*)(const bf16*, const bf16*, const float*, float*, float*, int, int, int64_t,
                         float*, int*);
  Delta delta;
  void (*dkdv)(Maps, Params);
  void (*dkdv_split)(Maps, Params);
  void (*dq)(Maps, Params);
  size_t dkdv_smem, dq_smem;
  Delta delta_zero = nullptr;
  void (*dkdvq)(MapsDq, Params) = nullptr;
  void (*dkdvq_split)(MapsDq, Params) = nullptr;
  size_t dkdvq_smem = 0;
  // kPersistentK1: the persistent k1 (Dims::persistent_k1), plain and fused
  void (*dkdv_loop)(Maps, Params) = nullptr;
  void (*dkdvq_loop)(MapsDq, Params) = nullptr;
  void (*dq_loop)(Maps, Params) = nullptr;  // kPersistentK2: the persistent k2
};
template <int kD>
Kernels kernels_for() {
  Kernels k{delta_kernel<kD>, dkdv_kernel<kD, false>,    dkdv_kernel<kD, true>,
            dq_kernel<kD>,    smem_bytes<DkvSmem<kD>>(), smem_bytes<DqSmem<kD>>()};
  if constexpr (kFusedDqOf<kD>) {
    k.delta_zero = delta_kernel<kD, true>;
    k.dkdvq = dkdv_kernel<kD, false, true>;
    k.dkdvq_split = dkdv_kernel<kD, true, true>;
    k.dkdvq_smem = smem_bytes<DkvqSmem<kD>>();
    if constexpr (kPersistentK1 && kPersistentK1Fused)
      k.dkdvq_loop = dkdv_kernel<kD, false, true, true>;
  }
  if constexpr (kPersistentK1) k.dkdv_loop = dkdv_kernel<kD, false, false, true>;
  if constexpr (kPersistentK2) k.dq_loop = dq_kernel<kD, true>;
  return k;
}
Kernels kernels_of(int dim) {
  return dim == 128 ? kernels_for<128>() : dim == 96 ? kernels_for<96>() : kernels_for<64>();
}

int launch_delta(const Launch& l) {
  const int64_t rows = static_cast<int64_t>(l.d.batch) * l.d.heads * l.d.seq_pad;
  const unsigned blocks = static_cast<unsigned>(rows / 8);  // 8 warps per block; seq_pad % 8 == 0
  const Kernels k = kernels_of(l.d.dim);
  (l.d.fused_dq() ? k.delta_zero : k.delta)<<<blocks, 256, 0, l.stream>>>(
      l.out, l.dout, l.lse, l.params.lse2, l.params.delta, l.d.seq, l.d.seq_pad, rows,
      l.params.dq_acc, l.params.next_unit);
  return launch_status();
}

// k1 runs `splits` CTAs per kv head (each loops over its share of the group's query heads), k2
// one per query head.
dim3 grid_of(const Dims& d, int heads) {
  return dim3(static_cast<unsigned>((d.seq + kCtaRows - 1) / kCtaRows),
              static_cast<unsigned>(heads), static_cast<unsigned>(d.batch));
}

int launch_dkdv(const Launch& l) {
  Params p = l.params;
  p.out0 = l.dk;
  p.out1 = l.dv;
  const bool split = l.d.splits > 1, loop = l.d.persistent_k1();
  // the persistent k1: a CTA per SM, each taking units in turn (persistent_k1: more units than SMs)
  const dim3 grid =
      loop ? dim3(static_cast<unsigned>(l.d.sms)) : grid_of(l.d, l.d.kv_heads * l.d.splits);
  const Kernels k = kernels_of(l.d.dim);
  const auto fused = loop ? k.dkdvq_loop : split ? k.dkdvq_split : k.dkdvq;
  const auto plain = loop ? k.dkdv_loop : split ? k.dkdv_split : k.dkdv;
  const cudaError_t launched =
      l.d.fused_dq()
          ? launch_chained(fused, grid, kThreads, k.dkdvq_smem, l.stream, l.dkdvq_maps, p)
          : launch_chained(plain, grid, kThreads, k.dkdv_smem, l.stream, l.dkdv_maps, p);
  if (launched != cudaSuccess || !split) return launch_status();
  const int64_t threads = 2 * l.d.part_elems() / 4;
  launch_chained(sum_splits_kernel, dim3(static_cast<unsigned>((threads + 255) / 256)), 256, 0,
                 l.stream, static_cast<const float*>(p.part), l.d.splits, l.d.part_elems(), l.dk,
                 l.dv, l.d.out_f32);
  return launch_status();
}

int launch_dq(const Launch& l) {
  if (l.d.fused_dq()) {
    const int64_t quads = static_cast<int64_t>(l.d.batch) * l.d.heads * l.d.seq * l.d.dim / 4;
    launch_chained(convert_dq_kernel, dim3(static_cast<unsigned>((quads + 255) / 256)), 256, 0,
                   l.stream, static_cast<const float*>(l.params.dq_acc), quads, l.d.scale, l.dq,
                   l.d.out_f32 ? 1 : 0);
    return launch_status();
  }
  Params p = l.params;
  p.out0 = l.dq;
  const Kernels k = kernels_of(l.d.dim);
  // the persistent k2: a CTA per SM, each taking units in turn (persistent_k2: more units than SMs)
  if (l.d.persistent_k2())
    launch_chained(k.dq_loop, dim3(static_cast<unsigned>(l.d.sms)), kThreads, k.dq_smem, l.stream,
                   l.dq_maps, p);
  else
    launch_chained(k.dq, grid_of(l.d, l.d.heads), kThreads, k.dq_smem, l.stream, l.dq_maps, p);
  return launch_status();
}

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  Dims d;
  if (const int status = read_dims(*problem, &d); status != PTXB_OK) return status;
  choose_splits(&d);
  *workspace_bytes = d.workspace_bytes();
  const Kernels k = kernels_of(d.dim);
  const std::pair<const void*, size_t> kernels[] = {
      {reinterpret_cast<const void*>(k.dkdv), k.dkdv_smem},
      {reinterpret_cast<const void*>(k.dkdv_split), k.dkdv_smem},
      {reinterpret_cast<const void*>(k.dq), k.dq_smem},
      {reinterpret_cast<const void*>(k.dkdvq), k.dkdvq_smem},
      {reinterpret_cast<const void*>(k.dkdvq_split), k.dkdvq_smem},
      {reinterpret_cast<const void*>(k.dkdv_loop), k.dkdv_smem},
      {reinterpret_cast<const void*>(k.dkdvq_loop), k.dkdvq_smem},
      {reinterpret_cast<const void*>(k.dq_loop), k.dq_smem}};
  for (const auto& [kernel, bytes] : kernels)
    if (kernel != nullptr &&
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(bytes)) != cudaSuccess)
      return kLaunchFailed;
  return PTXB_OK;
}

extern "C" int ptxb_run(const ptxb_args* args) {
  Launch l;
  int status = prepare(*args, &l);
  if (status == PTXB_OK) status = launch_delta(l);
  if (status == PTXB_OK) status = launch_dkdv(l);
  if (status == PTXB_OK) status = launch_dq(l);
  return status;
}
