#include "store/merge.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "core/error.hpp"

namespace ptxb {
namespace {

using AttemptKey = std::tuple<std::string, std::string, int, int>;  // run, task, sample, turn

// What must be equal for two attempts of one key to be the same attempt.
std::string content_of(const AttemptRecord& a) {
  return a.response_text + '\x1f' + a.code.value_or("\x1e") + '\x1f' + a.reasoning_text + '\x1f' +
         std::string(to_string(a.status));
}

void check_same_run(const RunRecord& a, const RunRecord& b, const std::string& where) {
  auto differs = [&](const char* what) {
    throw InputError("merge: run '" + a.name + "' of " + where + " differs in its " + what +
                     " from the one merged before: these are not shards of one run");
  };
  if (a.model != b.model) differs("model");
  if (a.endpoint != b.endpoint) differs("endpoint");
  if (a.prompt_version != b.prompt_version) differs("prompt version");
  if (a.ptxbench_version != b.ptxbench_version) differs("PTXBench version");
  if (a.settings != b.settings) differs("settings");
}

}  // namespace

MergeReport merge_stores(ResultStore& out, const std::vector<std::filesystem::path>& inputs) {
  std::vector<std::unique_ptr<ResultStore>> stores;
  for (const auto& path : inputs) {
    if (!std::filesystem::exists(path)) throw InputError("merge: no such store: " + path.string());
    stores.push_back(std::make_unique<ResultStore>(path));
  }
  // Check everything first: runs against `out` and each other, attempts likewise.
  std::map<std::string, RunRecord> runs;
  std::map<AttemptKey, std::string> contents;
  for (const RunRecord& r : out.runs()) {
    runs[r.name] = r;
    for (const AttemptRecord& a : out.attempts(r.id))
      contents[{r.name, a.task_id, a.sample, a.turn}] = content_of(a);
  }
  for (size_t i = 0; i < stores.size(); ++i) {
    for (const RunRecord& r : stores[i]->runs()) {
      if (const auto seen = runs.find(r.name); seen != runs.end())
        check_same_run(r, seen->second, inputs[i].string());
      else
        runs[r.name] = r;
      for (const AttemptRecord& a : stores[i]->attempts(r.id)) {
        const AttemptKey key{r.name, a.task_id, a.sample, a.turn};
        const auto [it, fresh] = contents.emplace(key, content_of(a));
        if (!fresh && it->second != content_of(a))
          throw InputError("merge: run '" + r.name + "', task " + a.task_id + ", sample " +
                           std::to_string(a.sample) + ", turn " + std::to_string(a.turn) +
                           " has another answer in " + inputs[i].string() +
                           " than in a store merged before");
      }
    }
  }
  // Then write.
  MergeReport report;
  for (size_t i = 0; i < stores.size(); ++i) {
    for (const RunRecord& r : stores[i]->runs()) {
      int64_t run_id = 0;
      if (const auto existing = out.find_run(r.name)) {
        run_id = existing->id;
        ++report.runs_joined;
        nlohmann::json environment = existing->environment;
        nlohmann::json own = environment;
        if (own.is_object()) own.erase("merged_environments");
        nlohmann::json& merged = environment["merged_environments"];
        const bool known = r.environment == own ||
                           (merged.is_array() &&
                            std::find(merged.begin(), merged.end(), r.environment) != merged.end());
        if (!known) {  // a merge run twice records each host once
          merged.push_back(r.environment);
          out.set_run_environment(run_id, environment);
        }
      } else {
        run_id = out.create_run(r);
        ++report.runs_created;
      }
      for (AttemptRecord a : stores[i]->attempts(r.id)) {
        const std::optional<EvaluationRecord> evaluation = stores[i]->evaluation(a.id);
        a.run_id = run_id;
        int64_t attempt_id = 0;
        try {
          attempt_id = out.insert_attempt(a);
          ++report.attempts_added;
        } catch (const DuplicateRecord& d) {
          attempt_id = d.existing_id();
          ++report.attempts_already_there;
        }
        if (evaluation && !out.evaluation(attempt_id)) {
          EvaluationRecord e = *evaluation;
          e.attempt_id = attempt_id;
          out.insert_evaluation(e);
          ++report.evaluations_added;
        }
      }
    }
  }
  return report;
}

}  // namespace ptxb
