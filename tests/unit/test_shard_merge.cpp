// A run in shards on several hosts, joined again: `ptxbench generate --shard I/N` (the real CLI,
// the offline reference model) into one store per shard, then `ptxbench merge`. The merged store
// holds exactly the attempts of the same run made in one piece; a second merge adds nothing; a
// run that is not a shard of the same run is refused and nothing is written.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <tuple>

#include "store/store.hpp"
#include "sys/files.hpp"

namespace ptxb {
namespace {

const std::string kBin = (std::filesystem::path(PTXB_BINARY_DIR) / "ptxbench").string();

int ptxbench(const std::string& args) {
  const int status = std::system((kBin + " " + args + " > /dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int generate(const std::filesystem::path& db, const std::string& extra, int samples = 3) {
  return ptxbench(
      "generate --model reference --tasks sm90/gemm/bf16-wgmma,sm90/gemm/bf16-wgmma-tma "
      "--samples " +
      std::to_string(samples) + " --run-name r --db " + db.string() + " " + extra);
}

using Key = std::tuple<std::string, int, int>;
std::set<Key> keys(const std::filesystem::path& db, size_t* count = nullptr) {
  ResultStore store(db);
  std::set<Key> out;
  const auto run = store.find_run("r");
  if (!run) return out;
  const auto attempts = store.attempts(run->id);
  if (count) *count = attempts.size();
  for (const AttemptRecord& a : attempts) out.insert({a.task_id, a.sample, a.turn});
  return out;
}

TEST(ShardMerge, ShardsMergeIntoTheWholeRunOnceAndForeignRunsAreRefused) {
  TempDir dir("ptxbench-shards");
  const auto whole = dir.path() / "whole.db", s0 = dir.path() / "s0.db", s1 = dir.path() / "s1.db",
             merged = dir.path() / "merged.db";
  ASSERT_EQ(generate(whole, ""), 0);
  ASSERT_EQ(generate(s0, "--shard 0/2"), 0);
  ASSERT_EQ(generate(s1, "--shard 1/2"), 0);
  const std::set<Key> all = keys(whole), first = keys(s0), second = keys(s1);
  EXPECT_EQ(all.size(), 6u);
  EXPECT_EQ(first.size(), 3u);
  EXPECT_EQ(second.size(), 3u);
  for (const Key& k : first) EXPECT_FALSE(second.count(k)) << "a chain in both shards";

  ASSERT_EQ(ptxbench("merge --out " + merged.string() + " " + s0.string() + " " + s1.string()), 0);
  size_t stored = 0;
  EXPECT_EQ(keys(merged, &stored), all);
  EXPECT_EQ(stored, 6u);
  ASSERT_EQ(ptxbench("merge --out " + merged.string() + " " + s1.string()), 0);
  keys(merged, &stored);
  EXPECT_EQ(stored, 6u) << "a second merge duplicated attempts";
  {
    ResultStore store(merged);
    const auto run = store.find_run("r");
    ASSERT_TRUE(run.has_value());
    EXPECT_EQ(run->environment["shard"], "0/2");
    ASSERT_EQ(run->environment["merged_environments"].size(), 1u) << run->environment.dump();
    EXPECT_EQ(run->environment["merged_environments"][0]["shard"], "1/2");
  }

  // Another run under the same name (other settings) is not a shard of this one.
  const auto foreign = dir.path() / "foreign.db";
  ASSERT_EQ(generate(foreign, "", 2), 0);
  EXPECT_EQ(ptxbench("merge --out " + merged.string() + " " + foreign.string()), 2);
  keys(merged, &stored);
  EXPECT_EQ(stored, 6u) << "a refused merge wrote something";

  EXPECT_EQ(generate(dir.path() / "bad.db", "--shard 2/2"), 2);
  EXPECT_EQ(generate(dir.path() / "bad.db", "--shard x"), 2);
  EXPECT_EQ(generate(dir.path() / "bad.db", "--shard 0/2", -1), 2) << "negative samples";
  EXPECT_EQ(ptxbench("merge --out " + merged.string() + " " + merged.string()), 2);
}

}  // namespace
}  // namespace ptxb
