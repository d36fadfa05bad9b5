#include "cli/cmd_common.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "sys/home.hpp"
#include "tasks/catalog.hpp"
#include "tasks/task_identity.hpp"

namespace ptxb::cli {

std::filesystem::path store_path(const std::string& db_option) {
  if (!db_option.empty()) return db_option;
  const char* env = std::getenv("PTXBENCH_DB");
  if (env != nullptr && *env != '\0') return env;
  return ptxbench_home() / "results" / "ptxbench.db";
}

std::vector<TaskSpec> select_tasks(const std::string& selectors) {
  const std::filesystem::path root = default_tasks_root();
  std::vector<TaskSpec> all = load_all_tasks(root, load_catalog(root / "catalog"));
  if (selectors.empty() || selectors == "all") return all;
  std::vector<TaskSpec> chosen;
  std::istringstream list(selectors);
  std::string selector;
  while (std::getline(list, selector, ',')) {
    bool matched = false;
    for (const TaskSpec& t : all) {
      const bool match = t.id == selector || t.id.rfind(selector + "/", 0) == 0;
      if (!match) continue;
      matched = true;
      bool seen = false;
      for (const TaskSpec& c : chosen) seen = seen || c.id == t.id;
      if (!seen) chosen.push_back(t);
    }
    if (!matched)
      throw InputError("--tasks: '" + selector + "' matches no task under " + root.string());
  }
  return chosen;
}

std::optional<int> parse_flags(CLI::App& app, int argc, char** argv) {
  app.failure_message([](const CLI::App* failed, const CLI::Error& e) {
    return failed->get_display_name() + ": " + e.what() + " (see --help)\n";
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitHarnessError;
  }
  return std::nullopt;
}

void require_store(const std::filesystem::path& db) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(db, ec))
    throw InputError(db.string() +
                     ": no results database (ptxbench run or generate makes one; "
                     "--db or PTXBENCH_DB names another)");
}

nlohmann::json task_hashes(const std::vector<TaskSpec>& tasks) {
  const Catalog catalog = load_catalog(default_tasks_root() / "catalog");
  nlohmann::json out = nlohmann::json::object();
  for (const TaskSpec& t : tasks) out[t.id] = task_hash(t, catalog);
  return out;
}

std::vector<int> parse_gpu_list(const std::string& text) {
  std::vector<int> gpus;
  std::istringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    try {
      size_t used = 0;
      const int gpu = std::stoi(item, &used);
      if (used != item.size() || gpu < 0) throw std::invalid_argument(item);
      gpus.push_back(gpu);
    } catch (const std::exception&) {
      throw InputError("--gpus: '" + item + "' is not a device index (e.g. --gpus 0,1)");
    }
  }
  if (gpus.empty()) throw InputError("--gpus: no device index given");
  return gpus;
}

nlohmann::json host_environment() {
  nlohmann::json env = {{"gpus", nlohmann::json::array()}};
  FILE* pipe = popen(
      "nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv,noheader "
      "2>/dev/null",
      "r");
  if (pipe == nullptr) return env;
  char line[512];
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    std::string text(line);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    if (!text.empty()) env["gpus"].push_back(text);
  }
  pclose(pipe);
  return env;
}

ProgressPrinter::ProgressPrinter(int64_t total_attempts) : total_(total_attempts) {}

void ProgressPrinter::operator()(const AttemptDone& done) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++done_;
  const AttemptRecord& a = *done.attempt;
  std::string result = "generated";
  if (done.evaluation != nullptr) {
    result = done.evaluation->outcome;
    if (done.evaluation->success) ++successes_;
    double geo = 0;
    int n = 0;
    for (const ShapeSpeedup& s : done.evaluation->speedups) geo += std::log(s.speedup), ++n;
    if (n > 0) result += " (speedup " + std::to_string(std::exp(geo / n)).substr(0, 5) + ")";
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta =
      done_ < total_ ? elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_)
                     : 0.0;
  char tail[160];
  std::snprintf(tail, sizeof tail, " | successes %lld | %.0f s elapsed, at most %.0f s left",
                static_cast<long long>(successes_), elapsed, eta);
  std::cerr << "[" << done_ << "/" << total_ << "] " << a.task_id << " sample " << a.sample
            << " turn " << a.turn << ": " << result << tail << std::endl;
}

}  // namespace ptxb::cli
