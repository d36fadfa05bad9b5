// Prints the cu_seqlens PTXBench draws for a varlen shape (shape_sequence_offsets: the lengths
// the task's timed and visible shapes get), space-separated, for varlen_balance_model.py.
// Build (repository root): g++ -std=c++20 -O1 -I src -I include
// bench/attention_dev/varlen_offsets.cpp
//   src/families/structured_values.cpp src/core/error.cpp src/core/shape.cpp -o varlen_offsets
// Usage: varlen_offsets B T S
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "families/structured_values.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s B T S\n", argv[0]);
    return 2;
  }
  const int64_t batch = std::atoll(argv[1]), total = std::atoll(argv[2]),
                max_len = std::atoll(argv[3]);
  if (!ptxb::sequence_offsets_fit(batch, total, max_len)) {
    std::fprintf(stderr, "varlen_offsets: B - 1 + S <= T <= B * S does not hold\n");
    return 2;
  }
  for (const int64_t offset : ptxb::shape_sequence_offsets(batch, total, max_len))
    std::printf("%lld ", static_cast<long long>(offset));
  std::printf("\n");
  return 0;
}
