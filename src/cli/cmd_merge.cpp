// `ptxbench merge --out OUT.db IN.db...`: the stores of a run's shards joined into one.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/cmd_common.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "store/merge.hpp"

namespace ptxb::cli {

int run_merge(int argc, char** argv) {
  CLI::App app{"Join results stores (the shards of a run from `ptxbench run --shard I/N`).",
               "ptxbench merge"};
  std::string out;
  std::vector<std::string> inputs;
  app.add_option("--out", out, "the store to merge into (created if missing)")->required();
  app.add_option("inputs", inputs, "the stores to merge")->required();
  if (const auto status = parse_flags(app, argc, argv)) return *status;
  std::vector<std::filesystem::path> paths;
  for (const std::string& in : inputs) {
    if (std::filesystem::exists(out) && std::filesystem::equivalent(in, out))
      throw InputError("merge: " + in + " is the output store itself");
    paths.emplace_back(in);
  }
  ResultStore store(out);
  const MergeReport r = merge_stores(store, paths);
  std::cout << "merged " << inputs.size() << " stores into " << out << ": " << r.runs_created
            << " runs created, " << r.runs_joined << " joined, " << r.attempts_added
            << " attempts added (" << r.attempts_already_there << " already there), "
            << r.evaluations_added << " evaluations added\n";
  return kExitOk;
}

}  // namespace ptxb::cli
