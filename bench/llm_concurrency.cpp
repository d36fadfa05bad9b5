// ptxbench-llm-concurrency: the client-side cost of concurrent model requests (issue 6: 64
// concurrent requests must cost less than one core). Starts the scripted local server
// (tests/llm/fake_openai_server.py, python3 on PATH) answering every request after DELAY_S with an
// answer of RESPONSE_BYTES, sends REQUESTS requests of a 20 KB prompt at once through the real
// stack (BoundedPool -> ChatClient -> CurlTransport) and reports this process's CPU time
// (getrusage: user + system, all threads) against the wall time.
// Usage: ptxbench-llm-concurrency [REQUESTS=64] [DELAY_S=1.0] [RESPONSE_BYTES=20000] > result.json
#include <curl/curl.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "../tests/llm/fake_server.hpp"
#include "llm/bounded_pool.hpp"
#include "llm/chat_client.hpp"
#include "llm/http_curl.hpp"

namespace {

using nlohmann::json;

struct CpuTimes {
  double user_s = 0;
  double system_s = 0;
};

CpuTimes cpu_times() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](timeval t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; };
  return {seconds(usage.ru_utime), seconds(usage.ru_stime)};
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(p * double(values.size() - 1) + 0.5)];
}

json host_json() {
  utsname u{};
  ::uname(&u);
  return {{"kernel", std::string(u.sysname) + " " + u.release},
          {"cpus", std::thread::hardware_concurrency()},
          {"libcurl", curl_version_info(CURLVERSION_NOW)->version},
          {"load_average_1m", [] {
             double load[1] = {0};
             return ::getloadavg(load, 1) == 1 ? load[0] : -1.0;
           }()}};
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const int requests = argc > 1 ? std::atoi(argv[1]) : 64;
    const double delay_s = argc > 2 ? std::atof(argv[2]) : 1.0;
    const size_t response_bytes = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 20'000;
    if (requests < 1 || delay_s < 0) {
      std::cerr << "usage: ptxbench-llm-concurrency [REQUESTS] [DELAY_S] [RESPONSE_BYTES]\n";
      return 2;
    }
    const std::string content =
        "```cuda\n" + std::string(response_bytes, 'x') + "\n```\n";  // the answer's size matters
    ptxb::testing::FakeOpenAiServer server(
        json{{"default", {{"delay_s", delay_s}, {"content", content}}}});

    ptxb::CurlTransport transport;
    ptxb::SystemClock clock;
    ptxb::ChatConfig config;
    config.base_url = server.base_url();
    config.model = "bench";
    config.attempt_timeout = std::chrono::milliseconds(60'000);
    ptxb::ChatClient client(config, transport, clock);
    ptxb::BoundedPool pool(static_cast<size_t>(requests));
    const std::vector<ptxb::ChatMessage> prompt = {
        {ptxb::ChatRole::kSystem, "You write CUDA."},
        {ptxb::ChatRole::kUser, std::string(20'000, 'p')}};

    const CpuTimes before = cpu_times();
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::future<ptxb::ChatResult>> futures;
    for (int i = 0; i < requests; ++i)
      futures.push_back(pool.submit([&] { return client.complete(prompt); }));
    int ok = 0, retries = 0;
    std::vector<double> latencies;
    std::string first_error;
    for (auto& f : futures) {
      const ptxb::ChatResult r = f.get();
      ok += r.ok();
      retries += r.retries;
      if (r.ok()) latencies.push_back(r.latency_s);
      if (!r.ok() && first_error.empty()) first_error = r.error;
    }
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const CpuTimes after = cpu_times();
    const double cpu_s = (after.user_s - before.user_s) + (after.system_s - before.system_s);

    const json out = {
        {"what", "client CPU of concurrent chat-completion requests (issue 6: < 1 core)"},
        {"requests", requests},
        {"server_delay_s", delay_s},
        {"prompt_bytes", 20'000},
        {"response_content_bytes", content.size()},
        {"ok", ok},
        {"retries", retries},
        {"first_error", first_error},
        {"wall_s", wall_s},
        {"cpu_user_s", after.user_s - before.user_s},
        {"cpu_system_s", after.system_s - before.system_s},
        {"cpu_s", cpu_s},
        {"cores_busy", cpu_s / wall_s},
        {"cpu_ms_per_request", 1000.0 * cpu_s / requests},
        {"latency_s",
         {{"median", percentile(latencies, 0.5)}, {"max", percentile(latencies, 1.0)}}},
        {"below_one_core", cpu_s < wall_s},
        {"host", host_json()}};
    std::cout << out.dump(2) << "\n";
    return ok == requests && cpu_s < wall_s ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "ptxbench-llm-concurrency: error: " << e.what() << "\n";
    return 2;
  }
}
