// The subcommand table: {name, help, handler}. One file per subcommand (cmd_*.cpp).
#pragma once

#include <string_view>
#include <vector>

namespace ptxb::cli {

/// Exit statuses shared by every subcommand.
constexpr int kExitOk = 0;            ///< done; for `eval`: judged, any outcome (see --strict)
constexpr int kExitNotPassed = 1;     ///< `eval --strict`: judged, outcome is not passed
constexpr int kExitHarnessError = 2;  ///< PTXBench itself could not run

struct Command {
  std::string_view name;
  std::string_view help;
  int (*handler)(int argc, char** argv);  ///< argv[0] is the subcommand name
};

int run_tasks(int argc, char** argv);
int run_eval(int argc, char** argv);
int run_run(int argc, char** argv);
int run_generate(int argc, char** argv);
int run_evaluate(int argc, char** argv);
int run_export(int argc, char** argv);
int run_report(int argc, char** argv);
int run_serve(int argc, char** argv);
int run_merge(int argc, char** argv);

/// Every subcommand, in the order `ptxbench --help` lists them.
const std::vector<Command>& commands();
int dispatch(int argc, char** argv);

}  // namespace ptxb::cli
