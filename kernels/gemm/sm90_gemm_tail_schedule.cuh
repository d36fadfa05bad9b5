// The stream-K tail schedule of the persistent bf16 GEMM experts
// (gemm/sm90_gemm_bf16_tma_ws_gemm.cuh): with W full waves of output tiles and a tail of T < CTAs
// tiles, the tail's T * k_total k-block iterations are cut into one contiguous range per CTA, so
// that no CTA computes more than W + T / CTAs tiles' worth instead of W + 1. A range may start or
// end inside a tile: such pieces leave fp32 partials in slots of a workspace, summed per tile in
// CTA order by sum_tail_tiles (in the includer's reduce_tail kernel); a tile inside one CTA's range
// is stored as usual. Checked on the host by tests/kernels/gemm_tail_schedule.cu. Experts hold a
// copy (scripts/amalgamate.py).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

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
