// The quick judging tier: which shapes it times and checks, and the short timing it asks for.
#include <gtest/gtest.h>

#include "eval/tier.hpp"
#include "tasks/catalog.hpp"
#include "tasks/spec.hpp"

namespace ptxb {
namespace {

const std::filesystem::path kTasksRoot = std::filesystem::path(PTXB_SOURCE_DIR) / "tasks";

TEST(QuickTier, TimesOneVisibleAndOneHiddenShapeAndKeepsEveryShape) {
  const Catalog catalog = load_catalog(kTasksRoot / "catalog");
  for (const char* id : {"sm90/gemm/bf16-wgmma-tma", "sm90/attention/fwd-bf16"}) {
    const TaskSpec full = find_task(kTasksRoot, catalog, id);
    const TaskSpec quick = quick_task(full);
    ASSERT_EQ(quick.shapes.size(), full.shapes.size()) << id;
    int timed_visible = 0, timed_hidden = 0;
    for (size_t i = 0; i < quick.shapes.size(); ++i) {
      if (quick.shapes[i].timed) {
        EXPECT_TRUE(full.shapes[i].timed) << id << " shape " << i;
        (quick.shapes[i].hidden ? timed_hidden : timed_visible) += 1;
      }
    }
    EXPECT_EQ(timed_visible, 1) << id;
    EXPECT_EQ(timed_hidden, 1) << id;
  }
}

TEST(QuickTier, ShortTimingNoSustainedRegimeQuickCorrectnessAndItsName) {
  EvalConfig full;
  const EvalConfig quick = quick_tier(full);
  EXPECT_EQ(quick.tier, Tier::kQuick);
  EXPECT_EQ(quick.timing_samples, 10);
  EXPECT_EQ(quick.timing_max_samples, 10);
  EXPECT_EQ(quick.timing_ci_permille, 0) << "the quick tier keeps its two rounds";
  EXPECT_EQ(quick.sustained_calls, 0);
  EXPECT_EQ(quick.run_evidence, full.run_evidence) << "the evidence stays";
  EXPECT_EQ(quick.to_json()["tier"], "quick");
  EXPECT_EQ(full.to_json()["tier"], "full");
  EXPECT_EQ(tier_from_name("quick"), Tier::kQuick);
  EXPECT_EQ(tier_from_name("full"), Tier::kFull);
  EXPECT_FALSE(tier_from_name("fast").has_value());
  EXPECT_EQ(tier_name(Tier::kQuick), "quick");
}

}  // namespace
}  // namespace ptxb
