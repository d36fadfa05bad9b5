#include "families/structured_values.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "core/error.hpp"

namespace ptxb {

const std::vector<std::string>& integer_value_kinds() {
  static const std::vector<std::string> kKinds = {"offsets", "sequence_offsets", "permutation",
                                                  "sequence_lengths", "page_table"};
  return kKinds;
}

const std::vector<std::string>& float_value_kinds() {
  static const std::vector<std::string> kKinds = {"scales"};
  return kKinds;
}

std::vector<double> draw_scales(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> exponent(-3, 3), mantissa(0, 7);
  std::vector<double> out(static_cast<size_t>(n));
  for (double& s : out) {
    const int e = exponent(rng);
    s = std::ldexp(1.0 + mantissa(rng) / 8.0, e);
  }
  return out;
}

std::vector<int64_t> draw_offsets(int64_t groups, int64_t total, uint64_t seed) {
  PTXB_ASSERT(groups >= 1 && total >= 0, "draw_offsets: groups >= 1 and total >= 0");
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  // Heavy-tailed weights (a Pareto tail, as token routing to experts tends to be); an eighth of
  // the groups empty, an eighth a single row: the cases kernels get wrong.
  std::vector<double> weight(static_cast<size_t>(groups));
  std::vector<int64_t> size(static_cast<size_t>(groups), 0);
  int64_t fixed = 0;
  for (size_t g = 0; g < weight.size(); ++g) {
    const double u = unit(rng);
    if (u < 0.125) continue;  // empty
    if (u < 0.25 && fixed < total) {
      size[g] = 1;
      ++fixed;
      continue;
    }
    weight[g] = 1.0 / std::pow(1.0 - unit(rng), 0.8);
  }
  const double sum = std::accumulate(weight.begin(), weight.end(), 0.0);
  int64_t left = total - fixed;
  if (sum == 0) {  // every group drew empty or single: the rest goes to the first group
    size[0] += left;
    left = 0;
  }
  int64_t given = 0;
  for (size_t g = 0; g < weight.size() && sum > 0; ++g) {
    const auto share =
        static_cast<int64_t>(std::floor(static_cast<double>(left) * weight[g] / sum));
    size[g] += share;
    given += share;
  }
  for (size_t g = 0; given < left; g = (g + 1) % weight.size())  // rounding remainder
    if (weight[g] > 0) size[g] += 1, ++given;
  std::vector<int64_t> offsets(static_cast<size_t>(groups) + 1, 0);
  for (size_t g = 0; g < size.size(); ++g) offsets[g + 1] = offsets[g] + size[g];
  return offsets;
}

bool sequence_offsets_fit(int64_t batch, int64_t total, int64_t max_len) {
  return batch >= 1 && max_len >= 1 && batch - 1 + max_len <= total && total <= batch * max_len;
}

std::vector<int64_t> shape_sequence_offsets(int64_t batch, int64_t total, int64_t max_len) {
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  for (const int64_t size : {batch, total, max_len})
    seed = (seed ^ static_cast<uint64_t>(size)) * 0x100000001b3ull;
  return draw_sequence_offsets(batch, total, max_len, seed);
}

std::vector<int64_t> draw_sequence_offsets(int64_t batch, int64_t total, int64_t max_len,
                                           uint64_t seed) {
  PTXB_ASSERT(sequence_offsets_fit(batch, total, max_len),
              "draw_sequence_offsets: batch - 1 + max_len <= total <= batch * max_len");
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<int64_t> length(static_cast<size_t>(batch), 1);
  const auto longest = static_cast<size_t>(rng() % static_cast<uint64_t>(batch));
  length[longest] = max_len;
  // Heavy-tailed weights for the others; an eighth keep their single token.
  std::vector<double> weight(length.size(), 0.0);
  for (size_t b = 0; b < weight.size(); ++b)
    if (b != longest && unit(rng) >= 0.125) weight[b] = 1.0 / std::pow(1.0 - unit(rng), 0.8);
  int64_t left = total - (batch - 1) - max_len;  // tokens beyond one per sequence and the longest
  // Proportional shares capped at max_len; what a cap cuts goes round again, to every sequence
  // that can still grow once the weighted ones are full (total <= batch * max_len: it fits).
  while (left > 0) {
    double sum = 0;
    for (size_t b = 0; b < weight.size(); ++b)
      if (length[b] < max_len) sum += weight[b];
    int64_t given = 0;
    for (size_t b = 0; b < weight.size() && sum > 0; ++b) {
      if (length[b] >= max_len) continue;
      const auto share = std::min<int64_t>(
          max_len - length[b],
          static_cast<int64_t>(std::floor(static_cast<double>(left) * weight[b] / sum)));
      length[b] += share;
      given += share;
    }
    // Shares rounded to nothing, or no weighted sequence can grow: one token at a time, to the
    // weighted sequences first.
    for (const bool weighted_only : {true, false})
      for (size_t b = 0; b < length.size() && given == 0; ++b)
        if (length[b] < max_len && (weight[b] > 0 || !weighted_only)) ++length[b], ++given;
    left -= given;
  }
  std::vector<int64_t> offsets(length.size() + 1, 0);
  for (size_t b = 0; b < length.size(); ++b) offsets[b + 1] = offsets[b] + length[b];
  return offsets;
}

bool sequence_lengths_fit(int64_t batch, int64_t total, int64_t max_len, int64_t min_len) {
  if (min_len < 1 || max_len < min_len || batch < 1) return false;
  const int64_t extra = min_len - 1;  // tokens every sequence has beyond one
  return sequence_offsets_fit(batch, total - batch * extra, max_len - extra);
}

std::vector<int64_t> shape_sequence_lengths(int64_t batch, int64_t total, int64_t max_len,
                                            int64_t min_len) {
  PTXB_ASSERT(sequence_lengths_fit(batch, total, max_len, min_len),
              "shape_sequence_lengths: the sizes admit no batch");
  const int64_t extra = min_len - 1;
  const std::vector<int64_t> offsets =
      shape_sequence_offsets(batch, total - batch * extra, max_len - extra);
  std::vector<int64_t> lengths(static_cast<size_t>(batch));
  for (size_t b = 0; b < lengths.size(); ++b) lengths[b] = offsets[b + 1] - offsets[b] + extra;
  return lengths;
}

int64_t min_length(const StructuredValues& v, const Shape& shape) {
  return v.min.empty() ? 1 : shape.at(v.min);
}

int64_t pages_needed(const std::vector<int64_t>& lengths, int64_t page) {
  PTXB_ASSERT(page >= 1, "pages_needed: page >= 1");
  int64_t pages = 0;
  for (const int64_t len : lengths) pages += (len + page - 1) / page;
  return pages;
}

std::vector<int64_t> draw_page_table(const std::vector<int64_t>& lengths, int64_t page,
                                     int64_t width, int64_t pages, uint64_t seed) {
  PTXB_ASSERT(pages >= pages_needed(lengths, page), "draw_page_table: the pool is too small");
  const std::vector<int64_t> pool = draw_permutation(pages, seed);
  std::vector<int64_t> table(lengths.size() * static_cast<size_t>(width), 0);
  size_t next = 0;
  for (size_t b = 0; b < lengths.size(); ++b) {
    const int64_t used = (lengths[b] + page - 1) / page;
    PTXB_ASSERT(used <= width, "draw_page_table: a sequence needs more pages than a row holds");
    for (int64_t p = 0; p < used; ++p)
      table[b * static_cast<size_t>(width) + static_cast<size_t>(p)] = pool[next++];
  }
  return table;
}

std::vector<int64_t> draw_permutation(int64_t n, uint64_t seed) {
  PTXB_ASSERT(n >= 0, "draw_permutation: n >= 0");
  std::vector<int64_t> out(static_cast<size_t>(n));
  std::iota(out.begin(), out.end(), int64_t{0});
  std::mt19937_64 rng(seed);
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

}  // namespace ptxb
