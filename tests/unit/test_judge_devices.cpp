// The judge's GPU pool without GPUs (the path `run --gpus` and `serve --gpus` take on a machine
// with several): evaluations run concurrently, at most one per device at a time, every device
// used, each evaluation with its device and a sandbox user of its own. The real compiler,
// pipeline and worker run (the worker finds no GPU: `unavailable`); a wrapper script around the
// worker logs the device its job names and holds it 300 ms first, so evaluations overlap.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "llm/judge.hpp"
#include "sys/files.hpp"
#include "tasks/catalog.hpp"
#include "tasks/task_json.hpp"

namespace ptxb {
namespace {

namespace fs = std::filesystem;
const fs::path kRoot = PTXB_SOURCE_DIR;

constexpr uint32_t kBaseUid = 61950;  // a sandbox user no other test uses
constexpr int kDevices = 4;
constexpr int kJobs = 8;

struct Hold {
  int device = -1;
  long long start_ns = 0, end_ns = 0;
};

// The stand-in's log: "start DEVICE NS PID" and "end DEVICE NS PID" lines, paired by pid.
std::vector<Hold> read_holds(const fs::path& log) {
  std::map<long long, Hold> by_pid;
  std::ifstream in(log);
  std::string what;
  int device = 0;
  long long ns = 0, pid = 0;
  while (in >> what >> device >> ns >> pid) {
    Hold& h = by_pid[pid];
    h.device = device;
    (what == "start" ? h.start_ns : h.end_ns) = ns;
  }
  std::vector<Hold> out;
  for (const auto& [pid, h] : by_pid) out.push_back(h);
  return out;
}

TEST(JudgeDevices, OneEvaluationPerDeviceAtATimeAndEveryDeviceUsed) {
  TempDir dir("ptxbench-judge-devices");
  const fs::path log = dir.path() / "holds.txt";
  const fs::path worker = dir.path() / "logging-worker.sh";
  {
    std::ofstream script(worker);
    script << "#!/bin/sh\n"
           << "# argv: JOB.json, as the pipeline starts ptxbench-worker\n"
           << "device=$(sed -n 's/^  \"device\": *\\([0-9]*\\).*/\\1/p' \"$1\" | head -n 1)\n"
           << "echo \"start $device $(date +%s%N) $$\" >> '" << log.string() << "'\n"
           << "sleep 0.3\n"
           << "'" << (fs::path(PTXB_BINARY_DIR) / "ptxbench-worker").string() << "' \"$@\"\n"
           << "status=$?\n"
           << "echo \"end $device $(date +%s%N) $$\" >> '" << log.string() << "'\n"
           << "exit $status\n";
  }
  ASSERT_EQ(::chmod(worker.c_str(), 0755), 0);
  EvalConfig config = EvalConfig::from_environment();
  config.worker = worker;
  config.compile.cache_dir = dir.path() / "cache";
  config.worker_deadline = std::chrono::seconds(60);
  config.sandbox = false;  // the wrapper writes its log as this user
  config.device = 0;
  config.sandbox_uid = kBaseUid;
  std::vector<int> devices;
  for (int d = 0; d < kDevices; ++d) devices.push_back(d);
  Judge judge(config, devices);
  const fs::path catalog_root = kRoot / "tasks";
  const TaskSpec task =
      find_task(catalog_root, load_catalog(catalog_root / "catalog"), "sm90/gemm/bf16-wgmma");
  AttemptRecord attempt;
  attempt.code = read_file(kRoot / "kernels/reference/sm90_gemm_bf16_wgmma.cu");
  // One evaluation first fills the compile cache; the concurrent ones then start together.
  attempt.id = 1;
  ASSERT_EQ(judge.judge(task, attempt).outcome, "unavailable") << "no GPU here";
  std::vector<EvaluationRecord> records(kJobs);
  std::vector<std::thread> threads;
  for (int i = 0; i < kJobs; ++i)
    threads.emplace_back([&, i] {
      AttemptRecord a = attempt;
      a.id = 2 + i;
      records[static_cast<size_t>(i)] = judge.judge(task, a);
    });
  for (std::thread& t : threads) t.join();

  for (const EvaluationRecord& r : records) {
    EXPECT_EQ(r.outcome, "unavailable") << "no GPU here";
    const int device = r.verdict["config"]["device"].get<int>();
    EXPECT_GE(device, 0);
    EXPECT_LT(device, kDevices);
    EXPECT_EQ(r.verdict["config"]["sandbox_uid"].get<uint32_t>(), kBaseUid + device)
        << "a sandbox user per device";
  }
  std::vector<Hold> holds = read_holds(log);
  ASSERT_EQ(holds.size(), static_cast<size_t>(kJobs + 1));
  std::set<int> used;
  std::map<int, std::vector<Hold>> by_device;
  for (const Hold& h : holds) {
    ASSERT_GT(h.end_ns, h.start_ns);
    used.insert(h.device);
    by_device[h.device].push_back(h);
  }
  EXPECT_EQ(used.size(), static_cast<size_t>(kDevices)) << "every device judged";
  for (auto& [device, list] : by_device) {
    std::sort(list.begin(), list.end(),
              [](const Hold& a, const Hold& b) { return a.start_ns < b.start_ns; });
    for (size_t k = 1; k < list.size(); ++k)
      EXPECT_GE(list[k].start_ns, list[k - 1].end_ns) << "two evaluations at once on " << device;
  }
  // Concurrency across devices: the largest number of holds open at one instant.
  int most = 0;
  for (const Hold& h : holds) {
    const int open = static_cast<int>(std::count_if(holds.begin(), holds.end(), [&](const Hold& o) {
      return o.start_ns <= h.start_ns && h.start_ns < o.end_ns;
    }));
    most = std::max(most, open);
  }
  EXPECT_GE(most, 2) << "the devices judged side by side";
}

}  // namespace
}  // namespace ptxb
