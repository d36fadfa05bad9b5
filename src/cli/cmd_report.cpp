// `ptxbench report [--runs A,B] [--out DIR] [--by-run]`: the leaderboard of stored runs as
// Markdown (also printed), CSV, JSON and SVG plots (docs/report.md).
#include <CLI/CLI.hpp>
#include <iostream>
#include <map>
#include <sstream>

#include "cli/cmd_common.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "report/render.hpp"
#include "report/report.hpp"
#include "sys/files.hpp"
#include "sys/home.hpp"

namespace ptxb::cli {

int run_report(int argc, char** argv) {
  CLI::App app{"Leaderboard of stored runs: Markdown, CSV, JSON and SVG plots.", "ptxbench report"};
  std::string runs_arg, db, out;
  bool by_run = false;
  app.add_option("--runs", runs_arg, "comma-separated run names (default: every run)");
  app.add_option("--db", db, "results database (default $PTXBENCH_DB or results/ptxbench.db)");
  app.add_option("--out", out,
                 "folder for report.md/.csv/.json and the plots "
                 "(default results/report)");
  app.add_flag("--by-run", by_run, "one leaderboard entry per run instead of per model");
  if (const auto status = parse_flags(app, argc, argv)) return *status;
  require_store(store_path(db));
  ResultStore store(store_path(db));
  std::vector<RunRecord> runs;
  if (runs_arg.empty()) {
    runs = store.runs();
  } else {
    std::istringstream list(runs_arg);
    std::string name;
    while (std::getline(list, name, ',')) {
      auto run = store.find_run(name);
      if (!run) throw InputError("--runs: no run named '" + name + "'");
      runs.push_back(std::move(*run));
    }
  }
  std::map<std::string, std::pair<std::string, std::string>> family_of;  // id -> family, arch
  for (const TaskSpec& t : select_tasks("")) family_of[t.id] = {t.family, t.arch};

  // Rows borrow these: they live until build_report returns.
  std::vector<std::vector<AttemptRecord>> attempts(runs.size());
  std::vector<std::map<int64_t, EvaluationRecord>> evaluations(runs.size());
  std::vector<ReportRow> rows;
  for (size_t r = 0; r < runs.size(); ++r) {
    attempts[r] = store.attempts(runs[r].id);
    for (EvaluationRecord& e : store.evaluations(runs[r].id))
      evaluations[r][e.attempt_id] = std::move(e);
    for (const AttemptRecord& a : attempts[r]) {
      const auto family = family_of.find(a.task_id);
      const auto eval = evaluations[r].find(a.id);
      const EvaluationRecord* evaluation = eval == evaluations[r].end() ? nullptr : &eval->second;
      // The definition the run recorded, else the one its verdict names (tasks/task_identity).
      std::string hash;
      const nlohmann::json& settings = runs[r].settings;
      if (settings.is_object() && settings.contains("task_hashes") &&
          settings["task_hashes"].is_object())
        hash = settings["task_hashes"].value(a.task_id, "");
      if (hash.empty() && evaluation != nullptr && evaluation->verdict.is_object())
        hash = evaluation->verdict.value("task_hash", std::string());
      rows.push_back({&runs[r], &a, evaluation,
                      family == family_of.end() ? "unknown" : family->second.first,
                      family == family_of.end() ? "unknown" : family->second.second, hash});
    }
  }
  ReportOptions options;
  options.grouping = by_run ? ReportGrouping::kRun : ReportGrouping::kModel;
  const Report report = build_report(rows, options);
  const std::filesystem::path dir =
      out.empty() ? ptxbench_home() / "results" / "report" : std::filesystem::path(out);
  std::filesystem::create_directories(dir);
  const std::string markdown = render_markdown(report);
  write_file_atomic(dir / "report.md", markdown);
  write_file_atomic(dir / "report.csv", render_csv(report));
  write_file_atomic(dir / "report.json", render_json(report));
  write_file_atomic(dir / "speedup.svg", render_speedup_svg(report));
  write_file_atomic(dir / "success_by_turn.svg", render_success_by_turn_svg(report));
  std::cout << markdown << "\n(written to " << dir.string() << ")\n";
  return kExitOk;
}

}  // namespace ptxb::cli
