// Can CUPTI's SASS metrics API (cupti_sass_metrics.h) give the evidence stage's per-instruction
// counts inside the timing process, without Nsight Compute, and at what cost? Lists the chip's
// SASS metrics, then collects smsp__sass_inst_executed and smsp__sass_thread_inst_executed_pred_on
// (per instruction, GPU granularity) around single kernels (the first patched kernel, later
// launches of it, an 8 ms kernel, a new function), first with collection left on and flushed
// after each launch, then with an enable/disable range per launch (patching lazily, then every
// function at enable, then with the configuration set anew per range). Prints host seconds per
// launch, the records (function, PC offset, counts) of the first, and what that kernel must
// execute. `sass_metrics_probe once [eager]`: a fresh process, launches of a, b and a flushed
// once. `sass_metrics_probe ctx`: CUPTI's own sample's order (a context of its own, created by
// cuCtxCreate before the configuration is set), then a, b, a and a new function c, each flushed.
// `module`: chain_a, then a kernel of a second module (PTX loaded by cuModuleLoadData), each
// flushed: is "the first patched function" per module? `ctx2`: two contexts of our own, chain_a
// collected on the first, chain_b on the second: per context?
// Build and run: bench/probes/sass_metrics_probe.sh OUT [CUPTI_DIR...]. With driver 580 and the
// toolkit's CUPTI 13.0 only the first collection returned records, and only of the first patched
// function; with CUPTI 13.2.86 and 13.5.25 every mode returned every function's
// (docs/timing.md, "Judging time"; bench/results/2026-12-07h-session/call1). Setting the
// configuration a second time fails with all three, so that test runs last.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>
#include <cupti_version.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "chain_kernels.cuh"
#include "sass_metrics_common.hpp"

__global__ void chain_c(float* p, int n) {  // launched only late: the reconfigured ranges, `ctx`
  float a = p[threadIdx.x];
  for (int i = 0; i < n; ++i) a = a * 0.9998f + 0.125f;
  p[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

namespace {

// A second module's kernel: `ptx_loop(float* p, unsigned n)`, one FFMA a loop step per thread.
constexpr const char* kLoopPtx = R"(
.version 8.0
.target sm_90a
.address_size 64
.visible .entry ptx_loop(.param .u64 p, .param .u32 n) {
  .reg .b32 %r<4>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<4>;
  .reg .pred %q;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd2, %rd2, %rd3;
  ld.global.f32 %f1, [%rd2];
  mov.u32 %r3, 0;
LOOP:
  fma.rn.f32 %f1, %f1, 0f3F7FF972, 0f3E800000;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %q, %r3, %r1;
  @%q bra LOOP;
  st.global.f32 [%rd2], %f1;
  ret;
}
)";

SassMetricIds g_ids;  // set with the configuration

// Flushes the collected records of `ctx`.
std::vector<Record> flush(CUcontext ctx) { return flush_records(ctx, g_ids); }

bool g_lazy = true;  // enable(): patch a function at its first launch, else every function at once

// Enables collection on `ctx`, or disables it.
void enable(CUcontext ctx) {
  CUpti_SassMetricsEnable_Params en{CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
  en.ctx = ctx;
  en.enableLazyPatching = g_lazy ? 1 : 0;
  CUPTI_OK(cuptiSassMetricsEnable(&en));
}
size_t disable(CUcontext ctx) {
  CUpti_SassMetricsDisable_Params dis{CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
  dis.ctx = ctx;
  CUPTI_OK(cuptiSassMetricsDisable(&dis));
  return dis.numOfDroppedRecords;
}

// Host seconds of `launch` (collection on) and its records, flushed after it. With
// `own_range`, collection is enabled before and disabled after (else it stays on throughout).
template <typename Launch>
std::vector<Record> collected(const char* what, CUcontext ctx, bool own_range, Launch launch) {
  cudaDeviceSynchronize();
  const double begin = seconds();
  if (own_range) enable(ctx);
  launch();
  cudaDeviceSynchronize();
  const double ran = seconds() - begin;
  std::vector<Record> records = flush(ctx);
  const size_t dropped = own_range ? disable(ctx) : 0;
  uint64_t executed = 0, threads = 0;
  for (const Record& r : records) executed += r.executed, threads += r.threads;
  std::fprintf(stderr,
               "%-26s %.3f s (run %.3f)  records %zu  inst_executed %llu  thread_inst_pred_on "
               "%llu  dropped %zu\n",
               what, seconds() - begin, ran, records.size(), (unsigned long long)executed,
               (unsigned long long)threads, dropped);
  std::map<std::string, uint64_t> per_function;  // warp instructions per function
  for (const Record& r : records) per_function[r.function] += r.executed;
  for (const auto& [name, n] : per_function)
    std::fprintf(stderr, "  %s: inst_executed %llu\n", name.c_str(), (unsigned long long)n);
  return records;
}

}  // namespace

int main(int argc, char** argv) {
  float* p = nullptr;
  if (cudaMalloc(&p, size_t(132) * 1024 * 4 * 64) != cudaSuccess) return 1;
  cudaMemset(p, 0, size_t(132) * 1024 * 4 * 64);
  CUcontext ctx = nullptr;
  cuCtxGetCurrent(&ctx);
  std::fprintf(stderr, "init %.3f\n", seconds());

  const char* chip = profiler_chip();
  std::fprintf(stderr, "chip %s\n", chip);
  uint32_t api_version = 0;
  CUPTI_OK(cuptiGetVersion(&api_version));
  std::fprintf(stderr, "CUPTI API version %u\n", api_version);
  CUpti_SassMetrics_GetNumOfMetrics_Params num{
      CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE};
  num.pChipName = chip;
  CUPTI_OK(cuptiSassMetricsGetNumOfMetrics(&num));
  std::vector<CUpti_SassMetrics_MetricDetails> list(num.numOfMetrics);
  CUpti_SassMetrics_GetMetrics_Params get{CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE};
  get.pChipName = chip;
  get.numOfMetrics = num.numOfMetrics;
  get.pMetricsList = list.data();
  CUPTI_OK(cuptiSassMetricsGetMetrics(&get));
  for (const auto& m : list) std::printf("metric %s: %s\n", m.pMetricName, m.pMetricDescription);

  // `ctx`: collect on a context of our own, created before the configuration as CUPTI's sample
  // does, instead of the runtime's primary context.
  const bool own_context =
      argc > 1 && (std::strcmp(argv[1], "ctx") == 0 || std::strcmp(argv[1], "ctx2") == 0);
  if (own_context) {
    CUdevice device = 0;
    if (cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
        cuCtxCreate(&ctx, nullptr, 0, device) != CUDA_SUCCESS)
      return 1;
    if (cudaMalloc(&p, size_t(132) * 1024 * 4 * 64) != cudaSuccess) return 1;
    cudaMemset(p, 0, size_t(132) * 1024 * 4 * 64);
  }

  std::vector<CUpti_SassMetrics_Config> configs = sass_metric_configs(chip, &g_ids);
  CUpti_SassMetricsSetConfig_Params set{CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
  set.numOfMetricConfig = configs.size();
  set.pConfigs = configs.data();
  set.deviceIndex = 0;
  CUPTI_OK(cuptiSassMetricsSetConfig(&set));
  std::fprintf(stderr, "configured %.3f\n", seconds());

  constexpr int kBig = 132 * 64, kLoop = 100000, kSmallLoop = 1000;
  if (argc > 1 && std::strcmp(argv[1], "ctx2") == 0) {
    enable(ctx);
    collected("ctx2: chain_a on the first", ctx, false,
              [&] { chain_a<<<132, 256>>>(p, kSmallLoop); });
    CUdevice device = 0;
    CUcontext second = nullptr;
    if (cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
        cuCtxCreate(&second, nullptr, 0, device) != CUDA_SUCCESS)
      return 1;
    float* q = nullptr;
    if (cudaMalloc(&q, size_t(132) * 1024 * 4) != cudaSuccess) return 1;
    cudaMemset(q, 0, size_t(132) * 1024 * 4);
    enable(second);
    collected("ctx2: chain_b on the second", second, false,
              [&] { chain_b<<<132, 256>>>(q, kSmallLoop); });
    std::fprintf(stderr, "ctx2: expected FFMA of each launch %lld\n", 132LL * 8 * kSmallLoop);
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "module") == 0) {
    CUmodule module = nullptr;
    CUfunction loop = nullptr;
    if (cuModuleLoadData(&module, kLoopPtx) != CUDA_SUCCESS ||
        cuModuleGetFunction(&loop, module, "ptx_loop") != CUDA_SUCCESS)
      return 1;
    enable(ctx);
    collected("module: chain_a", ctx, false, [&] { chain_a<<<132, 256>>>(p, kSmallLoop); });
    collected("module: ptx_loop (second module)", ctx, false, [&] {
      unsigned n = kSmallLoop;
      void* args[] = {&p, &n};
      cuLaunchKernel(loop, 132, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr);
    });
    std::fprintf(stderr, "module: expected FFMA of each launch %lld\n", 132LL * 8 * kSmallLoop);
    return 0;
  }
  if (own_context) {
    enable(ctx);
    collected("ctx: chain_a small #1", ctx, false, [&] { chain_a<<<132, 256>>>(p, kSmallLoop); });
    collected("ctx: chain_b small #1", ctx, false, [&] { chain_b<<<132, 256>>>(p, kSmallLoop); });
    collected("ctx: chain_a small #2", ctx, false, [&] { chain_a<<<132, 256>>>(p, kSmallLoop); });
    collected("ctx: chain_c small #1", ctx, false, [&] { chain_c<<<132, 256>>>(p, kSmallLoop); });
    std::fprintf(stderr, "ctx: expected FFMA of each launch %lld\n", 132LL * 8 * kSmallLoop);
    std::fprintf(stderr, "disable: dropped %zu\n", disable(ctx));
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "once") == 0) {
    // Several launches, one flush at the end: per-function totals over all of them? With a
    // second argument "eager", every function is patched at enable.
    g_lazy = !(argc > 2 && std::strcmp(argv[2], "eager") == 0);
    enable(ctx);
    collected("once: a, b, a (one flush)", ctx, false, [&] {
      chain_a<<<132, 256>>>(p, kSmallLoop);
      chain_b<<<132, 256>>>(p, kSmallLoop);
      chain_a<<<132, 256>>>(p, kSmallLoop);
    });
    std::fprintf(stderr, "once: expected FFMA of chain_a %lld, of chain_b %lld\n",
                 2LL * 132 * 8 * kSmallLoop, 132LL * 8 * kSmallLoop);
    std::fprintf(stderr, "disable: dropped %zu\n", disable(ctx));
    return 0;
  }
  // Collection left on across launches, flushed after each.
  enable(ctx);
  const auto small =
      collected("on: chain_a small #1", ctx, false, [&] { chain_a<<<132, 256>>>(p, kSmallLoop); });
  collected("on: chain_a small #2", ctx, false, [&] { chain_a<<<132, 256>>>(p, kSmallLoop); });
  collected("on: chain_a big #1", ctx, false, [&] { chain_a<<<kBig, 256>>>(p, kLoop); });
  collected("on: chain_a big #2", ctx, false, [&] { chain_a<<<kBig, 256>>>(p, kLoop); });
  collected("on: chain_b big #1", ctx, false, [&] { chain_b<<<kBig, 256>>>(p, kLoop); });
  collected("on: 2 launches, 2 kernels", ctx, false, [&] {
    chain_a<<<132, 256>>>(p, kSmallLoop);
    chain_b<<<132, 256>>>(p, kSmallLoop);
  });
  std::fprintf(stderr, "disable: dropped %zu\n", disable(ctx));
  // A range of its own per launch (enable, launch, flush, disable).
  collected("range: chain_a small", ctx, true, [&] { chain_a<<<132, 256>>>(p, kSmallLoop); });
  collected("range: chain_b big", ctx, true, [&] { chain_b<<<kBig, 256>>>(p, kLoop); });
  // Ranges that patch every function at enable (not lazily).
  g_lazy = false;
  collected("eager: chain_a small", ctx, true, [&] { chain_a<<<132, 256>>>(p, kSmallLoop); });
  collected("eager: chain_b small", ctx, true, [&] { chain_b<<<132, 256>>>(p, kSmallLoop); });
  g_lazy = true;
  double begin = seconds();
  chain_a<<<kBig, 256>>>(p, kLoop);
  cudaDeviceSynchronize();
  std::fprintf(stderr, "chain_a big, not collected %.3f s\n", seconds() - begin);
  for (const Record& r : small)
    std::printf("record %s +0x%04x executed %llu threads %llu\n", r.function.c_str(), r.pc,
                (unsigned long long)r.executed, (unsigned long long)r.threads);
  std::printf("expected FFMA executions of chain_a small: %d warps x %d = %lld\n", 132 * 8,
              kSmallLoop, 132LL * 8 * kSmallLoop);
  // The configuration unset and set again before each range (last: with every CUPTI tried so
  // far the second configuration fails, CUPTI_ERROR_OUT_OF_MEMORY, and the probe exits).
  struct Reconfigured {
    const char* what;
    void (*kernel)(float*, int);
  };
  for (const Reconfigured& r : {Reconfigured{"reconfig: chain_a small", chain_a},
                                Reconfigured{"reconfig: chain_c small (new)", chain_c}}) {
    CUpti_SassMetricsUnsetConfig_Params again{CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE};
    again.deviceIndex = 0;
    CUPTI_OK(cuptiSassMetricsUnsetConfig(&again));
    CUPTI_OK(cuptiSassMetricsSetConfig(&set));
    collected(r.what, ctx, true, [&] { r.kernel<<<132, 256>>>(p, kSmallLoop); });
  }
  CUpti_SassMetricsUnsetConfig_Params unset{CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE};
  unset.deviceIndex = 0;
  CUPTI_OK(cuptiSassMetricsUnsetConfig(&unset));
  std::fprintf(stderr, "total %.3f\n", seconds());
  return 0;
}
