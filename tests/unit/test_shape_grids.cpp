// Shape grids and regimes in task.toml (docs/tasks.md): a grid expands to every combination of
// its values in a fixed order, an explicit timed shape takes the grid's place, every mistake is
// an InputError naming the field, regimes classify every shape, the worker gets both, and the
// production-shape GEMM task holds the issue's pairs, M values, timed shapes and regimes.
#include <gtest/gtest.h>

#include <set>

#include "core/error.hpp"
#include "shipped_tasks.hpp"
#include "task_text.hpp"
#include "tasks/spec.hpp"
#include "tasks/task_identity.hpp"
#include "tasks/task_json.hpp"
#include "tasks/task_wire.hpp"

namespace ptxb {
namespace {

using testing::load_task_text;

using testing::catalog;
using testing::kTasksRoot;

// A GEMM task whose shapes and regimes are `shapes` (TOML text).
std::string gemm_task(const std::string& shapes) {
  return R"(id = "sm90/gemm/grid-test"
title = "t"
arch = "sm_90a"
family = "gemm"
level = 1
dims = ["M", "N", "K"]
multiple_of = { K = 8 }

[[tensors]]
name = "A"
role = "in"
dtype = "bf16"
shape = ["M", "K"]

[[tensors]]
name = "B"
role = "in"
dtype = "bf16"
shape = ["N", "K"]

[[tensors]]
name = "C"
role = "out"
dtype = "bf16"
shape = ["M", "N"]

)" + shapes +
         R"(
[[targets]]
instruction = "wgmma.mma_async"

[correctness]
reference = "gemm_fp32"
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
}

constexpr const char* kGrids = R"(
[[shapes]]
M = 16
N = 64
K = 32
timed = true

[[shape_grids]]
tuple_dims = ["N", "K"]
tuples = [[64, 32], [128, 8]]
M = [1, 16, 256]

[[shape_grids]]
tuple_dims = ["K", "N"]
tuples = [[24, 40]]
M = [3, 300]
hidden = true
)";

// The InputError message of loading `text`, "" when it loads.
std::string load_error(const std::string& text) {
  try {
    load_task_text(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

Shape mnk(int64_t m, int64_t n, int64_t k) { return Shape{{{"M", m}, {"N", n}, {"K", k}}}; }

TEST(ShapeGrids, ExpandInOrderAndTheExplicitShapeTakesTheGridsPlace) {
  const TaskSpec task = load_task_text(gemm_task(kGrids));
  const std::vector<Shape> want = {mnk(16, 64, 32), mnk(1, 64, 32),  mnk(256, 64, 32),
                                   mnk(1, 128, 8),  mnk(16, 128, 8), mnk(256, 128, 8),
                                   mnk(3, 40, 24),  mnk(300, 40, 24)};
  ASSERT_EQ(task.shapes.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(task.shapes[i].shape, want[i]) << i;
    EXPECT_EQ(task.shapes[i].timed, i == 0) << i;
    EXPECT_EQ(task.shapes[i].hidden, i >= 6) << i;
    EXPECT_DOUBLE_EQ(task.shapes[i].flops,
                     2.0 * want[i].at("M") * want[i].at("N") * want[i].at("K"));
    EXPECT_GT(task.shapes[i].bytes, 0);
  }
}

TEST(ShapeGrids, EveryMistakeNamesItsField) {
  const struct {
    std::string text;
    const char* message;  // a fragment of the error
  } cases[] = {
      {R"([[shapes]]
M = 1
N = 64
K = 32
timed = true
hidden = true
[[shape_grids]]
tuple_dims = ["N", "K"]
tuples = [[64, 32]]
M = [1, 2]
[[shape_grids]]
M = [5]
N = [5]
K = [8]
hidden = true
)",
       "shapes[0].hidden: shape (M=1 N=64 K=32) is visible in shape_grids[0]"},
      {std::string(kGrids) + "[[shape_grids]]\nM = [1]\nN = [64]\nK = [32]\n",
       "shape_grids[2]: shape (M=1 N=64 K=32) is also in shape_grids[0]"},
      {"[[shapes]]\nM = 1\nN = 1\nK = 8\ntimed = true\n[[shape_grids]]\ntuple_dims = [\"N\", "
       "\"K\"]\ntuples = [[64]]\nM = [2]\nhidden = true\n",
       "shape_grids[0].tuples[0]: has 1 values, expected 2"},
      {"[[shape_grids]]\nM = [1]\nN = [2]\nK = [8]\ntimed = true\n", "timed: unknown key"},
      {"[[shape_grids]]\ntuple_dims = [\"N\"]\ntuples = [[4]]\nN = [2]\nM = [1]\nK = [8]\n",
       "shape_grids[0].N: is given by tuples"},
      {"[[shape_grids]]\nM = [1]\nN = [2]\n", "shape_grids[0].K: required field is missing"},
      {"[[shape_grids]]\nM = [1]\nN = [2]\nK = [8, 12]\n",
       "shape_grids[0].K[1]: 12 is not a multiple of 8"},
      {"[[shape_grids]]\nM = [0]\nN = [2]\nK = [8]\n",
       "shape_grids[0].M[0]: must be a positive integer"},
      {"[[shape_grids]]\nM = []\nN = [2]\nK = [8]\n",
       "shape_grids[0].M: must list at least one value"},
      {"[[shape_grids]]\ntuple_dims = [\"Q\"]\ntuples = [[1]]\nM = [1]\nN = [2]\nK = [8]\n",
       "shape_grids[0].tuple_dims[0]: 'Q' is not one of dims"},
      {"[[shape_grids]]\ntuples = [[1]]\nM = [1]\nN = [2]\nK = [8]\n",
       "shape_grids[0].tuples: needs tuple_dims"},
      {"", "shapes: required field is missing"},
  };
  for (const auto& c : cases) {
    const std::string error = load_error(gemm_task(c.text));
    EXPECT_NE(error.find(c.message), std::string::npos)
        << "want: " << c.message << "\ngot:  " << error;
  }
}

TEST(Regimes, TheFirstRegimeAShapeMeetsIsItsRegime) {
  const TaskSpec task = load_task_text(gemm_task(std::string(kGrids) + R"(
[[regimes]]
name = "decode"
max = { M = 16 }
[[regimes]]
name = "wide"
min = { M = 17, N = 100 }
[[regimes]]
name = "rest"
)"));
  ASSERT_EQ(task.regimes.size(), 3u);
  std::vector<std::string> got;
  for (const ShapeCase& s : task.shapes) got.push_back(s.regime);
  EXPECT_EQ(got, (std::vector<std::string>{"decode", "decode", "rest", "decode", "decode", "wide",
                                           "decode", "rest"}));
  // The worker gets the regimes and every shape's regime.
  const TaskSpec back = task_from_json(task_detail_json(task, HiddenShapes::kInclude));
  ASSERT_EQ(back.regimes.size(), 3u);
  EXPECT_EQ(back.regimes[1].min, (Shape{{{"M", 17}, {"N", 100}}}));
  for (size_t i = 0; i < task.shapes.size(); ++i)
    EXPECT_EQ(back.shapes[i].regime, task.shapes[i].regime);
}

TEST(Regimes, EveryShapeNeedsARegimeAndNamesAreChecked) {
  const std::string base = gemm_task(std::string(kGrids));
  EXPECT_NE(load_error(base + "[[regimes]]\nname = \"decode\"\nmax = { M = 16 }\n")
                .find("regimes: shape (M=256 N=64 K=32) is in no regime"),
            std::string::npos);
  EXPECT_NE(load_error(base + "[[regimes]]\nname = \"a\"\n[[regimes]]\nname = \"a\"\n")
                .find("regimes[1].name: duplicate regime 'a'"),
            std::string::npos);
  EXPECT_NE(load_error(base + "[[regimes]]\nname = \"a\"\nmin = { Q = 1 }\n")
                .find("regimes[0].min.Q: 'Q' is not one of dims"),
            std::string::npos);
  EXPECT_NE(load_error(base + "[[regimes]]\nname = \"a\"\nlimit = 3\n").find("unknown key"),
            std::string::npos);
}

TEST(Regimes, ATaskWithoutRegimesKeepsItsDefinitionText) {
  const TaskSpec task = find_task(kTasksRoot, catalog(), "sm90/gemm/bf16-wgmma-tma");
  const std::string text = task_definition_text(task, catalog());
  EXPECT_EQ(text.find("regime"), std::string::npos) << "the hash of older tasks would change";
}

TEST(ProductionShapeTask, HoldsTheIssuesPairsMValuesTimedShapesAndRegimes) {
  const TaskSpec task = find_task(kTasksRoot, catalog(), "sm90/gemm/bf16-llm");
  const std::set<std::pair<int64_t, int64_t>> paper = {
      {128, 2048},   {2048, 4096},  {2048, 5376}, {21504, 5376}, {256, 7168},   {28672, 4096},
      {34816, 5120}, {4096, 14336}, {4096, 4096}, {4096, 5376},  {5120, 17408}, {5120, 2048},
      {5120, 5120},  {5376, 21504}, {5376, 4096}, {6144, 4096},  {7168, 5120}};
  const std::set<std::pair<int64_t, int64_t>> models = {
      {10240, 8192}, {8192, 8192}, {57344, 8192}, {8192, 28672}, {36864, 7168}, {7168, 18432}};
  const std::set<int64_t> ms = {1, 16, 64, 128, 512, 2048, 4096, 16384};
  std::set<std::pair<int64_t, int64_t>> pairs, visible_pairs;
  std::set<std::tuple<int64_t, int64_t, int64_t>> seen;
  for (const ShapeCase& s : task.shapes) {
    const int64_t m = s.shape.at("M"), n = s.shape.at("N"), k = s.shape.at("K");
    pairs.insert({n, k});
    if (!s.hidden) visible_pairs.insert({n, k});
    seen.insert({m, n, k});
    const std::string want = m <= 64 ? "decode" : m >= 4096 ? "prefill" : "mixed";
    EXPECT_EQ(s.regime, want) << s.shape.to_string();
  }
  std::set<std::pair<int64_t, int64_t>> all = paper;
  all.insert(models.begin(), models.end());
  EXPECT_EQ(pairs, all);
  EXPECT_EQ(visible_pairs.size(), 6u);
  for (const auto& [n, k] : all)
    for (int64_t m : ms) EXPECT_TRUE(seen.count({m, n, k})) << m << "x" << n << "x" << k;
  EXPECT_EQ(task.shapes.size(), all.size() * ms.size() + 1) << "plus the paper's M = 8192";
  // Timed: three visible (two prefill, one decode), two hidden (decode, mixed).
  std::vector<std::string> timed;
  for (const ShapeCase& s : task.shapes)
    if (s.timed)
      timed.push_back(s.shape.to_string() + (s.hidden ? " hidden " : " visible ") + s.regime);
  EXPECT_EQ(timed, (std::vector<std::string>{
                       "M=8192 N=7168 K=5120 visible prefill", "M=16 N=4096 K=14336 visible decode",
                       "M=4096 N=28672 K=4096 visible prefill", "M=64 N=5120 K=17408 hidden decode",
                       "M=2048 N=34816 K=5120 hidden mixed"}));
}

}  // namespace
}  // namespace ptxb
