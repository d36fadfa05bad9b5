// What the profiler-cost probes (ncu_profile_cost.cu, sass_metrics_probe.cu) launch and how they
// time it: kernels of one FFMA per loop iteration per thread (plus the loop's own instructions),
// two distinct functions with the same work, and host seconds since the process started
// (probe_clock.hpp).
#pragma once

#include "probe_clock.hpp"

__global__ void chain_a(float* p, int n) {
  float a = p[threadIdx.x];
  for (int i = 0; i < n; ++i) a = a * 1.0001f + 0.5f;
  p[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

__global__ void chain_b(float* p, int n) {
  float a = p[threadIdx.x];
  for (int i = 0; i < n; ++i) a = a * 0.9999f + 0.25f;
  p[blockIdx.x * blockDim.x + threadIdx.x] = a;
}
