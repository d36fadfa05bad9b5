// `ptxbench evaluate --run NAME`: judge the stored attempts of a run that have no evaluation yet
// (after `ptxbench generate`, or after a judge crashed), with no model calls.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/cmd_common.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "eval/config.hpp"

namespace ptxb::cli {

int run_evaluate(int argc, char** argv) {
  CLI::App app{"Judge the stored attempts of a run that are not judged yet.", "ptxbench evaluate"};
  std::string run_name, db, gpus = "0";
  int concurrency = 4;
  bool no_evidence = false;
  app.add_option("--run", run_name, "the run's name")->required();
  app.add_option("--db", db, "results database (default $PTXBENCH_DB or results/ptxbench.db)");
  app.add_option("--gpus", gpus, "GPUs that judge, one worker each, e.g. 0,1");
  app.add_option("--concurrency", concurrency, "attempts compiled or judged at once");
  app.add_flag("--no-evidence", no_evidence, "skip the runtime instruction evidence (ncu)");
  if (const auto status = parse_flags(app, argc, argv)) return *status;
  require_store(store_path(db));
  ResultStore store(store_path(db));
  const auto run = store.find_run(run_name);
  if (!run) throw InputError("no run named '" + run_name + "' in the results database");
  const std::vector<TaskSpec> tasks = select_tasks("");
  EvalConfig config = EvalConfig::from_environment();
  config.run_evidence = !no_evidence;
  Judge judge(config, parse_gpu_list(gpus));
  const int64_t pending = static_cast<int64_t>(store.attempts_without_evaluation(run->id).size());
  ProgressPrinter progress(pending);
  const int64_t judged =
      judge_pending(store, run->id, tasks, judge, concurrency, std::ref(progress));
  std::cout << "run '" << run_name << "': " << judged << " attempts judged\n";
  return kExitOk;
}

}  // namespace ptxb::cli
