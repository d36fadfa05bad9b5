// `ptxbench run` (generate and judge, with repair turns) and `ptxbench generate` (model answers
// only, judged later by `ptxbench evaluate`). A run is named; running a name again resumes it.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>

#include "cli/cmd_common.hpp"
#include "cli/commands.hpp"
#include "core/build_info.hpp"
#include "core/error.hpp"
#include "eval/config.hpp"
#include "llm/http_curl.hpp"
#include "llm/prompt.hpp"
#include "sys/home.hpp"
#include "tasks/task_identity.hpp"

namespace ptxb::cli {
namespace {

struct RunArgs {
  std::string model, endpoint, api_key_env = "OPENAI_API_KEY", replay, tasks, run_name, db;
  std::string extra_body;  ///< JSON object merged into every request body
  std::string ca_bundle;   ///< PEM authorities for HTTPS instead of the system's
  std::string shard;       ///< "I/N": this host's share of the sample chains
  std::string gpus = "0";
  int samples = 1, turns = 1, concurrency = 8;
  bool keep_optimizing = false, no_evidence = false;
  std::optional<double> temperature, top_p;
  std::optional<int64_t> max_tokens, seed;
  double deadline_s = 1800;
};

std::string utc_stamp() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", std::gmtime(&now));
  return buf;
}

void add_options(CLI::App& app, RunArgs& a, bool judging) {
  app.add_option("--model", a.model,
                 "model name at the endpoint, or 'reference' (expert solutions, offline) or "
                 "'replay' (answers of --replay FILE)")
      ->required();
  app.add_option("--endpoint", a.endpoint, "OpenAI-compatible base URL, e.g. http://host:8000/v1");
  app.add_option("--api-key-env", a.api_key_env, "environment variable holding the API key");
  app.add_option("--replay", a.replay,
                 "attempt export (JSONL) whose answers --model replay serves");
  app.add_option("--tasks", a.tasks, "comma-separated task ids or prefixes (default: all)");
  app.add_option("--samples", a.samples, "samples per task");
  app.add_option("--concurrency", a.concurrency, "samples (model calls) in flight at once");
  app.add_option("--run-name", a.run_name, "name of the run; an existing name is resumed");
  app.add_option("--shard", a.shard,
                 "I/N: only the sample chains whose index is I modulo N (one host of N; join "
                 "the stores with `ptxbench merge`)");
  app.add_option("--db", a.db, "results database (default $PTXBENCH_DB or results/ptxbench.db)");
  app.add_option("--temperature", a.temperature);
  app.add_option("--top-p", a.top_p);
  app.add_option("--max-tokens", a.max_tokens);
  app.add_option("--seed", a.seed);
  app.add_option("--extra-body", a.extra_body,
                 "JSON object merged into every request, e.g. "
                 "'{\"chat_template_kwargs\":{\"enable_thinking\":false}}' for vLLM");
  app.add_option("--ca-bundle", a.ca_bundle,
                 "PEM file of certificate authorities for an HTTPS endpoint (default: the "
                 "system's)")
      ->check(CLI::ExistingFile);
  app.add_option("--request-deadline-s", a.deadline_s, "limit of one model call, retries included");
  if (!judging) return;
  app.add_option("--turns", a.turns, "turns per sample (repair loop)");
  app.add_flag("--keep-optimizing", a.keep_optimizing, "keep asking after a success");
  app.add_option("--gpus", a.gpus, "GPUs that judge, one worker each, e.g. 0,1");
  app.add_flag("--no-evidence", a.no_evidence, "skip the runtime instruction evidence (ncu)");
}

/// The model the arguments name; `client` holds the endpoint client when one is made.
std::unique_ptr<Model> make_model(const RunArgs& a, std::unique_ptr<HttpTransport>& transport,
                                  std::unique_ptr<ChatClient>& client, SystemClock& clock) {
  if (a.model == "reference")
    return std::make_unique<ReferenceModel>(ptxbench_home() / "kernels" / "reference");
  if (a.model == "replay") {
    if (a.replay.empty()) throw InputError("--model replay needs --replay FILE (an export)");
    return std::make_unique<ReplayModel>(a.replay);
  }
  if (a.endpoint.empty())
    throw InputError("--model " + a.model + " needs --endpoint URL (or use --model reference)");
  ChatConfig config;
  config.base_url = a.endpoint;
  config.model = a.model;
  if (const char* key = std::getenv(a.api_key_env.c_str())) config.api_key = key;
  config.temperature = a.temperature;
  config.top_p = a.top_p;
  config.max_tokens = a.max_tokens;
  config.seed = a.seed;
  if (!a.extra_body.empty()) {
    config.extra_body = nlohmann::json::parse(a.extra_body, nullptr, /*allow_exceptions=*/false);
    if (config.extra_body.is_discarded())
      throw InputError("--extra-body: not valid JSON: " + a.extra_body);
  }
  config.deadline = std::chrono::milliseconds(static_cast<int64_t>(a.deadline_s * 1000));
  CurlOptions curl;
  curl.ca_file = a.ca_bundle;
  transport = std::make_unique<CurlTransport>(curl);
  client = std::make_unique<ChatClient>(config, *transport, clock);
  return std::make_unique<EndpointModel>(*client);
}

// "I/N" -> {I, N}; {0, 1} for "". InputError unless 0 <= I < N.
std::pair<int, int> parse_shard(const std::string& text) {
  if (text.empty()) return {0, 1};
  const size_t slash = text.find('/');
  try {
    if (slash != std::string::npos) {
      size_t used_i = 0, used_n = 0;
      const int i = std::stoi(text.substr(0, slash), &used_i);
      const int n = std::stoi(text.substr(slash + 1), &used_n);
      if (used_i == slash && used_n == text.size() - slash - 1 && i >= 0 && n >= 1 && i < n)
        return {i, n};
    }
  } catch (const std::exception&) {  // std::invalid_argument, std::out_of_range
  }
  throw InputError("--shard " + text + ": expected I/N with 0 <= I < N, e.g. 0/4");
}

nlohmann::json run_settings(const RunArgs& a, const ChatClient* client, bool judging) {
  nlohmann::json s = client ? client->config().to_json() : nlohmann::json::object();
  s["samples"] = a.samples;
  s["turns"] = a.turns;
  s["keep_optimizing"] = a.keep_optimizing;
  s["tasks"] = a.tasks.empty() ? "all" : a.tasks;
  s["judged"] = judging;
  if (!a.replay.empty()) s["replay"] = a.replay;
  return s;
}

int run_or_generate(int argc, char** argv, bool judging) {
  CLI::App app{judging ? "Ask a model for kernels, judge them, feed the verdicts back (repair)."
                       : "Ask a model for kernels and store the answers (judge them later with "
                         "`ptxbench evaluate`).",
               judging ? "ptxbench run" : "ptxbench generate"};
  RunArgs a;
  add_options(app, a, judging);
  if (const auto status = parse_flags(app, argc, argv)) return *status;
  const auto [shard, shards] = parse_shard(a.shard);
  const std::vector<TaskSpec> tasks = select_tasks(a.tasks);
  SystemClock clock;
  std::unique_ptr<HttpTransport> transport;
  std::unique_ptr<ChatClient> client;
  std::unique_ptr<Model> model = make_model(a, transport, client, clock);

  const std::filesystem::path db = store_path(a.db);
  ResultStore store(db);
  const std::string name = a.run_name.empty() ? model->name() + "-" + utc_stamp() : a.run_name;
  int64_t run_id = 0;
  const nlohmann::json hashes = task_hashes(tasks);
  if (const auto existing = store.find_run(name)) {
    if (existing->model != model->name())
      throw InputError("run '" + name + "' exists with model " + existing->model);
    // A run judges one definition of each task: resuming under another would pool them.
    const nlohmann::json before = existing->settings.value("task_hashes", nlohmann::json::object());
    for (const auto& [id, hash] : hashes.items())
      if (before.contains(id) && before[id] != hash)
        throw InputError("run '" + name + "' was started with another definition of task " + id +
                         " (hash " + short_task_hash(before[id].get<std::string>()) + ", now " +
                         short_task_hash(hash.get<std::string>()) + "): start a new run");
    run_id = existing->id;
    std::cerr << "resuming run '" << name << "'\n";
  } else {
    RunRecord run;
    run.name = name;
    run.model = model->name();
    run.endpoint = a.endpoint;
    run.prompt_version = kPromptVersion;
    run.ptxbench_version = std::string(PTXB_VERSION " (") + ptxbench_commit() + ")";
    run.settings = run_settings(a, client.get(), judging);
    run.settings["task_hashes"] = hashes;
    run.environment = host_environment();
    if (shards > 1) run.environment["shard"] = a.shard;  // this host's part of the run
    run_id = store.create_run(run);
  }

  std::unique_ptr<Judge> judge;
  if (judging) {
    EvalConfig config = EvalConfig::from_environment();
    config.run_evidence = !a.no_evidence;
    judge = std::make_unique<Judge>(config, parse_gpu_list(a.gpus));
  }
  RunLoopOptions options;
  options.samples = a.samples;
  options.turns = a.turns;
  options.keep_optimizing = a.keep_optimizing;
  options.concurrency = a.concurrency;
  options.shard = shard;
  options.shards = shards;
  int64_t chains = 0;
  // NOTE: samples below 1 count nothing here; run_loop refuses them with a clear error.
  for (size_t i = 0; i < tasks.size() * static_cast<size_t>(std::max(0, a.samples)); ++i)
    chains += in_shard(i, options) ? 1 : 0;
  ProgressPrinter progress(chains * a.turns);
  const int64_t generated =
      run_loop(*model, store, run_id, tasks, judge.get(), options, std::ref(progress));
  std::cout << "run '" << name << "': " << generated << " new attempts in " << db.string() << "\n";
  return kExitOk;
}

}  // namespace

int run_run(int argc, char** argv) { return run_or_generate(argc, argv, true); }
int run_generate(int argc, char** argv) { return run_or_generate(argc, argv, false); }

}  // namespace ptxb::cli
