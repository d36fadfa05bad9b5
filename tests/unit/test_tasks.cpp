// Task specs: the shipped tasks load and keep their promises (hidden shapes stay out of prompts),
// and every kind of broken task file fails with the file and the field named.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <regex>
#include <set>

#include "core/error.hpp"
#include "families/family.hpp"
#include "families/structured_values.hpp"
#include "shipped_tasks.hpp"
#include "sys/files.hpp"
#include "tasks/spec.hpp"
#include "tasks/task_json.hpp"
#include "tasks/task_wire.hpp"

namespace ptxb {
namespace {

using testing::catalog;
using testing::kTasksRoot;
const std::filesystem::path kFixtures = std::filesystem::path(PTXB_FIXTURE_DIR) / "tasks";

Shape mnk(int64_t m, int64_t n, int64_t k) { return Shape{{{"M", m}, {"N", n}, {"K", k}}}; }

TEST(Tasks, ShippedGemmTasksLoad) {
  const std::vector<TaskSpec> tasks = load_all_tasks(kTasksRoot, catalog());
  std::set<std::string> ids;
  for (const TaskSpec& task : tasks) ids.insert(task.id);
  EXPECT_TRUE(ids.count("sm90/gemm/bf16-wgmma"));
  EXPECT_TRUE(ids.count("sm90/gemm/bf16-wgmma-tma"));
  EXPECT_TRUE(std::is_sorted(tasks.begin(), tasks.end(),
                             [](const TaskSpec& a, const TaskSpec& b) { return a.id < b.id; }));
}

TEST(Tasks, GemmTasksHaveTheAgreedContent) {
  for (const std::string id : {"sm90/gemm/bf16-wgmma", "sm90/gemm/bf16-wgmma-tma"}) {
    SCOPED_TRACE(id);
    const TaskSpec task = find_task(kTasksRoot, catalog(), id);
    EXPECT_EQ(task.id, id);
    EXPECT_EQ(task.arch, "sm_90a");
    EXPECT_EQ(task.family, "gemm");
    EXPECT_EQ(task.dims, (std::vector<std::string>{"M", "N", "K"}));
    ASSERT_EQ(task.inputs().size(), 2u);
    ASSERT_EQ(task.outputs().size(), 1u);
    EXPECT_EQ(task.inputs()[0]->name, "A");
    EXPECT_EQ(task.inputs()[0]->dims, (std::vector<std::string>{"M", "K"}));
    EXPECT_EQ(task.inputs()[1]->name, "B");
    EXPECT_EQ(task.inputs()[1]->dims, (std::vector<std::string>{"N", "K"}));
    EXPECT_EQ(task.outputs()[0]->name, "C");
    EXPECT_EQ(task.outputs()[0]->dims, (std::vector<std::string>{"M", "N"}));
    for (const TensorSpec& tensor : task.tensors) {
      EXPECT_EQ(tensor.dtype, DType::kBF16);
      EXPECT_EQ(tensor.layout, "row_major");
    }

    ASSERT_EQ(task.visible_shapes().size(), 4u);
    EXPECT_GE(task.hidden_shapes().size(), 4u);
    int skinny = 0;
    int untiled = 0;
    for (const ShapeCase& s : task.shapes) {
      EXPECT_EQ(s.shape.at("K") % 8, 0) << s.shape.to_string();
      EXPECT_DOUBLE_EQ(s.flops, 2.0 * static_cast<double>(s.shape.at("M")) *
                                    static_cast<double>(s.shape.at("N")) *
                                    static_cast<double>(s.shape.at("K")))
          << "computed once at load by the family's rule";
      EXPECT_LE(s.flops, 2.0 * 8192 * 8192 * 8192);
      if (s.hidden && s.shape.at("M") <= 128) ++skinny;
      if (s.hidden && (s.shape.at("M") % 64 || s.shape.at("N") % 64 || s.shape.at("K") % 64))
        ++untiled;
    }
    EXPECT_GE(skinny, 1);
    EXPECT_GE(untiled, 2);
    EXPECT_EQ(task.multiple_of, (Shape{{{"K", 8}}}));
    const auto timed_visible = [&](const Shape& shape) {
      for (const ShapeCase* s : task.visible_shapes())
        if (s->shape == shape) return s->timed;
      ADD_FAILURE() << "missing visible shape " << shape.to_string();
      return false;
    };
    EXPECT_TRUE(timed_visible(mnk(4096, 4096, 4096)));
    EXPECT_TRUE(timed_visible(mnk(8192, 8192, 8192)));
    EXPECT_FALSE(timed_visible(mnk(1024, 1024, 1024)));
    EXPECT_FALSE(timed_visible(mnk(2048, 512, 1024)));

    ASSERT_FALSE(task.targets.empty());
    EXPECT_EQ(task.targets[0].instruction, "wgmma.mma_async");
    EXPECT_DOUBLE_EQ(task.targets[0].min_flop_share, 0.9);
    for (const TargetSpec& target : task.targets) EXPECT_EQ(target.required, EvidenceLevel::kR2);

    EXPECT_EQ(task.correctness.reference, "gemm_fp32");
    EXPECT_EQ(task.correctness.seeds, (std::vector<uint64_t>{1, 2, 3}));
    ASSERT_EQ(task.correctness.distributions.size(), 2u);
    const DistributionSpec& normal = task.correctness.distributions[0];
    EXPECT_EQ(normal.kind, DistributionSpec::Kind::kNormal);
    EXPECT_DOUBLE_EQ(normal.rtol, 2 * unit_roundoff(DType::kBF16));
    EXPECT_DOUBLE_EQ(normal.atol, 1e-2);
    EXPECT_DOUBLE_EQ(normal.max_rel_frobenius, 4e-3);
    EXPECT_FALSE(normal.round_reference);
    const DistributionSpec& ints = task.correctness.distributions[1];
    EXPECT_EQ(ints.kind, DistributionSpec::Kind::kUniformInt);
    EXPECT_EQ(ints.scale, 2);
    EXPECT_EQ(ints.atol, 0);
    EXPECT_EQ(ints.rtol, 0);
    EXPECT_TRUE(ints.round_reference);

    EXPECT_EQ(task.baseline.library, "cublaslt");
    EXPECT_EQ(task.baseline.heuristic_algos, 32);
    EXPECT_EQ(task.baseline.workspace_bytes, 32ll << 20);
    EXPECT_NE(task.prompt.find("ptxb_run"), std::string::npos);
    EXPECT_NE(task.prompt.find("```cuda"), std::string::npos);
    EXPECT_NE(task.prompt.find("compute_90a,code=sm_90a"), std::string::npos);
  }
  const TaskSpec tma = find_task(kTasksRoot, catalog(), "sm90/gemm/bf16-wgmma-tma");
  ASSERT_EQ(tma.targets.size(), 3u);
  EXPECT_EQ(tma.targets[1].instruction, "cp.async.bulk.tensor");
  EXPECT_EQ(tma.targets[2].instruction, "mbarrier.try_wait");
}

std::string squeeze(const std::string& text) {
  std::string out;
  for (char c : text)
    if (c != ' ' && c != '\t') out += c;
  return out;
}

bool is_small_power_of_two(int64_t v) { return v <= 256 && (v & (v - 1)) == 0; }

TEST(Tasks, PromptsListVisibleShapesAndNeverHiddenOnes) {
  for (const TaskSpec& task : load_all_tasks(kTasksRoot, catalog())) {
    SCOPED_TRACE(task.id);
    const std::string table = squeeze(task.prompt);
    std::set<int64_t> visible_sizes;
    for (const ShapeCase* s : task.visible_shapes()) {
      std::string row = "|";
      for (const auto& [dim, size] : s->shape.dims) {
        if (dim == "causal") {  // a parameter, written yes/no in the prompt's table
          row += std::string(size != 0 ? "yes" : "no") + "|";
          continue;
        }
        row += std::to_string(size) + "|";
        visible_sizes.insert(size);
      }
      EXPECT_NE(table.find(row), std::string::npos) << "visible shape not in prompt: " << row;
    }
    // A hidden size that no visible shape has must not appear as a number in the prompt. Small
    // powers of two are exempt: they are tile sizes in prose ("multiples of 64").
    for (const ShapeCase* s : task.hidden_shapes()) {
      for (const auto& [dim, size] : s->shape.dims) {
        if (dim == "causal" || visible_sizes.count(size) || is_small_power_of_two(size)) continue;
        const std::regex number("(^|[^0-9.])" + std::to_string(size) + "([^0-9]|$)");
        EXPECT_FALSE(std::regex_search(task.prompt, number))
            << "hidden size " << size << " (" << s->shape.to_string() << ") appears in prompt";
      }
    }
  }
}

TEST(Tasks, ValidFixtureAndDefaults) {
  const TaskSpec task = load_task(kFixtures / "valid/task.toml", catalog());
  EXPECT_EQ(task.id, "sm90/gemm/fixture-valid");
  EXPECT_EQ(task.level, 1);
  EXPECT_EQ(task.dir, kFixtures / "valid");
  EXPECT_EQ(task.tensors[0].layout, "row_major");  // default
  ASSERT_EQ(task.shapes.size(), 2u);
  EXPECT_EQ(task.shapes[0].shape, mnk(256, 256, 256));
  EXPECT_TRUE(task.shapes[0].timed);
  EXPECT_FALSE(task.shapes[0].hidden);
  EXPECT_TRUE(task.shapes[1].hidden);
  EXPECT_FALSE(task.shapes[1].timed);
  EXPECT_EQ(task.targets[0].required, EvidenceLevel::kR2);
  EXPECT_DOUBLE_EQ(task.targets[0].min_flop_share, 0.5);
  EXPECT_EQ(task.targets[1].required, EvidenceLevel::kS0);
  EXPECT_EQ(task.correctness.distributions[0].max_rel_frobenius, 0);  // default: not checked
  EXPECT_FALSE(task.correctness.distributions[0].round_reference);
  EXPECT_EQ(task.baseline.heuristic_algos, 32);
  EXPECT_EQ(task.baseline.workspace_bytes, 32ll << 20);
  EXPECT_EQ(task.prompt, "Fixture prompt: multiply A by B transposed.\n");
  EXPECT_DOUBLE_EQ(family_of(task.family).flops(mnk(100, 60, 40)), 2.0 * 100 * 60 * 40);
}

struct BrokenCase {
  const char* folder;   ///< under tests/fixtures/tasks/broken
  const char* field;    ///< the field path the message must name
  const char* problem;  ///< a fragment of the problem text
};

const std::vector<BrokenCase> kBrokenCases = {
    BrokenCase{"missing-id", "id:", "required field is missing"},
    BrokenCase{"bad-dtype", "tensors[0].dtype:", "'bf17'"},
    BrokenCase{"unknown-dim", "tensors[0].shape[1]:", "'Q' is neither declared in dims"},
    BrokenCase{"shape-missing-k", "shapes[0].K:", "required field is missing"},
    BrokenCase{"negative-size", "shapes[1].N:", "must be a positive integer"},
    BrokenCase{"float-size", "shapes[0].M:", "expected an integer, got float"},
    BrokenCase{"not-multiple", "shapes[0].K:", "not a multiple of 8"},
    BrokenCase{"duplicate-shape", "shapes[1]:", "duplicate shape"},
    BrokenCase{"unknown-target", "targets[0].instruction:", "not in the instruction catalog"},
    BrokenCase{"wrong-arch-target", "targets[0].instruction:", "'tcgen05.mma'"},
    BrokenCase{"unknown-key", "shapes[1].hiden:", "unknown key"},
    BrokenCase{"unknown-top-key", "titel:", "unknown key"},
    BrokenCase{"no-hidden", "shapes:", "at least one hidden shape"},
    BrokenCase{"no-visible", "shapes:", "at least one visible shape"},
    BrokenCase{"bad-arch", "arch:", "'sm_90'"},
    BrokenCase{"bad-family", "family:", "'conv'"},
    BrokenCase{"id-arch-mismatch", "id:", "must start with 'sm90/'"},
    BrokenCase{"bad-level-name", "targets[0].required:", "'S3'"},
    BrokenCase{"causal-gemm", "shapes[0].causal:", "family gemm has no causal mask"},
    BrokenCase{"flop-share-range", "targets[0].min_flop_share:", "(0, 1]"},
    BrokenCase{"flop-share-non-mma", "targets[1].min_flop_share:", "only MMA targets"},
    BrokenCase{"duplicate-target", "targets[1].instruction:", "duplicate target"},
    BrokenCase{"empty-seeds", "correctness.seeds:", "at least one seed"},
    BrokenCase{"duplicate-seeds", "correctness.seeds[2]:", "duplicate seed 7"},
    BrokenCase{"bad-kind", "correctness.distributions[0].kind:", "'gaussian'"},
    BrokenCase{"negative-atol", "correctness.distributions[0].atol:", ">= 0"},
    BrokenCase{"no-distributions", "correctness.distributions:", "required field is missing"},
    BrokenCase{"bad-baseline", "baseline.library:", "'cutlass'"},
    BrokenCase{"cudnn-gemm", "baseline.library:", "'cudnn' cannot time family gemm"},
    BrokenCase{"wrong-reference",
               "correctness.reference:", "'attention_fwd_fp32' is not a reference of family gemm"},
    BrokenCase{"unused-dim", "dims:", "'L' is not used by any tensor"},
    BrokenCase{"missing-family-tensor", "tensors:", "a gemm task must declare the out tensor 'C'"},
    BrokenCase{"family-tensor-dtype",
               "tensors:", "tensor 'A' of a gemm task must be bf16, not f16"},
    BrokenCase{"family-tensor-role", "tensors:", "tensor 'B' must have role \"in\" in a gemm task"},
    BrokenCase{"no-output", "tensors:", "no tensor has role \"out\""},
    BrokenCase{"syntax-error", "line 3", "TOML syntax error"},
    BrokenCase{"missing-prompt", "prompt:", "prompt.md"},
    BrokenCase{"unknown-scalar", "scalars[0]:", "'alpha' is not a scalar of family gemm"},
    BrokenCase{"unknown-output-tolerance",
               "correctness.distributions[0].outputs.A:", "'A' is not an output tensor"},
    BrokenCase{"sequence-offsets-fit", "shapes:", "cannot hold T = 200 tokens (cu_seqlens)"},
    BrokenCase{"sequence-offsets-max", "tensors[3].values.max:", "required field is missing"}};

class BrokenTask : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(BrokenTask, FailsNamingFileAndField) {
  const BrokenCase& c = GetParam();
  const std::filesystem::path file = kFixtures / "broken" / c.folder / "task.toml";
  try {
    load_task(file, catalog());
    FAIL() << "no InputError for " << file;
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(file.string() + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(std::string(": ") + c.field), std::string::npos) << message;
    EXPECT_NE(message.find(c.problem), std::string::npos) << message;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, BrokenTask, ::testing::ValuesIn(kBrokenCases),
                         [](const ::testing::TestParamInfo<BrokenCase>& info) {
                           std::string name = info.param.folder;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

TEST(Families, TheRegistryAnswersForEveryFamilyATaskCanName) {
  ASSERT_EQ(known_families(),
            (std::vector<std::string>{"gemm", "attention_fwd", "attention_bwd", "gemm_bias_gelu",
                                      "gemm_fp8", "gemm_fp8_blockwise", "gemm_grouped",
                                      "attention_fwd_varlen", "attention_decode_paged"}));
  for (const std::string& name : known_families()) {
    const Family& f = family_of(name);
    EXPECT_EQ(f.name(), name);
    EXPECT_FALSE(f.required_dims().empty()) << name;
    EXPECT_FALSE(f.references().empty()) << name;
    EXPECT_FALSE(f.baselines().empty()) << name;
  }
  EXPECT_EQ(find_family("conv"), nullptr);
  EXPECT_DOUBLE_EQ(family_of("gemm").flops(mnk(2, 3, 4)), 48);
  EXPECT_LT(family_of("gemm").report_rank(), family_of("attention_bwd").report_rank());
  EXPECT_THROW(family_of("gemm").scalar_value("scale", mnk(1, 1, 1)), InternalError);
}

// The variable-length task: cu_seqlens [B+1] drawn per shape, max_seqlen = S, and FLOPs summed
// over the lengths its shape implies (not 4 H S^2 D per sequence).
TEST(Families, VarlenTaskCountsTheFlopsOfItsLengths) {
  const TaskSpec task = find_task(kTasksRoot, catalog(), "sm90/attention/fwd-varlen");
  EXPECT_EQ(task.family, "attention_fwd_varlen");
  ASSERT_EQ(task.inputs().size(), 4u);
  const TensorSpec& cu = *task.inputs()[3];
  ASSERT_TRUE(cu.values.has_value());
  EXPECT_EQ(cu.values->kind, "sequence_offsets");
  EXPECT_EQ(cu.values->max, "S");
  const Family& f = family_of(task.family);
  for (const ShapeCase& s : task.shapes) {
    const std::vector<int64_t> o =
        shape_sequence_offsets(s.shape.at("B"), s.shape.at("T"), s.shape.at("S"));
    double flops = 0;
    for (size_t b = 0; b + 1 < o.size(); ++b) {
      const double len = static_cast<double>(o[b + 1] - o[b]);
      flops += 4.0 * static_cast<double>(s.shape.at("H") * s.shape.at("D")) * len * len;
    }
    if (s.shape.find("causal").value_or(0) != 0) flops /= 2;
    EXPECT_DOUBLE_EQ(s.flops, flops) << s.shape.to_string();
    EXPECT_EQ(f.scalar_value("max_seqlen", s.shape), static_cast<double>(s.shape.at("S")));
    EXPECT_LT(s.flops,
              4.0 * static_cast<double>(s.shape.at("B") * s.shape.at("H") * s.shape.at("D") *
                                        s.shape.at("S") * s.shape.at("S")))
        << "ragged: less work than B padded sequences";
  }
}

// The walkthrough's family (docs/adding-a-task-family.md): its task loads, with the bias as a
// fourth tensor the loader requires, and counts the matrix product's FLOPs.
TEST(Families, GemmBiasGeluTaskLoadsWithItsBias) {
  const TaskSpec task = find_task(kTasksRoot, catalog(), "sm90/gemm_bias_gelu/bf16-wgmma-tma");
  EXPECT_EQ(task.family, "gemm_bias_gelu");
  ASSERT_EQ(task.inputs().size(), 3u);
  EXPECT_EQ(task.inputs()[2]->name, "bias");
  EXPECT_EQ(task.inputs()[2]->dims, (std::vector<std::string>{"N"}));
  EXPECT_EQ(task.correctness.reference, "gemm_bias_gelu_fp32");
  for (const ShapeCase& s : task.shapes)
    EXPECT_DOUBLE_EQ(s.flops, family_of("gemm").flops(s.shape)) << s.shape.to_string();
  EXPECT_GT(family_of("gemm_bias_gelu").report_rank(), family_of("attention_bwd").report_rank());
}

TEST(TaskWire, EveryTaskSurvivesTheTripToTheWorker) {
  const Catalog catalog = load_catalog(kTasksRoot / "catalog");
  for (const TaskSpec& task : load_all_tasks(kTasksRoot, catalog)) {
    const nlohmann::json sent = task_detail_json(task, HiddenShapes::kInclude);
    const TaskSpec back = task_from_json(sent);
    nlohmann::json again = task_detail_json(back, HiddenShapes::kInclude);
    again["dir"] = sent["dir"];  // the worker gets no folder
    EXPECT_EQ(again, sent) << task.id;
    ASSERT_EQ(back.shapes.size(), task.shapes.size());
    for (size_t i = 0; i < task.shapes.size(); ++i)
      EXPECT_EQ(back.shapes[i].shape, task.shapes[i].shape) << task.id << " keeps dims in order";
  }
  EXPECT_THROW(task_from_json({{"id", "x"}}), InputError);
  const auto counters = catalog.counters_for("sm_90a");
  const auto round = counters_from_json(counters_json(counters));
  ASSERT_EQ(round.size(), counters.size());
  EXPECT_EQ(round[2].metric, counters[2].metric);
  EXPECT_EQ(round[2].tolerance, counters[2].tolerance);
}

TEST(Tasks, EveryBrokenFixtureIsCovered) {
  for (const auto& item : std::filesystem::directory_iterator(kFixtures / "broken")) {
    if (!item.is_directory()) continue;
    const std::string folder = item.path().filename().string();
    EXPECT_TRUE(std::any_of(kBrokenCases.begin(), kBrokenCases.end(),
                            [&](const BrokenCase& c) { return folder == c.folder; }))
        << "add a BrokenCase for fixtures/tasks/broken/" << folder;
  }
}

/// A copy of the valid fixture at <root>/<folder> with the id replaced.
void copy_valid_fixture(const std::filesystem::path& root, const std::string& folder,
                        const std::string& id) {
  std::string text = read_file(kFixtures / "valid/task.toml");
  text = std::regex_replace(text, std::regex("id = \"[^\"]*\""), "id = \"" + id + "\"");
  write_file_atomic(root / folder / "task.toml", text);
  write_file_atomic(root / folder / "prompt.md", "A prompt.\n");
}

TEST(Tasks, IdsMustMatchTheirFolders) {
  TempDir root("ptxb-tasks-test");
  copy_valid_fixture(root.path(), "sm90/gemm/one", "sm90/gemm/one");
  copy_valid_fixture(root.path(), "sm90/gemm/two", "sm90/gemm/two");
  EXPECT_EQ(load_all_tasks(root.path(), catalog()).size(), 2u);
  EXPECT_EQ(find_task(root.path(), catalog(), "sm90/gemm/two").id, "sm90/gemm/two");

  copy_valid_fixture(root.path(), "sm90/gemm/three", "sm90/gemm/other");
  try {
    load_all_tasks(root.path(), catalog());
    FAIL() << "id/folder mismatch accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("id: 'sm90/gemm/other' must equal its folder"),
              std::string::npos)
        << e.what();
  }
  // One broken task does not stop another from being found by id.
  EXPECT_EQ(find_task(root.path(), catalog(), "sm90/gemm/one").id, "sm90/gemm/one");
}

TEST(Tasks, UnknownIdListsKnownTasks) {
  try {
    find_task(kTasksRoot, catalog(), "sm90/gemm/no-such-task");
    FAIL() << "unknown id accepted";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("no-such-task"), std::string::npos) << message;
    EXPECT_NE(message.find("sm90/gemm/bf16-wgmma-tma"), std::string::npos) << message;
  }
  EXPECT_THROW(load_all_tasks(kTasksRoot / "no-such-folder", catalog()), InputError);
}

TEST(Tasks, DefaultRootHonoursEnvironment) {
  const char* saved = std::getenv("PTXBENCH_TASKS_DIR");
  const std::string restore = saved ? saved : "";
  setenv("PTXBENCH_TASKS_DIR", "/tmp/elsewhere", 1);
  EXPECT_EQ(default_tasks_root(), std::filesystem::path("/tmp/elsewhere"));
  setenv("PTXBENCH_TASKS_DIR", "", 1);
  EXPECT_EQ(default_tasks_root(), kTasksRoot);
  unsetenv("PTXBENCH_TASKS_DIR");
  EXPECT_EQ(default_tasks_root(), kTasksRoot);
  if (saved) setenv("PTXBENCH_TASKS_DIR", restore.c_str(), 1);
}

TEST(Tasks, EvidenceLevelNames) {
  for (EvidenceLevel level :
       {EvidenceLevel::kS0, EvidenceLevel::kS1, EvidenceLevel::kR1, EvidenceLevel::kR2})
    EXPECT_EQ(evidence_level_from_string(to_string(level)), level);
  EXPECT_EQ(evidence_level_from_string("s1"), std::nullopt);
  EXPECT_EQ(evidence_level_from_string("R3"), std::nullopt);
}

TEST(Tasks, JsonHidesHiddenShapesUnlessAsked) {
  const TaskSpec task = find_task(kTasksRoot, catalog(), "sm90/gemm/bf16-wgmma-tma");
  const nlohmann::json summary = task_summary_json(task);
  EXPECT_EQ(summary["visible_shapes"], 4);
  EXPECT_EQ(summary["hidden_shapes"], task.hidden_shapes().size());
  EXPECT_EQ(summary["targets"].size(), 3u);

  const nlohmann::json shown = task_detail_json(task, HiddenShapes::kCountOnly);
  EXPECT_EQ(shown["shapes"].size(), 4u);
  for (const auto& shape : shown["shapes"]) EXPECT_FALSE(shape["hidden"].get<bool>());
  EXPECT_EQ(shown["shapes"][3], (nlohmann::json{{"M", 8192},
                                                {"N", 8192},
                                                {"K", 8192},
                                                {"hidden", false},
                                                {"timed", true},
                                                {"flops", 2.0 * 8192 * 8192 * 8192},
                                                {"bytes", 3.0 * 8192 * 8192 * 2}}));
  const nlohmann::json all = task_detail_json(task, HiddenShapes::kInclude);
  EXPECT_EQ(all["shapes"].size(), task.shapes.size());
  EXPECT_EQ(all["correctness"]["distributions"][1]["round_reference"], true);
  EXPECT_EQ(all["targets"][0]["required"], "R2");
}

TEST(Tasks, AttentionShapesCarryTheCausalParameterAndScalars) {
  const TaskSpec task = find_task(kTasksRoot, catalog(), "sm90/attention/fwd-bf16");
  EXPECT_EQ(task.scalars, (std::vector<std::string>{"scale", "causal"}));
  int causal = 0, plain = 0;
  for (const ShapeCase& sc : task.shapes) {
    const int64_t flag = sc.shape.at("causal");
    ASSERT_TRUE(flag == 0 || flag == 1) << sc.shape.to_string();
    (flag ? causal : plain) += 1;
    const std::vector<double> values = scalar_values(task, sc.shape);
    ASSERT_EQ(values.size(), 2u);
    EXPECT_DOUBLE_EQ(values[0], 1.0 / std::sqrt(static_cast<double>(sc.shape.at("D"))));
    EXPECT_EQ(values[1], static_cast<double>(flag));
  }
  EXPECT_GT(causal, 0);
  EXPECT_GT(plain, 0);
  // A causal shape and the same sizes without the mask are two shapes, not duplicates.
  const Shape& first_timed = task.shapes[1].shape;
  EXPECT_EQ(first_timed.to_string(), "B=4 H=16 HKV=16 S=4096 D=128 causal=0");
}

TEST(Tasks, PerOutputTolerancesOverrideTheDistribution) {
  const TaskSpec task = find_task(kTasksRoot, catalog(), "sm90/attention/fwd-bf16");
  const DistributionSpec& normal = task.correctness.distributions.front();
  EXPECT_GT(normal.atol_rms, 0);
  ASSERT_EQ(normal.outputs.size(), 1u);
  EXPECT_EQ(normal.outputs[0].output, "LSE");
  EXPECT_DOUBLE_EQ(normal.outputs[0].atol, 1e-3);
  EXPECT_EQ(normal.outputs[0].atol_rms, 0) << "LSE is compared in absolute log units";
  EXPECT_EQ(normal.outputs[0].rtol, 0);
  const nlohmann::json detail = task_detail_json(task, HiddenShapes::kCountOnly);
  EXPECT_EQ(detail["correctness"]["distributions"][0]["outputs"]["LSE"]["atol"], 1e-3);
}

}  // namespace
}  // namespace ptxb
