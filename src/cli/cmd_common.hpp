// Pieces shared by the subcommands: flag parsing with one-line errors, the results database
// location, task selection, GPU lists and the live progress display.
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "llm/run_loop.hpp"
#include "tasks/spec.hpp"

namespace ptxb::cli {

/// The results database: the --db option when given, else $PTXBENCH_DB, else
/// <PTXBench home>/results/ptxbench.db. Read once per command.
std::filesystem::path store_path(const std::string& db_option);

/// The tasks whose id equals or starts with one of the comma-separated selectors ("sm90",
/// "sm90/attention", "sm90/gemm/bf16-wgmma"); every task for "" or "all". Throws InputError when
/// a selector matches nothing.
std::vector<TaskSpec> select_tasks(const std::string& selectors);

/// Parses a subcommand's flags. nullopt: go on; else the exit status to return: 0 after --help,
/// 2 after a bad flag, which is printed as one line ("ptxbench eval: --task is required (see
/// --help)").
std::optional<int> parse_flags(CLI::App& app, int argc, char** argv);

/// Throws InputError unless `db` exists: commands that read results never create a store.
void require_store(const std::filesystem::path& db);

/// {task id: task_hash} of `tasks` (tasks/task_identity.hpp), with the catalog of the tasks root.
nlohmann::json task_hashes(const std::vector<TaskSpec>& tasks);

/// "0,1,3" -> {0, 1, 3}; throws InputError for anything else.
std::vector<int> parse_gpu_list(const std::string& text);

/// The judge side's machine as far as the host can tell (GPUs and driver from nvidia-smi, when
/// present), recorded with a run; every verdict carries its own exact environment too.
nlohmann::json host_environment();

/// One line per finished attempt on stderr, with done/total, successes so far and an ETA.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(int64_t total_attempts);
  void operator()(const AttemptDone& done);

 private:
  std::mutex mutex_;
  int64_t total_;
  int64_t done_ = 0;
  int64_t successes_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace ptxb::cli
