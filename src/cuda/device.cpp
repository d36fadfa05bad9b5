#include "cuda/device.hpp"

#include "cuda/cuda_check.hpp"

namespace ptxb {

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  if (bytes > 0) PTXB_CHECK_CUDA(cudaMalloc(&ptr_, bytes));
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != nullptr) cudaFree(ptr_);
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_ != nullptr) cudaFree(ptr_);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

Stream::Stream() { PTXB_CHECK_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
Stream::~Stream() { cudaStreamDestroy(stream_); }
void Stream::synchronize() const { PTXB_CHECK_CUDA(cudaStreamSynchronize(stream_)); }

Event::Event() { PTXB_CHECK_CUDA(cudaEventCreate(&event_)); }
Event::~Event() { cudaEventDestroy(event_); }
void Event::record(cudaStream_t stream) const { PTXB_CHECK_CUDA(cudaEventRecord(event_, stream)); }
float Event::elapsed_ms_since(const Event& start) const {
  float ms = 0;
  PTXB_CHECK_CUDA(cudaEventElapsedTime(&ms, start.event_, event_));
  return ms;
}

}  // namespace ptxb
