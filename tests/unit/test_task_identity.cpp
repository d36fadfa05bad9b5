// The identity of a task definition (tasks/task_identity.hpp): stable for the same definition,
// different whenever anything that judges a result changes.
#include <gtest/gtest.h>

#include "tasks/task_identity.hpp"

namespace ptxb {
namespace {

const std::filesystem::path kTasksRoot = std::filesystem::path(PTXB_SOURCE_DIR) / "tasks";

TEST(TaskIdentity, ChangesWithEverythingThatJudgesAResult) {
  const Catalog catalog = load_catalog(kTasksRoot / "catalog");
  const TaskSpec task = find_task(kTasksRoot, catalog, "sm90/gemm/bf16-wgmma-tma");
  const std::string hash = task_hash(task, catalog);
  EXPECT_EQ(hash.size(), 64u);
  EXPECT_EQ(task_hash(find_task(kTasksRoot, catalog, task.id), catalog), hash) << "stable";
  EXPECT_EQ(short_task_hash(hash), hash.substr(0, 12));

  TaskSpec moved = task;
  moved.dir = "/elsewhere";
  EXPECT_EQ(task_hash(moved, catalog), hash) << "where a checkout keeps it changes nothing";

  TaskSpec prompt = task;
  prompt.prompt += " ";
  EXPECT_NE(task_hash(prompt, catalog), hash) << "what the model was shown";
  TaskSpec hidden = task;
  hidden.shapes[hidden.shapes.size() - 1].shape.dims[0].second += 1;
  EXPECT_NE(task_hash(hidden, catalog), hash) << "a hidden shape";
  TaskSpec tolerance = task;
  tolerance.correctness.distributions[0].rtol *= 2;
  EXPECT_NE(task_hash(tolerance, catalog), hash) << "a tolerance";
  TaskSpec ceiling = task;
  ceiling.targets[0].max_nontarget_flop_share = 0.5;
  EXPECT_NE(task_hash(ceiling, catalog), hash) << "a target's rule";

  Catalog other = catalog;
  for (InstructionEntry& e : other.entries)
    if (e.name == "wgmma.mma_async") e.primary_opcodes.push_back("HMMA");
  EXPECT_NE(task_hash(task, other), hash) << "the catalog row that judges a target";
  Catalog counters = catalog;
  counters.counters[0].tolerance = 0.5;
  EXPECT_NE(task_hash(task, counters), hash) << "the counters the timed calls are held to";
}

}  // namespace
}  // namespace ptxb
