// Merging results stores (`ptxbench merge`): the shards of a run judged on several hosts
// (`ptxbench run --shard I/N`, e.g. a Slurm array) become one store. Runs are matched by name
// and must agree on model, endpoint, prompt version, PTXBench version and settings; attempts are
// matched by (run, task, sample, turn): one already there with the same content is skipped, with
// other content it is a conflict. Everything is checked before anything is written.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "store/store.hpp"

namespace ptxb {

struct MergeReport {
  int64_t runs_created = 0, runs_joined = 0;
  int64_t attempts_added = 0, attempts_already_there = 0;
  int64_t evaluations_added = 0;
};

/// Merges every input store into `out`. Throws InputError naming the run or attempt when inputs
/// disagree with `out` or with each other; `out` is then unchanged. The merged run keeps the
/// first environment record it had, with every other input's under "merged_environments".
MergeReport merge_stores(ResultStore& out, const std::vector<std::filesystem::path>& inputs);

}  // namespace ptxb
