// `ptxbench serve [--port P] [--db FILE] [--token-file F] [--gpus 0,1]`: the judge as an HTTP/JSON
// service (docs/serve.md). Runs until SIGINT or SIGTERM; prints "serving on http://HOST:PORT".
#include <pthread.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "cli/cmd_common.hpp"
#include "cli/commands.hpp"
#include "serve/service.hpp"
#include "sys/files.hpp"

namespace ptxb::cli {

int run_serve(int argc, char** argv) {
  CLI::App app{"Judge submissions sent over HTTP: POST /v1/jobs, GET /v1/jobs/ID/result.",
               "ptxbench serve"};
  serve::ServeConfig config;
  std::string token_file, gpus = "0";
  int64_t max_body = static_cast<int64_t>(config.max_body_bytes);
  app.add_option("--host", config.host, "IPv4 address to listen on")->capture_default_str();
  app.add_option("--port", config.port, "port (0: any free one)")->capture_default_str();
  app.add_option("--db", config.database, "the job store (SQLite)")->capture_default_str();
  app.add_option("--token-file", token_file,
                 "file holding the API token (else $PTXBENCH_SERVE_TOKEN)");
  app.add_option("--max-queue", config.max_queued, "waiting jobs before 429")
      ->capture_default_str();
  app.add_option("--max-body-bytes", max_body, "largest request body")->capture_default_str();
  app.add_option("--gpus", gpus, "GPUs that judge, one worker each, e.g. 0,1")
      ->capture_default_str();
  app.add_option("--compile-threads", config.compile_threads,
                 "jobs compiled ahead while the GPUs judge")
      ->capture_default_str();
  if (const auto status = parse_flags(app, argc, argv)) return *status;

  if (!token_file.empty()) {
    config.token = read_file(token_file);
    while (!config.token.empty() && std::isspace(static_cast<unsigned char>(config.token.back())))
      config.token.pop_back();
  } else if (const char* env = std::getenv("PTXBENCH_SERVE_TOKEN")) {
    config.token = env;
  }
  config.max_body_bytes = static_cast<size_t>(std::max<int64_t>(1024, max_body));
  config.gpus = parse_gpu_list(gpus);
  config.eval = EvalConfig::from_environment();

  // Every thread the service starts inherits this mask: the signals reach sigwait below only.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  serve::Service service(config);
  service.start();
  std::cout << "serving on http://" << config.host << ":" << service.port() << " ("
            << service.requeued_at_start() << " interrupted jobs requeued)" << std::endl;
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  std::cout << "stopping (signal " << signal_number << "): finishing the jobs under way"
            << std::endl;
  service.stop();
  return kExitOk;
}

}  // namespace ptxb::cli
