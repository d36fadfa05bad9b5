// The per-tensor scaled fp8 GEMM family on the host: a task with E4M3 operands and two literal
// [1] scale tensors drawn as "scales" loads, its sizes and FLOPs follow the GEMM rule, and the
// loader refuses a bf16 operand or a scale without its element type.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "task_text.hpp"
#include "tasks/spec.hpp"
#include "tasks/task_json.hpp"
#include "tasks/task_wire.hpp"

namespace ptxb {
namespace {

using testing::load_task_text;

std::string fp8_task(const std::string& a_dtype = "e4m3",
                     const std::string& scale_shape = "\"1\"") {
  return R"(id = "sm90/gemm/fp8-test"
title = "t"
arch = "sm_90a"
family = "gemm_fp8"
level = 3
dims = ["M", "N", "K"]

[[tensors]]
name = "A"
role = "in"
dtype = ")" +
         a_dtype + R"("
shape = ["M", "K"]

[[tensors]]
name = "B"
role = "in"
dtype = "e4m3"
shape = ["N", "K"]

[[tensors]]
name = "scale_a"
role = "in"
dtype = "f32"
shape = [)" +
         scale_shape + R"(]
values = { kind = "scales" }

[[tensors]]
name = "scale_b"
role = "in"
dtype = "f32"
shape = ["1"]
values = { kind = "scales" }

[[tensors]]
name = "C"
role = "out"
dtype = "bf16"
shape = ["M", "N"]

[[shapes]]
M = 256
N = 128
K = 512
timed = true

[[shapes]]
M = 100
N = 48
K = 64
hidden = true

[[targets]]
instruction = "wgmma.mma_async"
required = "R2"

[correctness]
reference = "gemm_scaled_fp32"
seeds = [1]

[[correctness.distributions]]
name = "normal"
kind = "normal"
scale = 1.0
atol = 0.01
rtol = 0.02

[baseline]
library = "cublaslt"
)";
}

TEST(GemmFp8Task, LoadsWithLiteralScaleShapes) {
  const TaskSpec task = load_task_text(fp8_task());
  EXPECT_EQ(task.family, "gemm_fp8");
  ASSERT_EQ(task.inputs().size(), 4u);
  const TensorSpec& scale = *task.inputs()[2];
  EXPECT_EQ(scale.dims, std::vector<std::string>{"1"});
  EXPECT_EQ(extent("1", task.shapes[0].shape), 1);
  EXPECT_EQ(tensor_bytes(scale, task.shapes[0].shape), 4.0);
  EXPECT_EQ(tensor_bytes(*task.inputs()[0], task.shapes[0].shape), 256.0 * 512);  // 1 byte each
  EXPECT_DOUBLE_EQ(task.shapes[0].flops, 2.0 * 256 * 128 * 512);
  const TaskSpec back = task_from_json(task_detail_json(task, HiddenShapes::kInclude));
  EXPECT_EQ(back.inputs()[2]->dims, scale.dims) << "the worker gets the literal extent too";
  EXPECT_EQ(back.inputs()[2]->values->kind, "scales");
}

TEST(GemmFp8Task, BlockedExtentsCoverTheDimInBlocks) {
  Shape s;
  s.dims = {{"M", 200}, {"N", 256}, {"K", 1000}};
  EXPECT_EQ(extent("K/128", s), 8) << "ceil(1000 / 128)";
  EXPECT_EQ(extent("N/128", s), 2);
  EXPECT_EQ(extent("M/1", s), 200);
  EXPECT_FALSE(blocked_extent("K/0").has_value());
  EXPECT_FALSE(blocked_extent("/128").has_value());
  EXPECT_FALSE(blocked_extent("K").has_value());
  ASSERT_TRUE(blocked_extent("K/128").has_value());
  EXPECT_EQ(blocked_extent("K/128")->dim, "K");
  EXPECT_EQ(blocked_extent("K/128")->block, 128);
  // In a task: the scale of a block-scaled operand, and an undeclared dim refused.
  const TaskSpec task = load_task_text(fp8_task("e4m3", "\"K/128\", \"M\""));
  EXPECT_EQ(tensor_bytes(*task.inputs()[2], task.shapes[0].shape), 4.0 * 4 * 256);
  EXPECT_THROW(load_task_text(fp8_task("e4m3", "\"L/128\"")), InputError);
}

TEST(GemmFp8Task, RefusesOtherOperandTypesAndBadExtents) {
  try {
    load_task_text(fp8_task("bf16"));
    FAIL() << "a bf16 operand loaded";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("e4m3"), std::string::npos) << e.what();
  }
  for (const char* bad : {"\"0\"", "\"01\"", "\"-1\"", "\"L\""}) {
    EXPECT_THROW(load_task_text(fp8_task("e4m3", bad)), InputError) << bad;
  }
}

}  // namespace
}  // namespace ptxb
