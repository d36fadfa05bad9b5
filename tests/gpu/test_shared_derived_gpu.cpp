// Input sets that share derived inputs (worker/sustained.cpp): a set generated from another gets
// the other's derived inputs (attention backward: O, LSE) and their sources (Q, K, V) byte for
// byte, its own free input (dO), and pristine copies of all of them.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "tasks/spec.hpp"
#include "worker/problem.hpp"

namespace ptxb {
namespace {

const std::filesystem::path kTasksRoot = std::filesystem::path(PTXB_SOURCE_DIR) / "tasks";

std::vector<char> bytes_of(const void* device, size_t bytes) {
  PTXB_CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<char> out(bytes);
  PTXB_CHECK_CUDA(cudaMemcpy(out.data(), device, bytes, cudaMemcpyDeviceToHost));
  return out;
}

TEST(SharedDerivedInputs, CopiesDerivedAndSourcesDrawsTheFreeInput) {
  const TaskSpec task =
      find_task(kTasksRoot, load_catalog(kTasksRoot / "catalog"), "sm90/attention/bwd-bf16");
  const ShapeCase& sc = task.shapes[0];  // the small visible shape (B 1, S 256)
  const DistributionSpec& dist = task.correctness.distributions[0];
  Stream s;
  DeviceProblem first(task, sc.shape), second(task, sc.shape);
  first.generate_inputs(dist, 11, s.get());
  ASSERT_TRUE(first.has_derived_inputs());
  second.generate_inputs_sharing_derived(first, dist, 12, s.get());

  // bf16 tensors, LSE fp32 (docs/attention.md)
  for (const std::string name : {"Q", "K", "V", "O", "LSE", "dO"}) {
    const size_t bytes = size_t(first.input_elements(name)) * (name == "LSE" ? 4 : 2);
    const auto a = bytes_of(first.pristine(name), bytes);
    const auto b = bytes_of(second.pristine(name), bytes);
    EXPECT_EQ(bytes_of(second.input(name), bytes), b) << name << ": pristine copy kept";
    if (name == "dO")
      EXPECT_NE(a, b) << "the free input is drawn with the set's own seed";
    else
      EXPECT_EQ(a, b) << name << " is shared";
  }
  EXPECT_EQ(second.modified_input_bytes(s.get()), 0);
}

}  // namespace
}  // namespace ptxb
