// How many thread-block clusters of 1, 2, 4 and 8 CTAs can be resident at once on this GPU for a
// CTA of the TMA GEMM expert's size (384 threads, one CTA per SM by its shared memory)? A
// persistent grid larger than that runs its last clusters as a second wave (the 2-CTA cluster
// variants of bench/gemm_dev/variants.sh size their grid by SM count / 2).
// Build: nvcc -std=c++20 -arch=sm_90a -o cluster_occupancy_probe
// bench/probes/cluster_occupancy_probe.cu Usage: cluster_occupancy_probe   prints one line per
// (shared-memory size, cluster size)
#include <cstdio>

#include <cuda_runtime.h>

namespace {

// Stands in for the GEMM kernel: only its launch resources matter to the occupancy query.
__global__ void __launch_bounds__(384, 1) resident(int* sink) {
  extern __shared__ char smem[];
  if (sink != nullptr) sink[threadIdx.x] = smem[threadIdx.x];
}

}  // namespace

int main() {
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaFuncSetAttribute(resident, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  std::printf("sms %d\n", sms);
  // 4 stages of (128 + 256) x 64 bf16 (the expert), 3 stages plus two 32 KB staging tiles, and a
  // quarter of the SM (several CTAs per SM).
  for (const int smem : {4 * 49152 + 1024 + 128, 3 * 49152 + 65536 + 1024 + 128, 56 * 1024}) {
    if (cudaFuncSetAttribute(resident, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) !=
        cudaSuccess) {
      std::printf("smem %d: cannot be set\n", smem);
      continue;
    }
    for (const int cluster : {1, 2, 4, 8}) {
      cudaLaunchAttribute attr = {};
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim = {static_cast<unsigned>(cluster), 1, 1};
      cudaLaunchConfig_t config = {};
      config.gridDim = dim3(cluster * 1024);
      config.blockDim = dim3(384);
      config.dynamicSmemBytes = smem;
      config.attrs = &attr;
      config.numAttrs = 1;
      int clusters = -1;
      const cudaError_t status = cudaOccupancyMaxActiveClusters(&clusters, resident, &config);
      std::printf("smem %d cluster %d max_active_clusters %d ctas %d (%s)\n", smem, cluster,
                  clusters, clusters * cluster, cudaGetErrorString(status));
    }
  }
  return 0;
}
