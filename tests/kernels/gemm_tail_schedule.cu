// The GEMM experts' stream-K tail schedule (kernels/gemm/sm90_gemm_tail_schedule.cuh), checked
// on the host for many (CTAs, tiles, k-blocks): every k-block of every tile is computed exactly
// once, a unit stores a partial exactly when it is not a whole tile, partial slots are unique and
// in range, no CTA has more than its waves plus kMaxTailPieces units, and sum_tail_tiles' view of
// each shared tile (first_cta..last_cta, slot) is exactly the units that wrote it, in k order;
// the same units in every TailOrder of a CTA's work (tail pieces before every whole tile, the
// pieces reversed), and tail_fixup's bookkeeping (kernels/gemm/sm90_gemm_tail_fixup.cuh): with the
// pieces descending, a tile's finishing CTA (its last) takes its piece of it as its last piece
// and every other CTA of the tile as its first; the flags of the pieces unique and inside the
// workspace the GEMM kernel is given, after the partial slots.
// Also the k-slices the ring's consumers issue with kPartialLastKBlock
// (slices_in_last_k_block, kernels/gemm/sm90_gemm_bf16_ws_ring.cuh): over the units of a tile,
// stream-K pieces and split-K splits alike, every 16-column slice that holds part of K exactly
// once and none past it, for K at every multiple of 8 in its last k-block.
// Compiled to PTX only (no GPU, no ptxas) by the CTest `gemm_tail_schedule`; exit 0 when it holds.
#include <cstdio>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "gemm/sm90_gemm_bf16_ws_ring.cuh"
#include "gemm/sm90_gemm_tail_fixup.cuh"
#include "gemm/sm90_gemm_tail_schedule.cuh"

namespace {

// The k-slices consume() issues for k-blocks [kb_begin, kb_begin + k_blocks) of a K of `K`
// columns with kPartialLastKBlock: whole k-blocks, then the last one's slices that hold data.
int issued_slices(int kb_begin, int k_blocks, int K) {
  return kSlicesPerKBlock * (k_blocks - 1) + slices_in_last_k_block(kb_begin + k_blocks, K);
}

// Whether the units' slices of a tile add up to K's slices (ceil(K / 16)) for every K whose
// k-blocks number k_total; `units` lists each unit's (kb_begin, k_blocks).
bool slices_cover_k(const std::vector<std::pair<int, int>>& units, int k_total) {
  for (int K = (k_total - 1) * kBlockK + 8; K <= k_total * kBlockK; K += 8) {
    int slices = 0;
    for (const auto& [kb_begin, k_blocks] : units) slices += issued_slices(kb_begin, k_blocks, K);
    if (slices != (K + 15) / 16) return false;
  }
  return true;
}

// The same for split-K: `splits` splits of split_kb k-blocks (the last one shorter).
const char* check_split_slices(int k_total) {
  for (int split_kb = 1; split_kb <= k_total; ++split_kb) {
    std::vector<std::pair<int, int>> units;
    for (int kb_begin = 0; kb_begin < k_total; kb_begin += split_kb)
      units.push_back({kb_begin, split_kb < k_total - kb_begin ? split_kb : k_total - kb_begin});
    if (!slices_cover_k(units, k_total)) return "split-K units issue other slices than K has";
  }
  return "";
}

// CTA c's units under s, in the order the GEMM kernel takes them (every j below
// tail_unit_bound, skipping those without work).
std::vector<TailUnit> units_of_cta(const TailSchedule& s, int tiles, int c, TailOrder order) {
  std::vector<TailUnit> units;
  TailUnit u;
  for (int j = 0; j < tail_unit_bound(s); ++j)
    if (tail_unit(s, tiles, c, j, u, order)) units.push_back(u);
  return units;
}

bool same_unit(const TailUnit& a, const TailUnit& b) {
  return a.block == b.block && a.kb_begin == b.kb_begin && a.k_blocks == b.k_blocks &&
         a.slot == b.slot;
}

// The first difference between CTA c's work in `order` and in the default order (waves, then the
// pieces ascending), or "": the same whole tiles of the waves in the same order, and the same
// pieces, before the waves with tail_first and reversed with pieces_descending.
const char* check_order(const TailSchedule& s, int tiles, int c, TailOrder order) {
  const std::vector<TailUnit> base = units_of_cta(s, tiles, c, {});
  const std::vector<TailUnit> other = units_of_cta(s, tiles, c, order);
  if (base.size() != other.size()) return "an order takes other units";
  const size_t waves = s.tail_tiles == 0 ? base.size() : static_cast<size_t>(s.waves);
  const size_t pieces = base.size() - waves;
  for (size_t i = 0; i < base.size(); ++i) {
    size_t at = i;  // where base's unit i is in `other`
    if (i >= waves && order.pieces_descending) at = waves + (pieces - 1 - (i - waves));
    if (order.tail_first) at = at < waves ? at + pieces : at - waves;
    if (!same_unit(base[i], other[at])) return "an order is not the default order moved";
  }
  return "";
}

// tail_fixup's flags for s: one per (partial slot, consumer half), distinct and inside the
// workspace after the partial slots (tail_partial_bytes + tail_fixup_bytes).
const char* check_fixup_flags(const TailSchedule& s) {
  if (s.tail_tiles == 0) return "";
  if (tail_slot_floats(s) * static_cast<int64_t>(sizeof(float)) !=
      static_cast<int64_t>(tail_partial_bytes(s, kBlockM * kBlockN)))
    return "the flags do not start where the slots end";
  std::set<int64_t> flags;
  for (int slot = 0; slot < s.ctas * kMaxTailPieces; ++slot)
    for (int consumer = 0; consumer < kConsumers; ++consumer) {
      const int64_t index = fixup_flag_index(slot, consumer);
      if (index < 0 || (index + 1) * static_cast<int64_t>(sizeof(uint32_t)) >
                           static_cast<int64_t>(tail_fixup_bytes(s)))
        return "a flag outside the workspace";
      if (!flags.insert(index).second) return "a flag shared by two halves";
    }
  return "";
}

// With the pieces descending (tail_fixup's order), the first difference from "the last CTA of a
// shared tile takes its piece of it after its other piece, every other CTA of the tile before",
// or "": the finishing CTA then reaches the tile after the others began theirs.
const char* check_finisher_last(const TailSchedule& s, int tiles) {
  for (int c = 0; c < s.ctas; ++c) {
    std::vector<TailUnit> pieces;
    for (const TailUnit& u : units_of_cta(s, tiles, c, {false, true}))
      if (u.slot >= 0) pieces.push_back(u);
    for (size_t i = 0; i < pieces.size(); ++i) {
      const int t = pieces[i].block - s.waves * s.ctas;
      if (c == s.last_cta(t) && i + 1 != pieces.size())
        return "a finishing CTA takes another piece after the tile it finishes";
      if (c != s.last_cta(t) && i != 0) return "a CTA that does not finish a tile takes it last";
    }
  }
  return "";
}

// The first broken property of one configuration, or "".
const char* check(int ctas, int tiles, int k_total, long* shared_tiles) {
  const TailSchedule s = tail_schedule(tiles, k_total, ctas);
  for (int c = 0; c < ctas; ++c)
    for (const TailOrder order :
         {TailOrder{true, false}, TailOrder{false, true}, TailOrder{true, true}})
      if (const char* broken = check_order(s, tiles, c, order); *broken) return broken;
  if (const char* broken = check_fixup_flags(s); *broken) return broken;
  if (const char* broken = check_finisher_last(s, tiles); *broken) return broken;
  if (tiles < ctas || tiles % ctas == 0) return s.tail_tiles == 0 ? "" : "a tail without one";
  if (s.tail_tiles != tiles % ctas || s.waves != tiles / ctas) return "waves and tail";
  std::vector<std::vector<int>> computed(tiles, std::vector<int>(k_total, 0));
  std::set<int> slots;
  std::map<int, std::vector<std::pair<int, TailUnit>>> pieces;  // tail tile: (CTA, unit)
  for (int c = 0; c < ctas; ++c) {
    const std::vector<TailUnit> units = units_of_cta(s, tiles, c, {});
    for (const TailUnit& u : units) {
      if (u.block < 0 || u.block >= tiles || u.k_blocks <= 0 || u.kb_begin < 0 ||
          u.kb_begin + u.k_blocks > k_total)
        return "a unit outside the problem";
      for (int k = u.kb_begin; k < u.kb_begin + u.k_blocks; ++k) ++computed[u.block][k];
      if ((u.kb_begin == 0 && u.k_blocks == k_total) != (u.slot < 0))
        return "a partial slot on a whole tile, or none on a piece";
      if (u.slot >= 0) {
        if (u.slot >= ctas * kMaxTailPieces || !slots.insert(u.slot).second)
          return "a slot out of range or used twice";
        pieces[u.block - s.waves * s.ctas].push_back({c, u});
      }
    }
    if (units.size() > static_cast<size_t>(s.waves + kMaxTailPieces))
      return "too many units for one CTA";
  }
  for (const auto& tile : computed)
    for (const int n : tile)
      if (n != 1) return "a k-block computed other than once";
  for (int t = 0; t < s.tail_tiles; ++t) {
    const int first = s.first_cta(t), last = s.last_cta(t);
    const auto it = pieces.find(t);
    if (first == last) {
      if (it != pieces.end()) return "pieces of a tile inside one range";
      continue;
    }
    ++*shared_tiles;
    if (it == pieces.end() || static_cast<int>(it->second.size()) != last - first + 1)
      return "reduce_tail would sum other pieces than were written";
    int next_k = 0;
    for (int i = 0; i <= last - first; ++i) {
      const auto& [c, u] = it->second[i];
      if (c != first + i || s.slot(c, t) != u.slot || u.kb_begin != next_k)
        return "reduce_tail's slots or order differ from the units'";
      next_k += u.k_blocks;
    }
    if (next_k != k_total) return "the pieces do not cover the tile";
  }
  std::map<int, std::vector<std::pair<int, int>>> units_of_tile;  // tile: (kb_begin, k_blocks)
  for (int c = 0; c < ctas; ++c)
    for (const TailUnit& u : units_of_cta(s, tiles, c, {}))
      units_of_tile[u.block].push_back({u.kb_begin, u.k_blocks});
  for (const auto& [tile, units] : units_of_tile)
    if (!slices_cover_k(units, k_total)) return "stream-K units issue other slices than K has";
  return "";
}

}  // namespace

int main() {
  long configurations = 0, shared_tiles = 0;
  for (const int ctas : {1, 2, 7, 13, 132})
    for (int tiles = 1; tiles <= 5 * ctas + 3; ++tiles)
      for (const int k_total : {1, 2, 3, 13, 64, 128, 129, 200}) {
        ++configurations;
        if (const char* broken = check(ctas, tiles, k_total, &shared_tiles); *broken) {
          std::printf("%d CTAs, %d tiles, %d k-blocks: %s\n", ctas, tiles, k_total, broken);
          return 1;
        }
      }
  for (int k_total = 1; k_total <= 200; ++k_total)
    if (const char* broken = check_split_slices(k_total); *broken) {
      std::printf("%d k-blocks: %s\n", k_total, broken);
      return 1;
    }
  std::printf("tail schedule: %ld configurations, %ld shared tiles: ok\n", configurations,
              shared_tiles);
  return 0;
}
