// `ptxbench export [--run NAME] [-o FILE]`: one JSON object per attempt (JSON Lines, schema in
// docs/result-schema.md "Attempt export"), the input of the SFT pipeline.
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>

#include "cli/cmd_common.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "store/export.hpp"
#include "sys/files.hpp"

namespace ptxb::cli {

int run_export(int argc, char** argv) {
  CLI::App app{"Export stored attempts as JSON Lines.", "ptxbench export"};
  std::string run_name, db, out;
  app.add_option("--run", run_name, "only this run (default: every run)");
  app.add_option("--db", db, "results database (default $PTXBENCH_DB or results/ptxbench.db)");
  app.add_option("-o,--out", out, "output file (default: stdout)");
  if (const auto status = parse_flags(app, argc, argv)) return *status;
  require_store(store_path(db));
  ResultStore store(store_path(db));
  std::ostringstream buffer;
  size_t count = 0;
  if (run_name.empty()) {
    count = export_all_runs(store, buffer);
  } else {
    const auto run = store.find_run(run_name);
    if (!run) throw InputError("no run named '" + run_name + "' in the results database");
    count = export_run(store, run->id, buffer);
  }
  if (out.empty()) {
    std::cout << buffer.str();
  } else {
    write_file_atomic(out, buffer.str());
  }
  std::cerr << "exported " << count << " attempts\n";
  return kExitOk;
}

}  // namespace ptxb::cli
