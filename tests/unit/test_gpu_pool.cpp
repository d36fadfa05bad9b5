// The judge's GPUs (llm/gpu_pool.hpp): a device that judged with a GPU and then finds none is
// retired, one that never had a GPU is not, and once every device is retired acquire() throws
// GpuLost, waking callers already waiting; worker_had_gpu reads the verdict's worker record.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "llm/gpu_pool.hpp"
#include "llm/judge.hpp"

namespace ptxb {
namespace {

TEST(GpuPool, ADeviceWithoutAGpuFromTheStartIsNotLost) {
  GpuPool pool({0});
  for (int i = 0; i < 3; ++i) {
    const int device = pool.acquire();
    EXPECT_FALSE(pool.release(device, false, "no CUDA device")) << "a machine without a GPU";
  }
  EXPECT_TRUE(pool.lost().empty());
  EXPECT_FALSE(pool.release(pool.acquire(), std::nullopt)) << "nothing known";
}

TEST(GpuPool, ADeviceThatHadAGpuAndNowHasNoneIsRetired) {
  GpuPool pool({0, 1});
  const int a = pool.acquire(), b = pool.acquire();
  EXPECT_FALSE(pool.release(a, true));
  EXPECT_FALSE(pool.release(b, true));
  const int c = pool.acquire();
  EXPECT_TRUE(pool.release(c, false, "cudaErrorNoDevice"));
  EXPECT_EQ(pool.lost(), std::vector<int>{c});
  EXPECT_EQ(pool.lost_reasons(),
            std::vector<std::string>{"GPU " + std::to_string(c) + ": cudaErrorNoDevice"});
  for (int i = 0; i < 3; ++i) {  // only the other device is handed out from now on
    const int d = pool.acquire();
    EXPECT_NE(d, c);
    EXPECT_FALSE(pool.release(d, std::nullopt));
  }
}

TEST(GpuPool, WithEveryDeviceLostAcquireThrowsAlsoForWaiters) {
  GpuPool pool({3});
  const int device = pool.acquire();
  EXPECT_FALSE(pool.release(device, true));
  EXPECT_EQ(pool.acquire(), device);
  // Another caller waits for the busy device.
  std::future<int> waiter = std::async(std::launch::async, [&pool] { return pool.acquire(); });
  EXPECT_EQ(waiter.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  EXPECT_TRUE(pool.release(device, false, "no CUDA device"));
  ASSERT_EQ(waiter.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_THROW(waiter.get(), GpuLost);
  try {
    pool.acquire();
    ADD_FAILURE() << "acquire() returned with every device lost";
  } catch (const GpuLost& e) {
    EXPECT_NE(std::string(e.what()).find("every GPU of this judge was lost; GPU 3: no CUDA"),
              std::string::npos)
        << e.what();
  }
}

TEST(GpuPool, WorkerHadGpuReadsTheWorkerRecord) {
  Verdict v;
  EXPECT_EQ(worker_had_gpu(v), std::nullopt) << "no worker ran (a compile error)";
  v.record["environment"] = {{"gpu", "NVIDIA H200"}};
  EXPECT_EQ(worker_had_gpu(v), true);
  v.record = nlohmann::json::object();
  v.record["worker"]["no_gpu"] = {{"cause", "cuda"}, {"message", "cudaErrorNoDevice"}};
  EXPECT_EQ(worker_had_gpu(v), false);
  v.record["worker"]["no_gpu"]["cause"] = "arch";
  EXPECT_EQ(worker_had_gpu(v), std::nullopt) << "a GPU of another architecture is not lost";
}

}  // namespace
}  // namespace ptxb
