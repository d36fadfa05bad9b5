#include "serve/service.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <nlohmann/json.hpp>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

#include "core/error.hpp"
#include "eval/tier.hpp"
#include "llm/code_extract.hpp"
#include "llm/feedback.hpp"
#include "serve/reward.hpp"
#include "store/records.hpp"
#include "sys/sandbox.hpp"
#include "tasks/catalog.hpp"

namespace ptxb::serve {
namespace {

using nlohmann::json;

HttpResponse reply(int status, const json& body) {
  HttpResponse r;
  r.status = status;
  r.body = body.dump();
  return r;
}

// Compares without an early exit, so that the time taken does not tell how much of a guess was
// right.
bool same_secret(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  return diff == 0;
}

// The request's body as a JSON object into `body`; else the 400 that says why.
std::optional<HttpResponse> parse_object(const HttpRequest& request, json& body) {
  try {
    body = json::parse(request.body);
  } catch (const json::parse_error& e) {
    return error_response(400, std::string("the body is not JSON: ") + e.what());
  }
  if (!body.is_object()) return error_response(400, "the body must be a JSON object");
  return std::nullopt;
}

// "/v1/jobs/17" -> 17, "/v1/jobs/17/result" -> 17 with `result`; -1 when not a job path.
int64_t job_id_of(const std::string& path, bool* result) {
  const std::string prefix = "/v1/jobs/";
  if (path.rfind(prefix, 0) != 0) return -1;
  std::string rest = path.substr(prefix.size());
  *result = false;
  if (const size_t slash = rest.find('/'); slash != std::string::npos) {
    if (rest.substr(slash) != "/result") return -1;
    *result = true;
    rest.resize(slash);
  }
  if (rest.empty() || rest.size() > 18 || rest.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stoll(rest);
}

}  // namespace

Service::Service(ServeConfig config)
    : config_(std::move(config)),
      store_(config_.database),
      judge_(config_.eval, config_.gpus.empty() ? std::vector<int>{0} : config_.gpus) {
  if (config_.token.empty())
    throw InputError("serve: an API token is required (--token-file or PTXBENCH_SERVE_TOKEN)");
  const Catalog catalog = load_catalog(config_.eval.tasks_root / "catalog");
  for (TaskSpec& t : load_all_tasks(config_.eval.tasks_root, catalog)) {
    const std::string id = t.id;
    tasks_.emplace(id, std::move(t));
  }
  // Start-up sweep: whatever sandboxed worker a killed server left behind dies before any job
  // runs (the same uid per GPU as llm/judge.cpp gives its workers).
  if (config_.eval.sandbox)
    for (const int device : config_.gpus)
      kill_all_processes_of(config_.eval.sandbox_uid - static_cast<uint32_t>(config_.eval.device) +
                            static_cast<uint32_t>(device));
  requeued_ = store_.requeue_interrupted();
  HttpLimits limits;
  limits.max_body_bytes = config_.max_body_bytes;
  http_ = std::make_unique<HttpServer>(config_.host, config_.port, limits,
                                       [this](const HttpRequest& r) { return handle(r); });
}

Service::~Service() { stop(); }

void Service::start() {
  stopping_ = false;
  http_->start();
  const size_t executors = std::max<size_t>(1, config_.gpus.size()) +
                           static_cast<size_t>(std::max(0, config_.compile_threads));
  for (size_t i = 0; i < executors; ++i) executors_.emplace_back([this] { executor_loop(); });
}

void Service::stop() {
  if (http_) http_->stop();
  stopping_ = true;
  work_.notify_all();
  for (std::thread& t : executors_)
    if (t.joinable()) t.join();
  executors_.clear();
}

void Service::pause_executors(bool paused) {
  paused_ = paused;
  work_.notify_all();
}

bool Service::authorized(const HttpRequest& request) const {
  const std::string given = request.header("authorization");
  const std::string bearer = "Bearer ";
  return given.rfind(bearer, 0) == 0 && same_secret(given.substr(bearer.size()), config_.token);
}

HttpResponse Service::handle(const HttpRequest& request) {
  if (request.path == "/v1/health") {
    if (request.method != "GET") return error_response(405, "GET only");
    const std::vector<std::string> lost = judge_.lost_gpus();
    json health = {{"ok", !all_gpus_lost_},
                   {"gpus", config_.gpus},
                   {"gpus_lost", lost},
                   {"tasks", tasks_.size()}};
    if (all_gpus_lost_) health["error"] = "every GPU of this server was lost; restart it";
    return reply(all_gpus_lost_ ? 503 : 200, health);
  }
  if (request.path == "/v1/openrlhf/reward") {
    // OpenRLHF posts without headers of its own: the token may ride in the URL here only.
    const auto token = request.query.find("token");
    if (!authorized(request) &&
        (token == request.query.end() || !same_secret(token->second, config_.token)))
      return error_response(401,
                            "missing or wrong API token (?token=TOKEN or Authorization: Bearer)");
    if (request.method != "POST") return error_response(405, "POST only");
    return openrlhf_reward(request);
  }
  if (!authorized(request))
    return error_response(401, "missing or wrong API token (Authorization: Bearer TOKEN)");
  if (request.path == "/v1/jobs") {
    if (request.method != "POST") return error_response(405, "POST a job to /v1/jobs");
    return submit(request);
  }
  if (request.path == "/v1/metrics") {
    if (request.method != "GET") return error_response(405, "GET only");
    return metrics();
  }
  bool result = false;
  const int64_t id = job_id_of(request.path, &result);
  if (id < 0) return error_response(404, "no such endpoint: " + request.path);
  if (request.method != "GET") return error_response(405, "GET only");
  return job_status(id, result);
}

HttpResponse Service::submit(const HttpRequest& request) {
  json body;
  if (auto refused = parse_object(request, body)) return *refused;
  auto text_field = [&](const char* name, bool required) -> std::optional<std::string> {
    if (!body.contains(name)) return required ? std::nullopt : std::optional<std::string>("");
    if (!body[name].is_string()) return std::nullopt;
    return body[name].get<std::string>();
  };
  const auto task = text_field("task", true), code = text_field("code", true);
  const auto tier = text_field("tier", false), key = text_field("idempotency_key", false);
  if (!task || !code)
    return error_response(400, "fields \"task\" and \"code\" (strings) are required");
  if (!tier || !key) return error_response(400, "\"tier\" and \"idempotency_key\" must be strings");
  if (!tasks_.count(*task))
    return error_response(400, "unknown task: " + *task + " (GET /v1/health)");
  const std::string chosen_tier = tier->empty() ? "full" : *tier;
  if (!tier_from_name(chosen_tier))
    return error_response(400, "tier \"" + chosen_tier + "\" is unknown: \"full\" or \"quick\"");
  if (code->empty()) return error_response(400, "\"code\" is empty");
  if (key->size() > 200) return error_response(400, "\"idempotency_key\" longer than 200 bytes");

  const auto submitted = store_.submit(*key, *task, chosen_tier, *code, config_.max_queued);
  if (const auto* refusal = std::get_if<JobStore::Refusal>(&submitted)) {
    if (*refusal == JobStore::Refusal::kKeyConflict)
      return error_response(409, "idempotency key already used for another task, tier or code");
    const JobStore::Counts c = store_.counts();
    double mean = 60.0;
    {
      std::lock_guard lock(mutex_);
      if (judged_ > 0) mean = gpu_seconds_ / static_cast<double>(judged_);
    }
    const double wait = static_cast<double>(c.queued) * mean /
                        static_cast<double>(std::max<size_t>(1, config_.gpus.size()));
    HttpResponse r =
        error_response(429, "the queue is full (" + std::to_string(c.queued) + " jobs)");
    r.headers.emplace_back("Retry-After", std::to_string(std::max(1L, std::lround(wait))));
    return r;
  }
  const auto& s = std::get<JobStore::Submitted>(submitted);
  work_.notify_one();
  return reply(s.existed ? 200 : 202, {{"id", s.id},
                                       {"existed", s.existed},
                                       {"tier", chosen_tier},
                                       {"status", "/v1/jobs/" + std::to_string(s.id)},
                                       {"result", "/v1/jobs/" + std::to_string(s.id) + "/result"}});
}

HttpResponse Service::job_status(int64_t id, bool with_result) {
  const std::optional<Job> job = store_.get(id);
  if (!job) return error_response(404, "no job " + std::to_string(id));
  json out = {{"id", job->id},
              {"task", job->task},
              {"tier", job->tier},
              {"state", job->state},
              {"submitted", job->submitted},
              {"started", job->started},
              {"finished", job->finished},
              {"attempts", job->attempts}};
  if (!with_result) return reply(200, out);
  if (job->state != "done" && all_gpus_lost_) {
    // It will not be judged by this server: a poller learns it now, not at its timeout.
    out["error"] = "every GPU of this server was lost; the job waits in the queue for a restart";
    return reply(503, out);
  }
  if (job->state != "done") return reply(202, out);
  const json verdict = json::parse(job->verdict);
  out["verdict"] = verdict;
  if (const auto it = tasks_.find(job->task); it != tasks_.end())
    out["feedback"] = render_feedback(it->second, verdict);  // what a model may be shown
  return reply(200, out);
}

HttpResponse Service::metrics() {
  const JobStore::Counts c = store_.counts();
  std::lock_guard lock(mutex_);
  const double up =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  json by_device = json::object();
  for (const auto& [device, seconds] : busy_by_gpu_) by_device[std::to_string(device)] = seconds;
  return reply(200, {{"queued", c.queued},
                     {"running", c.running},
                     {"done", c.done},
                     {"done_last_hour", c.done_last_hour},
                     {"judged_by_this_process", judged_},
                     {"gpu_busy_seconds", gpu_seconds_},
                     {"gpu_busy_seconds_by_device", by_device},
                     {"uptime_seconds", up},
                     {"gpus", config_.gpus},
                     {"gpus_lost", judge_.lost_gpus()}});
}

std::optional<int64_t> Service::submit_waiting(const std::string& task, const std::string& tier,
                                               const std::string& code,
                                               std::chrono::steady_clock::time_point deadline) {
  while (std::chrono::steady_clock::now() < deadline) {
    const auto submitted = store_.submit("", task, tier, code, config_.max_queued);
    if (const auto* s = std::get_if<JobStore::Submitted>(&submitted)) {
      work_.notify_one();
      return s->id;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // queue full
  }
  return std::nullopt;
}

HttpResponse Service::openrlhf_reward(const HttpRequest& request) {
  json body;
  if (auto refused = parse_object(request, body)) return *refused;
  auto strings = [&](const char* name) -> std::optional<std::vector<std::string>> {
    if (!body.contains(name) || !body[name].is_array()) return std::nullopt;
    std::vector<std::string> out;
    for (const json& v : body[name]) {
      if (!v.is_string()) return std::nullopt;
      out.push_back(v.get<std::string>());
    }
    return out;
  };
  const auto queries = strings("query"), labels = strings("labels");
  const auto prompts = strings("prompts");
  if (!queries || !labels || labels->size() != queries->size())
    return error_response(
        400,
        "'query' and 'labels' (the task id of each sample) must be arrays of strings of "
        "one length");
  if (prompts && prompts->size() != queries->size())
    return error_response(400, "'prompts' must have one entry per query");
  const auto tier_it = request.query.find("tier");
  const std::string tier = tier_it == request.query.end() ? "quick" : tier_it->second;
  if (!tier_from_name(tier)) return error_response(400, "tier must be 'full' or 'quick'");
  for (const std::string& task : *labels)
    if (!tasks_.count(task)) return error_response(400, "unknown task in labels: " + task);
  // Zero rewards for samples nobody can judge would read as failures to the trainer.
  const auto no_gpus = [this] {
    return error_response(503, "every GPU of this server was lost (GET /v1/health); restart it");
  };
  if (all_gpus_lost_) return no_gpus();

  const auto deadline = std::chrono::steady_clock::now() + config_.reward_deadline;
  std::vector<RewardSample> samples(queries->size());
  for (size_t i = 0; i < samples.size(); ++i) {
    RewardSample& sample = samples[i];
    sample.task = (*labels)[i];
    std::string_view answer = (*queries)[i];
    if (prompts && answer.substr(0, (*prompts)[i].size()) == (*prompts)[i])
      answer.remove_prefix((*prompts)[i].size());  // the response alone
    sample.code = extract_code(answer);
    if (!sample.code) continue;
    sample.job = submit_waiting(sample.task, tier, *sample.code, deadline);
    sample.tries = 1;
    if (!sample.job) sample.outcome = "not_judged_in_time";  // never got into the queue
  }
  await_rewards(samples, tier, deadline);
  if (all_gpus_lost_) return no_gpus();
  json rewards = json::array(), outcomes = json::array();
  int unavailable = 0, late = 0;
  for (const RewardSample& sample : samples) {
    rewards.push_back(sample.reward);
    outcomes.push_back(sample.outcome);
    unavailable += sample.outcome == "unavailable" ? 1 : 0;
    late += sample.outcome == "not_judged_in_time" ? 1 : 0;
  }
  return reply(
      200,
      {{"rewards", rewards},
       {"scores", rewards},
       {"extra_logs",
        {{"outcomes", outcomes}, {"unavailable", unavailable}, {"not_judged_in_time", late}}}});
}

void Service::await_rewards(std::vector<RewardSample>& samples, const std::string& tier,
                            std::chrono::steady_clock::time_point deadline) {
  for (bool pending = true; pending;) {
    pending = false;
    for (RewardSample& sample : samples) {
      if (!sample.job) continue;
      const std::optional<Job> job = store_.get(*sample.job);
      if (!job || job->state != "done") {
        pending = true;
        continue;
      }
      const json verdict = json::parse(job->verdict);
      const std::optional<double> reward = reward_of(verdict);
      if (!reward && sample.tries == 1) {  // PTXBench could not judge: once more
        sample.job = submit_waiting(sample.task, tier, *sample.code, deadline);
        sample.tries = 2;
        if (sample.job) {
          pending = true;
          continue;
        }
      }
      sample.outcome = verdict.value("outcome", "unavailable");
      sample.reward = reward.value_or(0.0);
      sample.job.reset();
    }
    if (pending && all_gpus_lost_) return;  // the caller answers 503
    if (pending && std::chrono::steady_clock::now() >= deadline) {
      for (RewardSample& sample : samples)
        if (sample.job) sample.outcome = "not_judged_in_time", sample.job.reset();
      return;
    }
    if (pending) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void Service::executor_loop() {
  while (!stopping_) {
    std::optional<Job> job;
    if (!paused_ && !all_gpus_lost_) job = store_.claim_next();
    if (!job) {
      std::unique_lock lock(mutex_);
      work_.wait_for(lock, config_.idle_poll);
      continue;
    }
    judge_job(*job);
  }
}

void Service::judge_job(const Job& job) {
  json verdict;
  double gpu_seconds = 0;
  int device = -1;
  try {
    const TaskSpec& task = tasks_.at(job.task);
    AttemptRecord attempt;
    attempt.id = job.id;
    attempt.task_id = job.task;
    attempt.code = job.source;
    const EvaluationRecord e =
        judge_.judge(task, attempt, tier_from_name(job.tier).value_or(Tier::kFull));
    verdict = e.verdict;
    verdict["service_seconds"] = e.stage_seconds;
    gpu_seconds = e.judge_seconds - e.stage_seconds.value("compile_before_gpu", 0.0) -
                  e.stage_seconds.value("gpu_wait", 0.0);
    device = verdict.value("config", json::object()).value("device", -1);
  } catch (const GpuLost& e) {
    // Nothing judged it: back to the queue for a restarted server (or a restored GPU).
    store_.requeue(job.id);
    if (!all_gpus_lost_.exchange(true))
      std::fprintf(stderr, "ptxbench serve: %s; no more jobs are judged, restart to resume\n",
                   e.what());
    return;
  } catch (const std::exception& e) {
    verdict = {{"outcome", "unavailable"},
               {"reason", std::string("PTXBench could not judge this job: ") + e.what()}};
  }
  verdict["tier"] = job.tier;
  store_.finish(job.id, verdict.dump());
  std::lock_guard lock(mutex_);
  ++judged_;
  gpu_seconds_ += std::max(0.0, gpu_seconds);
  if (device >= 0) busy_by_gpu_[device] += std::max(0.0, gpu_seconds);
}

}  // namespace ptxb::serve
