// Normal(0, 1) draws for the CPU reference tests: n values from `seed`, the same every run.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace ptxb {

inline std::vector<double> random_values(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> dist(0.0, 1.0);
  std::vector<double> out(static_cast<size_t>(n));
  for (double& x : out) x = dist(gen);
  return out;
}

}  // namespace ptxb
