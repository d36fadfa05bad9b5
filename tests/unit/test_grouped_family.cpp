// The grouped GEMM family on the host: the shipped task (A, B [G, N, K], offsets [G+1], C) loads
// and counts 2 M N K FLOPs whatever the groups; its text without G or with B of another type does
// not;
// the host mirror a library baseline reads group sizes from keeps, replaces and forgets records.
#include <gtest/gtest.h>

#include <regex>

#include "core/error.hpp"
#include "cuda/host_mirror.hpp"
#include "sys/files.hpp"
#include "task_text.hpp"
#include "tasks/spec.hpp"

namespace ptxb {
namespace {

using testing::load_task_text;

const std::filesystem::path kTasksRoot = std::filesystem::path(PTXB_SOURCE_DIR) / "tasks";
const std::filesystem::path kGroupedTask = kTasksRoot / "sm90/gemm/bf16-grouped";

TEST(GroupedFamily, LoadsAndCountsTheFlopsOfAllRows) {
  const TaskSpec task = load_task(kGroupedTask / "task.toml", load_catalog(kTasksRoot / "catalog"));
  EXPECT_EQ(task.family, "gemm_grouped");
  const ShapeCase& deepseek = task.shapes[2];  // G 256, M 32768, N 4096, K 7168
  ASSERT_EQ(deepseek.shape.at("G"), 256);
  EXPECT_DOUBLE_EQ(deepseek.flops, 2.0 * 32768 * 4096 * 7168);
  EXPECT_DOUBLE_EQ(tensor_bytes(*task.inputs()[2], deepseek.shape), 4.0 * 257);
  EXPECT_DOUBLE_EQ(tensor_bytes(*task.inputs()[1], deepseek.shape), 2.0 * 256 * 4096 * 7168);
}

TEST(GroupedFamily, RefusesATaskWithoutGroupsOrWithOtherTypes) {
  const std::string text = read_file(kGroupedTask / "task.toml");
  ASSERT_NO_THROW(load_task_text(text)) << "the shipped text loads as it is";
  const std::string no_g = std::regex_replace(text, std::regex("\"G\", \"M\""), "\"M\"");
  EXPECT_THROW(load_task_text(no_g), InputError);
  const std::string fp32_b = std::regex_replace(text,
                                                std::regex("name = \"B\"\nrole = \"in\"\ndtype = "
                                                           "\"bf16\""),
                                                "name = \"B\"\nrole = \"in\"\ndtype = \"f32\"");
  try {
    load_task_text(fp32_b);
    FAIL() << "an f32 B loaded";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("tensor 'B'"), std::string::npos) << e.what();
  }
}

TEST(HostMirror, KeepsReplacesAndForgets) {
  int a = 0, b = 0;
  EXPECT_EQ(mirrored_host_integers(&a), nullptr);
  mirror_host_integers(&a, {0, 3, 3, 7});
  mirror_host_integers(&b, {0, 1});
  ASSERT_NE(mirrored_host_integers(&a), nullptr);
  EXPECT_EQ(*mirrored_host_integers(&a), (std::vector<int64_t>{0, 3, 3, 7}));
  mirror_host_integers(&a, {0, 7});
  EXPECT_EQ(*mirrored_host_integers(&a), (std::vector<int64_t>{0, 7})) << "a redraw replaces";
  forget_mirror(&a);
  EXPECT_EQ(mirrored_host_integers(&a), nullptr);
  EXPECT_NE(mirrored_host_integers(&b), nullptr) << "others stay";
  forget_mirror(&b);
}

}  // namespace
}  // namespace ptxb
