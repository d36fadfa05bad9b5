#include <atomic>

#include "cuda/cuda_check.hpp"
#include "timing/launch_gate.hpp"

namespace ptxb {
namespace {

// NOTE: the loop only loads, compares and sleeps; the deadline is added once before it on every
// launch (the empty asm keeps the compiler from moving the add after the first load), and expiry is
// a system-scope atomic. No FMA-pipe instruction runs per iteration (a difference of clocks
// inside the loop compiles to IMAD.X or VIADD), so what the gate adds to the counters compared
// call by call is the same on every launch, and CallCounters::check subtracts it with the flush.
__global__ void hold_kernel(const volatile uint32_t* released, uint32_t generation,
                            uint32_t* expired) {
  long long deadline = clock64() + LaunchGate::kHoldLimitCycles;
  asm volatile("" : "+l"(deadline));  // NOTE: the add happens on every launch, before the loop
  // NOTE: released >= generation: the host may enqueue and release later holds before this one
  // has run (a round of many short calls), and a later release opens it too. A plain compare (no
  // subtraction, which compiles to VIADD in the loop); generations never wrap (2^32 holds of one
  // gate would take hours).
  while (*released < generation) {
    if (clock64() > deadline) {
      atomicAdd_system(expired, 1u);
      return;
    }
    __nanosleep(128);
  }
}

}  // namespace

LaunchGate::LaunchGate() {
  void* host = nullptr;
  PTXB_CHECK_CUDA(cudaHostAlloc(&host, 2 * sizeof(uint32_t), cudaHostAllocMapped));
  words_ = static_cast<uint32_t*>(host);
  words_[0] = words_[1] = 0;
  void* device = nullptr;
  PTXB_CHECK_CUDA(cudaHostGetDevicePointer(&device, host, 0));
  device_words_ = static_cast<uint32_t*>(device);
}

LaunchGate::~LaunchGate() {
  if (words_ == nullptr) return;
  release();                      // a hold still enqueued must not wait for its limit
  (void)cudaDeviceSynchronize();  // no hold may read the words once they are freed
  (void)cudaFreeHost(words_);
}

void LaunchGate::hold(cudaStream_t stream) {
  hold_kernel<<<1, 1, 0, stream>>>(device_words_, ++generation_, device_words_ + 1);
  PTXB_CHECK_CUDA(cudaGetLastError());
}

void LaunchGate::release() {
  std::atomic_thread_fence(std::memory_order_release);
  *static_cast<volatile uint32_t*>(words_) = generation_;
}

int LaunchGate::expired() const {
  return static_cast<int>(*static_cast<volatile const uint32_t*>(words_ + 1));
}

}  // namespace ptxb
