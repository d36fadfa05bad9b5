// The grouped GEMM family on the host: a task with A, B [G, N, K], offsets [G+1] and C loads and
// counts 2 M N K FLOPs whatever the groups; a task without G or with B of another type does not;
// the host mirror a library baseline reads group sizes from keeps, replaces and forgets records.
#include <gtest/gtest.h>

#include <regex>

#include "core/error.hpp"
#include "cuda/host_mirror.hpp"
#include "sys/files.hpp"
#include "tasks/spec.hpp"

namespace ptxb {
namespace {

const std::filesystem::path kTasksRoot = std::filesystem::path(PTXB_SOURCE_DIR) / "tasks";

constexpr const char* kTask = R"(id = "sm90/gemm_grouped/test"
title = "t"
arch = "sm_90a"
family = "gemm_grouped"
level = 3
dims = ["G", "M", "N", "K"]

[[tensors]]
name = "A"
role = "in"
dtype = "bf16"
shape = ["M", "K"]

[[tensors]]
name = "B"
role = "in"
dtype = "bf16"
shape = ["G", "N", "K"]

[[tensors]]
name = "offsets"
role = "in"
dtype = "int32"
shape = ["G+1"]
values = { kind = "offsets", total = "M" }

[[tensors]]
name = "C"
role = "out"
dtype = "bf16"
shape = ["M", "N"]

[[shapes]]
G = 256
M = 32768
N = 4096
K = 7168
timed = true

[[shapes]]
G = 8
M = 100
N = 64
K = 64
hidden = true

[[targets]]
instruction = "wgmma.mma_async"

[correctness]
reference = "gemm_grouped_fp32"
seeds = [1]

[[correctness.distributions]]
name = "normal"
kind = "normal"
scale = 1.0
atol = 0.01
rtol = 0.01

[baseline]
library = "cublaslt"
)";

TaskSpec load_text(const std::string& text) {
  TempDir dir("ptxb-grouped");
  write_file_atomic(dir.path() / "task.toml", text);
  write_file_atomic(dir.path() / "prompt.md", "A prompt.\n");
  return load_task(dir.path() / "task.toml", load_catalog(kTasksRoot / "catalog"));
}

TEST(GroupedFamily, LoadsAndCountsTheFlopsOfAllRows) {
  const TaskSpec task = load_text(kTask);
  EXPECT_EQ(task.family, "gemm_grouped");
  EXPECT_DOUBLE_EQ(task.shapes[0].flops, 2.0 * 32768 * 4096 * 7168);
  EXPECT_DOUBLE_EQ(tensor_bytes(*task.inputs()[2], task.shapes[0].shape), 4.0 * 257);
  EXPECT_DOUBLE_EQ(tensor_bytes(*task.inputs()[1], task.shapes[0].shape), 2.0 * 256 * 4096 * 7168);
}

TEST(GroupedFamily, RefusesATaskWithoutGroupsOrWithOtherTypes) {
  const std::string no_g =
      std::regex_replace(std::string(kTask), std::regex("\"G\", \"M\""), "\"M\"");
  EXPECT_THROW(load_text(no_g), InputError);
  const std::string fp32_b = std::regex_replace(std::string(kTask),
                                                std::regex("name = \"B\"\nrole = \"in\"\ndtype = "
                                                           "\"bf16\""),
                                                "name = \"B\"\nrole = \"in\"\ndtype = \"f32\"");
  try {
    load_text(fp32_b);
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
