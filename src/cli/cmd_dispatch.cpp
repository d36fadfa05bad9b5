#include <iostream>
#include <string>

#include "cli/commands.hpp"

namespace ptxb::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> kCommands{
      {"tasks", "list tasks, or show one: ptxbench tasks [ID] [--json]", run_tasks},
      {"eval", "judge one kernel: ptxbench eval FILE --task ID [--json]", run_eval},
      {"run", "ask a model, judge, repair: ptxbench run --model NAME [--endpoint URL]", run_run},
      {"generate", "ask a model, store the answers: ptxbench generate --model NAME", run_generate},
      {"evaluate", "judge stored attempts: ptxbench evaluate --run NAME", run_evaluate},
      {"export", "stored attempts as JSON Lines: ptxbench export [--run NAME]", run_export},
      {"report", "leaderboard of stored runs: ptxbench report [--out DIR]", run_report},
      {"merge", "join the stores of a run's shards: ptxbench merge --out OUT.db IN.db...",
       run_merge},
      {"serve", "judge over HTTP: ptxbench serve [--port P] [--token-file F] [--gpus 0,1]",
       run_serve},
  };
  return kCommands;
}

namespace {
void print_usage(std::ostream& os) {
  os << "usage: ptxbench COMMAND [ARGS]\n\ncommands:\n";
  for (const auto& c : commands()) os << "  " << c.name << "\t" << c.help << "\n";
}
}  // namespace

int dispatch(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    print_usage(argc < 2 ? std::cerr : std::cout);
    return argc < 2 ? kExitHarnessError : kExitOk;
  }
  for (const auto& c : commands())
    if (c.name == argv[1]) return c.handler(argc - 1, argv + 1);
  std::string names;
  for (const auto& c : commands())
    names += std::string(names.empty() ? "" : ", ") + std::string(c.name);
  std::cerr << "ptxbench: unknown command '" << argv[1] << "' (commands: " << names
            << "; see ptxbench --help)\n";
  return kExitHarnessError;
}

}  // namespace ptxb::cli
