// `ptxbench serve`: the judge as an HTTP/JSON service (docs/serve.md). Submissions become rows
// of the job store before they are acknowledged; executors take them oldest first and judge them
// through the same pipeline as `ptxbench eval` (llm/judge.hpp: the compile before a GPU is taken,
// then one exclusive sandboxed worker per GPU), so compiling one job overlaps judging another.
// Every request but the health check needs the API token (`Authorization: Bearer TOKEN`).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "eval/config.hpp"
#include "llm/judge.hpp"
#include "serve/http_server.hpp"
#include "serve/job_store.hpp"
#include "tasks/spec.hpp"

namespace ptxb::serve {

struct ServeConfig {
  std::string host = "127.0.0.1";
  int port = 8765;  ///< 0: any free port (Service::port() says which)
  std::filesystem::path database = "results/serve.db";
  std::string token;                         ///< required; empty refuses to start
  int64_t max_queued = 1000;                 ///< more waiting jobs: 429 with Retry-After
  size_t max_body_bytes = 1 << 20;           ///< a larger request: 413
  std::vector<int> gpus = {0};               ///< one exclusive worker each
  int compile_threads = 2;                   ///< executors beyond the GPUs: compiles run ahead
  std::chrono::milliseconds idle_poll{200};  ///< an idle executor looks for work this often
  /// The OpenRLHF reward route answers within this (samples not judged by then get 0).
  std::chrono::seconds reward_deadline{900};
  EvalConfig eval;
};

class Service {
 public:
  /// Opens the job store (requeueing what a stopped server left running) and loads every task.
  /// Throws InputError for a missing token or a bad task folder.
  explicit Service(ServeConfig config);
  ~Service();  ///< stop()
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  /// Starts the HTTP server and the executors.
  void start();
  /// Stops taking requests, lets every executor finish its job, joins everything.
  void stop();
  int port() const { return http_->port(); }
  /// Jobs requeued when this service opened the store.
  int requeued_at_start() const { return requeued_; }
  /// While paused, executors take no new job (jobs queue up; tests fill the queue this way).
  void pause_executors(bool paused);

  /// One request (what the HTTP server calls; public for tests).
  HttpResponse handle(const HttpRequest& request);

 private:
  HttpResponse submit(const HttpRequest& request);
  HttpResponse job_status(int64_t id, bool with_result);
  HttpResponse metrics();
  /// One sample of an OpenRLHF reward request on its way through the queue.
  struct RewardSample {
    std::string task;
    std::optional<std::string> code;  ///< nullopt: the answer holds no code
    std::optional<int64_t> job;       ///< queued or being judged
    int tries = 0;
    std::string outcome = "no_code";
    double reward = 0;
  };
  /// POST /v1/openrlhf/reward: OpenRLHF's remote reward protocol (docs/python.md).
  HttpResponse openrlhf_reward(const HttpRequest& request);
  /// Waits for every queued sample's verdict until `deadline`, judging an `unavailable` one once
  /// more; sets each outcome and reward (0 when not judged in time).
  void await_rewards(std::vector<RewardSample>& samples, const std::string& tier,
                     std::chrono::steady_clock::time_point deadline);
  /// Queues a job, waiting while the queue is full; nullopt when `deadline` passed first.
  std::optional<int64_t> submit_waiting(const std::string& task, const std::string& tier,
                                        const std::string& code,
                                        std::chrono::steady_clock::time_point deadline);
  bool authorized(const HttpRequest& request) const;
  void executor_loop();
  void judge_job(const Job& job);

  ServeConfig config_;
  std::map<std::string, TaskSpec> tasks_;
  JobStore store_;
  int requeued_ = 0;
  Judge judge_;
  std::unique_ptr<HttpServer> http_;
  std::vector<std::thread> executors_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> paused_{false};
  /// Every GPU of the judge was lost (llm/gpu_pool.hpp): executors claim no more jobs, and the
  /// health check says so.
  std::atomic<bool> all_gpus_lost_{false};
  std::mutex mutex_;
  std::condition_variable work_;
  double gpu_seconds_ = 0;             ///< time jobs held a GPU (under mutex_)
  std::map<int, double> busy_by_gpu_;  ///< the same per device (under mutex_)
  int64_t judged_ = 0;                 ///< jobs judged by this process (under mutex_)
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace ptxb::serve
