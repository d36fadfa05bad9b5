// Cold rounds of several calls (timing/interleaved.hpp, calls_per_sample) and the input sets behind
// them (worker/timing_sets.hpp): each call of a round gets its own index and events, the sample is
// the calls' mean, a counter range brackets the whole block; every round redraws and poisons every
// candidate pool set, used or not, and the sets a round uses vary from round to round.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "device_copies.hpp"
#include "tasks/spec.hpp"
#include "timing/interleaved.hpp"
#include "timing/round_seeds.hpp"
#include "worker/problem.hpp"
#include "worker/timing_sets.hpp"

namespace ptxb {
namespace {

const std::filesystem::path kTasksRoot = std::filesystem::path(PTXB_SOURCE_DIR) / "tasks";

TEST(TimedBlocks, EachRoundMakesItsCallsInOrderAndAveragesThem) {
  Stream s;
  DeviceBuffer big(size_t{1} << 30);
  constexpr size_t kUnit = size_t{64} << 20;  // call k writes (k + 1) units
  std::vector<int> indices;
  int enters = 0;
  std::vector<int> leaves;  // the flushes each range held
  TimedCall blocked{
      "blocked", [&](cudaStream_t stream, int k) {
        indices.push_back(k);
        return static_cast<int>(cudaMemsetAsync(big.data(), k, (k + 1) * kUnit, stream));
      }};
  blocked.enter = [&] { ++enters; };
  blocked.leave = [&](int flushes) { leaves.push_back(flushes); };
  int single_calls = 0;
  const TimedCall single{"one unit", [&](cudaStream_t stream, int) {
                           ++single_calls;
                           return static_cast<int>(cudaMemsetAsync(big.data(), 9, kUnit, stream));
                         }};
  TimingOptions options;
  options.calls_per_sample = 4;
  options.warmup = 3;   // one round
  options.samples = 8;  // two rounds
  const TimingSamples out = time_interleaved({blocked, single}, options, s.get());
  ASSERT_EQ(out.failed_status, 0);
  ASSERT_EQ(out.us[0].size(), 2u);
  ASSERT_EQ(out.us[1].size(), 2u);
  EXPECT_EQ(indices, (std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}));
  EXPECT_EQ(enters, 3) << "one counter range per round and implementation";
  EXPECT_EQ(leaves, (std::vector<int>{0, 4, 4})) << "warm-ups unflushed, then a flush a call";
  EXPECT_EQ(single_calls, 12) << "every implementation makes the round's calls";
  // The blocked sample is the mean of 1, 2, 3 and 4 units: 2.5 units; the other's, 1 unit.
  for (int r = 0; r < 2; ++r) {
    const double ratio = out.us[0][r] / out.us[1][r];
    EXPECT_GT(ratio, 2.0) << "round " << r;
    EXPECT_LT(ratio, 3.0) << "round " << r;
  }
}

TEST(TimingSets, PoolSizes) {
  EXPECT_EQ(pool_size(1), 1) << "a range of one call counts it alone";
  EXPECT_EQ(pool_size(2), 4);
  EXPECT_EQ(pool_size(8), 10);
  EXPECT_EQ(pool_size(20), 25);
}

std::vector<uint8_t> first_bytes(const void* device) {
  return testing::to_host<uint8_t>(device, 64);
}

TEST(TimingSets, EveryPoolSetIsRedrawnAndPoisonedAndTheChoiceVaries) {
  const TaskSpec task =
      find_task(kTasksRoot, load_catalog(kTasksRoot / "catalog"), "sm90/gemm/bf16-wgmma-tma");
  const ShapeCase& sc = task.shapes[0];
  const DistributionSpec& dist = task.correctness.distributions[0];
  Stream s;
  std::string why;
  auto sets = TimingSets::allocate(
      task, sc.shape, 8, 1, dist, [](int round, int set) { return round_seeds(round, set); },
      s.get(), &why);
  ASSERT_TRUE(sets) << why;
  ASSERT_EQ(sets->calls(), 8);
  ASSERT_EQ(sets->pool(), pool_size(8));
  ASSERT_GT(sets->pool(), sets->calls());
  DeviceBuffer workspace(256);
  std::vector<std::vector<int>> choices;
  std::set<int> used;
  for (int round = 0; round < 30; ++round) {
    std::vector<std::vector<uint8_t>> inputs_before;
    for (int p = 0; p < sets->pool(); ++p) {
      const ptxb_args a = sets->pool_set(p).args(workspace.data(), workspace.bytes(), s.get());
      PTXB_CHECK_CUDA(cudaMemsetAsync(a.outputs[0], 0, 64, s.get()));
      inputs_before.push_back(first_bytes(a.inputs[0]));
    }
    sets->next_round(round, s.get());
    for (int p = 0; p < sets->pool(); ++p) {
      const ptxb_args a = sets->pool_set(p).args(workspace.data(), workspace.bytes(), s.get());
      EXPECT_NE(first_bytes(a.inputs[0]), inputs_before[p]) << "set " << p << " not redrawn";
      EXPECT_NE(first_bytes(a.outputs[0]), std::vector<uint8_t>(64, 0))
          << "set " << p << " not poisoned";
      EXPECT_EQ(sets->pool_set(p).modified_input_bytes(s.get()), 0) << "pristine copy kept";
    }
    std::vector<int> chosen;
    for (int k = 0; k < sets->calls(); ++k) {
      chosen.push_back(sets->chosen(k));
      EXPECT_EQ(&sets->candidate(k), &sets->pool_set(sets->chosen(k)));
    }
    EXPECT_EQ(std::set<int>(chosen.begin(), chosen.end()).size(), chosen.size())
        << "a set twice in one round";
    used.insert(chosen.begin(), chosen.end());
    choices.push_back(chosen);
  }
  EXPECT_EQ(used.size(), static_cast<size_t>(sets->pool())) << "every pool set gets used";
  std::set<std::vector<int>> distinct(choices.begin(), choices.end());
  EXPECT_GT(distinct.size(), 20u) << "the choice must vary from round to round";
}

}  // namespace
}  // namespace ptxb
