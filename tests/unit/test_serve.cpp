// The judging service against the real server on 127.0.0.1 (docs/serve.md): raw HTTP exchanges
// over a socket, the real job store (SQLite), the real pipeline (nvcc and the worker, which finds
// no GPU here). Round trip through the static stage, idempotency, auth, size limits, 429 under a
// full queue, and a restart that resumes the queue and the job a stopped server left running.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "serve/http_server.hpp"
#include "serve/job_store.hpp"
#include "serve/reward.hpp"
#include "serve/service.hpp"
#include "sys/files.hpp"

namespace ptxb::serve {
namespace {

using nlohmann::json;

struct Reply {
  int status = 0;
  std::string head;  ///< status line and headers
  std::string body;
};

// Sends `raw` to 127.0.0.1:port and reads until the server closes the connection.
Reply http_exchange(int port, const std::string& raw) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  size_t sent = 0;
  while (sent < raw.size()) {
    const ssize_t n = ::send(fd, raw.data() + sent, raw.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may answer (413) and close before reading everything
    sent += static_cast<size_t>(n);
  }
  std::string all;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
    all.append(buf, static_cast<size_t>(n));
  ::close(fd);
  Reply r;
  const size_t split = all.find("\r\n\r\n");
  r.head = all.substr(0, split);
  r.body = split == std::string::npos ? "" : all.substr(split + 4);
  if (all.rfind("HTTP/1.1 ", 0) == 0) r.status = std::stoi(all.substr(9, 3));
  return r;
}

std::string request(const std::string& method, const std::string& path, const std::string& token,
                    const std::string& body = "") {
  std::string r = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  if (!token.empty()) r += "Authorization: Bearer " + token + "\r\n";
  if (method == "POST") r += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  return r + "\r\n" + body;
}

TEST(HttpServer, LimitsAndMalformedRequestsGetPreciseStatuses) {
  HttpLimits limits;
  limits.max_body_bytes = 1024;
  limits.handler_threads = 2;
  HttpServer server("127.0.0.1", 0, limits, [](const HttpRequest& r) {
    HttpResponse out;
    out.body = json{{"method", r.method}, {"path", r.path}, {"body", r.body}}.dump();
    return out;
  });
  server.start();
  const int port = server.port();

  Reply ok = http_exchange(port, request("POST", "/echo?x=1", "", "hello"));
  EXPECT_EQ(ok.status, 200) << ok.head;
  EXPECT_EQ(json::parse(ok.body)["body"], "hello");
  EXPECT_EQ(json::parse(ok.body)["path"], "/echo");
  EXPECT_NE(ok.head.find("Connection: close"), std::string::npos);

  EXPECT_EQ(http_exchange(port, request("POST", "/echo", "", std::string(5000, 'x'))).status, 413);
  EXPECT_EQ(http_exchange(port, "NONSENSE\r\n\r\n").status, 400);
  EXPECT_EQ(http_exchange(port, "POST /echo HTTP/1.1\r\nHost: a\r\n\r\n").status, 411);
  EXPECT_EQ(
      http_exchange(port, "POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
          .status,
      501);
  EXPECT_EQ(http_exchange(port, "GET /echo HTTP/1.1\r\nBroken header line\r\n\r\n").status, 400);
  EXPECT_EQ(http_exchange(port, "GET /" + std::string(20000, 'a') + " HTTP/1.1\r\n\r\n").status,
            431);
  server.stop();
}

TEST(HttpServer, AClientTricklingItsHeadersIsDroppedAtTheRequestDeadline) {
  HttpLimits limits;
  limits.read_timeout = std::chrono::milliseconds(200);
  limits.request_deadline = std::chrono::milliseconds(400);
  limits.handler_threads = 1;
  HttpServer server("127.0.0.1", 0, limits, [](const HttpRequest&) { return HttpResponse{}; });
  server.start();
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(server.port()));
  ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  const auto start = std::chrono::steady_clock::now();
  bool closed = false;
  // One header byte every 100 ms: each read is in time, the request as a whole is not.
  for (int i = 0; i < 40 && !closed; ++i) {
    if (::send(fd, i == 0 ? "GET / HTTP/1.1\r\nX: " : "a", i == 0 ? 21 : 1, MSG_NOSIGNAL) <= 0)
      closed = true;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) > 0) {
      char c;
      closed = ::recv(fd, &c, 1, 0) <= 0;
    }
  }
  ::close(fd);
  EXPECT_TRUE(closed);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  server.stop();
}

class ServeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::make_unique<TempDir>("ptxbench-serve-test");
    config_.port = 0;
    config_.database = dir_->path() / "jobs.db";
    config_.token = "s3cret-token";
    config_.compile_threads = 1;
    config_.idle_poll = std::chrono::milliseconds(50);
    config_.eval = EvalConfig::from_environment();
    config_.eval.worker = std::filesystem::path(PTXB_BINARY_DIR) / "ptxbench-worker";
    config_.eval.compile.cache_dir = dir_->path() / "cache";
    config_.eval.worker_deadline = std::chrono::seconds(60);
    // A sandbox user of its own: the service's start-up sweep kills every process of its users,
    // and other tests (run in parallel) sandbox their workers as the default one.
    config_.eval.sandbox_uid = 61900;
  }

  json submit(Service& s, const json& body, int expect_status) {
    const Reply r =
        http_exchange(s.port(), request("POST", "/v1/jobs", config_.token, body.dump()));
    EXPECT_EQ(r.status, expect_status) << r.body;
    return r.body.empty() ? json() : json::parse(r.body);
  }

  // Polls the job's result until it is done (200) or `seconds` pass.
  json result(Service& s, int64_t id, int seconds = 180) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < until) {
      const Reply r = http_exchange(
          s.port(), request("GET", "/v1/jobs/" + std::to_string(id) + "/result", config_.token));
      if (r.status == 200) return json::parse(r.body);
      EXPECT_EQ(r.status, 202) << r.body;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    ADD_FAILURE() << "job " << id << " not judged within " << seconds << " s";
    return json();
  }

  static json job(const std::string& code, const std::string& key = "") {
    json j = {{"task", "sm90/gemm/bf16-wgmma"}, {"code", code}};
    if (!key.empty()) j["idempotency_key"] = key;
    return j;
  }

  std::unique_ptr<TempDir> dir_;
  ServeConfig config_;
};

const std::string kBroken = "this is not CUDA C++ @@@\n";

TEST_F(ServeTest, RoundTripThroughTheStaticStageWithIdempotencyAndFeedback) {
  Service s(config_);
  s.start();
  const int port = s.port();
  EXPECT_EQ(http_exchange(port, request("GET", "/v1/health", "")).status, 200);
  EXPECT_EQ(http_exchange(port, request("GET", "/v1/metrics", "")).status, 401);
  EXPECT_EQ(http_exchange(port, request("GET", "/v1/metrics", "wrong-token")).status, 401);
  EXPECT_EQ(http_exchange(port, request("GET", "/v1/nothing", config_.token)).status, 404);
  EXPECT_EQ(http_exchange(port, request("GET", "/v1/jobs/999", config_.token)).status, 404);
  submit(s, json::array({1, 2}), 400);
  EXPECT_EQ(http_exchange(port, request("POST", "/v1/jobs", config_.token, "{not json")).status,
            400);
  submit(s, {{"task", "sm90/no-such-task"}, {"code", "x"}}, 400);
  submit(s, {{"task", "sm90/gemm/bf16-wgmma"}, {"code", "x"}, {"tier", "turbo"}}, 400);

  const json first = submit(s, job(kBroken, "key-1"), 202);
  const json again = submit(s, job(kBroken, "key-1"), 200);
  EXPECT_EQ(again["id"], first["id"]);
  EXPECT_TRUE(again["existed"].get<bool>());
  submit(s, job(kBroken + "// other\n", "key-1"), 409);

  const json done = result(s, first["id"].get<int64_t>());
  EXPECT_EQ(done["state"], "done");
  EXPECT_EQ(done["verdict"]["outcome"], "compile_error") << done.dump();
  EXPECT_EQ(done["verdict"]["tier"], "full");
  EXPECT_NE(done["feedback"].get<std::string>().find("compile"), std::string::npos);
  EXPECT_EQ(done["attempts"], 1);

  json quick_job = job(kBroken + "// quick\n");
  quick_job["tier"] = "quick";
  const json quick = result(s, submit(s, quick_job, 202)["id"].get<int64_t>());
  EXPECT_EQ(quick["tier"], "quick");
  EXPECT_EQ(quick["verdict"]["tier"], "quick");

  const json m =
      json::parse(http_exchange(port, request("GET", "/v1/metrics", config_.token)).body);
  EXPECT_EQ(m["done"], 2);
  EXPECT_EQ(m["queued"], 0);
  EXPECT_TRUE(m["gpu_busy_seconds_by_device"].is_object());
  s.stop();
}

TEST_F(ServeTest, AFullQueueIs429WithRetryAfterAndOversizedBodiesAre413) {
  config_.max_queued = 2;
  config_.max_body_bytes = 4096;
  Service s(config_);
  s.pause_executors(true);
  s.start();
  submit(s, job(kBroken + "// 1\n"), 202);
  submit(s, job(kBroken + "// 2\n"), 202);
  const Reply full = http_exchange(
      s.port(), request("POST", "/v1/jobs", config_.token, job(kBroken + "// 3\n").dump()));
  EXPECT_EQ(full.status, 429) << full.body;
  EXPECT_NE(full.head.find("Retry-After: "), std::string::npos) << full.head;
  const Reply big = http_exchange(
      s.port(), request("POST", "/v1/jobs", config_.token, job(std::string(8000, 'x')).dump()));
  EXPECT_EQ(big.status, 413) << big.body;
  s.stop();
}

TEST_F(ServeTest, ARestartResumesTheQueueAndJudgesAnInterruptedJobOnce) {
  int64_t interrupted = 0, waiting = 0;
  {
    Service s(config_);
    s.pause_executors(true);
    s.start();
    interrupted = submit(s, job(kBroken + "// a\n"), 202)["id"].get<int64_t>();
    waiting = submit(s, job(kBroken + "// b\n"), 202)["id"].get<int64_t>();
    s.stop();
  }
  {
    // What a server killed while judging leaves behind: a claimed job, never finished.
    JobStore store(config_.database);
    const std::optional<Job> claimed = store.claim_next();
    ASSERT_TRUE(claimed.has_value());
    EXPECT_EQ(claimed->id, interrupted);
  }
  Service s(config_);
  EXPECT_EQ(s.requeued_at_start(), 1);
  s.start();
  const json a = result(s, interrupted), b = result(s, waiting);
  EXPECT_EQ(a["verdict"]["outcome"], "compile_error");
  EXPECT_EQ(b["verdict"]["outcome"], "compile_error");
  EXPECT_EQ(a["attempts"], 2) << "claimed once before the restart, once after";
  EXPECT_EQ(b["attempts"], 1);
  const json m =
      json::parse(http_exchange(s.port(), request("GET", "/v1/metrics", config_.token)).body);
  EXPECT_EQ(m["done"], 2);
  EXPECT_EQ(m["running"], 0);
  s.stop();
}

// The pids of the processes whose parent is `pid`.
std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const size_t close = line.rfind(')');  // the command name may hold spaces
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == pid) out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

// The command line of `pid`, arguments joined by spaces ("" when gone).
std::string command_line(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/cmdline");
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  for (char& c : all)
    if (c == '\0') c = ' ';
  return all;
}

// Gone, or a zombie nobody has reaped yet.
bool dead(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  return line[line.rfind(')') + 2] == 'Z';
}

// `ptxbench serve` as a process of its own, on a free port, with this test's database and cache.
struct ServerProcess {
  pid_t pid = -1;
  int port = 0;
  ServerProcess(const ServeConfig& c, const std::filesystem::path& cache) {
    int out[2];
    EXPECT_EQ(::pipe(out), 0);
    pid = ::fork();
    if (pid == 0) {
      ::dup2(out[1], 1);
      ::setenv("PTXBENCH_SERVE_TOKEN", c.token.c_str(), 1);
      ::setenv("PTXBENCH_CACHE_DIR", cache.c_str(), 1);
      ::setenv("PTXBENCH_SANDBOX_UID", std::to_string(c.eval.sandbox_uid).c_str(), 1);
      const std::string exe = std::string(PTXB_BINARY_DIR) + "/ptxbench";
      ::execl(exe.c_str(), exe.c_str(), "serve", "--port", "0", "--db", c.database.c_str(),
              "--compile-threads", "0", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(out[1]);
    std::string line;
    char ch = 0;
    while (::read(out[0], &ch, 1) == 1 && ch != '\n') line += ch;
    ::close(out[0]);
    const size_t colon = line.rfind(':', line.find(" ("));
    EXPECT_NE(colon, std::string::npos) << "first line: " << line;
    if (colon != std::string::npos) port = std::stoi(line.substr(colon + 1));
  }
  void kill_and_wait() {
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
  }
  void stop() {
    ::kill(pid, SIGTERM);
    int status = 0;
    ::waitpid(pid, &status, 0);
  }
};

TEST_F(ServeTest, SigkillMidJobThenRestartJudgesEveryJobOnceAndLeavesNoOrphan) {
  const std::filesystem::path cache = dir_->path() / "cache-process";
  std::vector<int64_t> ids;
  pid_t compiler = -1;
  {
    ServerProcess server(config_, cache);
    ASSERT_GT(server.port, 0);
    auto post = [&](const json& body) {
      const Reply r =
          http_exchange(server.port, request("POST", "/v1/jobs", config_.token, body.dump()));
      EXPECT_EQ(r.status, 202) << r.body;
      ids.push_back(json::parse(r.body)["id"].get<int64_t>());
    };
    // A real expert first (its compile takes seconds), then three that fail to compile.
    post({{"task", "sm90/gemm/bf16-wgmma"},
          {"code", read_file(std::string(PTXB_SOURCE_DIR) +
                             "/kernels/reference/sm90_gemm_bf16_wgmma.cu")}});
    for (const char* tag : {"// x\n", "// y\n", "// z\n"}) post(job(kBroken + tag));
    // Kill the server while it compiles the first job (its compiler a child of the server).
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (compiler < 0 && std::chrono::steady_clock::now() < until) {
      for (const pid_t child : children_of(server.pid)) {
        const std::string cmd = command_line(child);
        if (cmd.find("nvcc") != std::string::npos && cmd.find(".cu") != std::string::npos)
          compiler = child;  // the compile itself, not a version probe
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_GT(compiler, 0) << "the server never started a compile";
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ASSERT_FALSE(dead(compiler)) << "the compile ended before the server could be killed";
    server.kill_and_wait();
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (!dead(compiler) && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(dead(compiler)) << "process " << compiler << " outlived the killed server";

  ServerProcess server(config_, cache);
  ASSERT_GT(server.port, 0);
  for (const int64_t id : ids) {
    json done;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
    while (std::chrono::steady_clock::now() < deadline) {
      const Reply r = http_exchange(
          server.port, request("GET", "/v1/jobs/" + std::to_string(id) + "/result", config_.token));
      if (r.status == 200) {
        done = json::parse(r.body);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    ASSERT_EQ(done.value("state", ""), "done") << "job " << id;
    EXPECT_EQ(done["attempts"], id == ids.front() ? 2 : 1) << "job " << id;
  }
  const json m =
      json::parse(http_exchange(server.port, request("GET", "/v1/metrics", config_.token)).body);
  EXPECT_EQ(m["done"], 4);
  server.stop();
}

TEST_F(ServeTest, OpenRlhfRewardRouteJudgesEachSampleOfItsTask) {
  Service s(config_);
  s.start();
  const std::string path = "/v1/openrlhf/reward";
  const json body = {
      {"query", {"Write it.\n```cuda\n" + kBroken + "```\n", "Write it.\nI cannot."}},
      {"prompts", {"Write it.\n", "Write it.\n"}},
      {"labels", {"sm90/gemm/bf16-wgmma", "sm90/gemm/bf16-wgmma"}}};
  // OpenRLHF sends no Authorization header: the token rides in the URL.
  EXPECT_EQ(http_exchange(s.port(), request("POST", path, "", body.dump())).status, 401);
  EXPECT_EQ(http_exchange(s.port(), request("POST", path + "?token=wrong", "", body.dump())).status,
            401);
  const Reply r =
      http_exchange(s.port(), request("POST", path + "?token=" + config_.token, "", body.dump()));
  ASSERT_EQ(r.status, 200) << r.body;
  const json out = json::parse(r.body);
  EXPECT_EQ(out["rewards"], json({0.0, 0.0}));
  EXPECT_EQ(out["scores"], out["rewards"]);
  EXPECT_EQ(out["extra_logs"]["outcomes"], json({"compile_error", "no_code"}));
  json bad = body;
  bad["labels"] = {"sm90/gemm/bf16-wgmma"};
  EXPECT_EQ(
      http_exchange(s.port(), request("POST", path + "?token=" + config_.token, "", bad.dump()))
          .status,
      400);
  s.stop();
}

TEST(ServeReward, TheSameTableAsThePythonPackage) {
  auto with = [](const char* outcome, std::vector<double> speedups = {}) {
    json v = {{"outcome", outcome}, {"timing", json::array()}};
    for (double x : speedups) v["timing"].push_back({{"speedup", {{"median", x}}}});
    return v;
  };
  EXPECT_EQ(reward_of(with("rejected_cheat", {5.0})), -1.0);
  EXPECT_EQ(reward_of(with("compile_error")), 0.0);
  EXPECT_EQ(reward_of(with("crashed")), 0.0);
  EXPECT_EQ(reward_of(with("incorrect")), 0.1);
  EXPECT_EQ(reward_of(with("low_instruction_share")), 0.3);
  EXPECT_EQ(reward_of(with("passed")), 0.5);
  EXPECT_NEAR(*reward_of(with("passed", {0.5, 2.0})), 0.75, 1e-12);
  EXPECT_EQ(reward_of(with("passed", {4.0, 4.0})), 1.0);
  EXPECT_FALSE(reward_of(with("unavailable")).has_value());
}

TEST(JobStore, IdempotencyConflictsAndQueueLimit) {
  TempDir dir("ptxbench-jobstore-test");
  JobStore store(dir.path() / "jobs.db");
  const auto a = std::get<JobStore::Submitted>(store.submit("k", "t", "full", "src", 10));
  const auto same = std::get<JobStore::Submitted>(store.submit("k", "t", "full", "src", 10));
  EXPECT_EQ(same.id, a.id);
  EXPECT_TRUE(same.existed);
  EXPECT_EQ(std::get<JobStore::Refusal>(store.submit("k", "t", "full", "other", 10)),
            JobStore::Refusal::kKeyConflict);
  store.submit("", "t", "full", "src2", 10);
  EXPECT_EQ(std::get<JobStore::Refusal>(store.submit("", "t", "full", "src3", 2)),
            JobStore::Refusal::kQueueFull);
  const std::optional<Job> first = store.claim_next();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->id, a.id);
  EXPECT_EQ(first->state, "running");
  store.finish(first->id, R"({"outcome":"passed"})");
  EXPECT_EQ(store.get(a.id)->state, "done");
  EXPECT_EQ(store.get(a.id)->verdict, R"({"outcome":"passed"})");
  const JobStore::Counts c = store.counts();
  EXPECT_EQ(c.queued, 1);
  EXPECT_EQ(c.done, 1);
  EXPECT_EQ(c.done_last_hour, 1);
}

TEST(JobStore, ARequeuedJobIsClaimedAgainAndADoneOneStaysDone) {
  TempDir dir("ptxbench-jobstore-test");
  JobStore store(dir.path() / "jobs.db");
  store.submit("", "t", "full", "src", 10);
  const std::optional<Job> first = store.claim_next();
  ASSERT_TRUE(first.has_value());
  store.requeue(first->id);  // the judge lost its GPUs before judging it
  EXPECT_EQ(store.get(first->id)->state, "queued");
  const std::optional<Job> again = store.claim_next();
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->id, first->id);
  store.finish(again->id, R"({"outcome":"passed"})");
  store.requeue(again->id);
  EXPECT_EQ(store.get(again->id)->state, "done") << "only a running job goes back";
}

}  // namespace
}  // namespace ptxb::serve
