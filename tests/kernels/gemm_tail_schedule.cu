// The GEMM experts' stream-K tail schedule (kernels/gemm/sm90_gemm_tail_schedule.cuh), checked
// on the host for many (CTAs, tiles, k-blocks): every k-block of every tile is computed exactly
// once, a unit stores a partial exactly when it is not a whole tile, partial slots are unique and
// in range, no CTA has more than its waves plus kMaxTailPieces units, and sum_tail_tiles' view of
// each shared tile (first_cta..last_cta, slot) is exactly the units that wrote it, in k order.
// Compiled to PTX only (no GPU, no ptxas) by the CTest `gemm_tail_schedule`; exit 0 when it holds.
#include <cstdio>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "gemm/sm90_gemm_tail_schedule.cuh"

namespace {

// The first broken property of one configuration, or "".
const char* check(int ctas, int tiles, int k_total, long* shared_tiles) {
  const TailSchedule s = tail_schedule(tiles, k_total, ctas);
  if (tiles < ctas || tiles % ctas == 0) return s.tail_tiles == 0 ? "" : "a tail without one";
  if (s.tail_tiles != tiles % ctas || s.waves != tiles / ctas) return "waves and tail";
  std::vector<std::vector<int>> computed(tiles, std::vector<int>(k_total, 0));
  std::set<int> slots;
  std::map<int, std::vector<std::pair<int, TailUnit>>> pieces;  // tail tile: (CTA, unit)
  for (int c = 0; c < ctas; ++c) {
    TailUnit u;
    int j = 0;
    for (; tail_unit(s, tiles, c, j, u); ++j) {
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
    if (j > s.waves + kMaxTailPieces) return "too many units for one CTA";
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
  std::printf("tail schedule: %ld configurations, %ld shared tiles: ok\n", configurations,
              shared_tiles);
  return 0;
}
