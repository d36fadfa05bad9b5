// The Blackwell GEMM task sm100/gemm/bf16-tcgen05: its spec keeps the promises of the Hopper TMA
// task (same tensors, shapes, correctness and baseline) with tcgen05 targets, and its expert
// solution compiles for sm_100a with S0 and S1 for every target. No B200 exists here, so this
// static evidence is all that can be checked; the kernel itself has never run.
#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "compile/static_stage.hpp"
#include "compile/tools.hpp"
#include "core/error.hpp"
#include "shipped_tasks.hpp"
#include "sys/files.hpp"
#include "tasks/spec.hpp"

namespace ptxb {
namespace {
namespace fs = std::filesystem;

const fs::path kSourceDir = fs::path(PTXB_SOURCE_DIR);
using testing::catalog;
using testing::kTasksRoot;
constexpr const char* kTaskId = "sm100/gemm/bf16-tcgen05";
const fs::path kExpert = kSourceDir / "kernels/reference/sm100_gemm_bf16_tcgen05.cu";

const TaskSpec& task() {
  static const TaskSpec loaded = find_task(kTasksRoot, catalog(), kTaskId);
  return loaded;
}

TEST(Sm100Task, LoadsWithTheBlackwellArchAndTcgen05Targets) {
  const TaskSpec& t = task();
  EXPECT_EQ(t.id, kTaskId);
  EXPECT_EQ(t.arch, "sm_100a");
  EXPECT_EQ(t.family, "gemm");

  const std::vector<std::string> expected = {"tcgen05.mma", "tcgen05.ld", "cp.async.bulk.tensor",
                                             "mbarrier.try_wait"};
  ASSERT_EQ(t.targets.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(expected[i]);
    EXPECT_EQ(t.targets[i].instruction, expected[i]);
    EXPECT_EQ(t.targets[i].required, EvidenceLevel::kR2);
    const InstructionEntry* entry = catalog().find(expected[i], "sm_100a");
    ASSERT_NE(entry, nullptr);
    EXPECT_EQ(entry->arch, "sm_100a");
  }
  // wgmma is rejected by ptxas for sm_100a; the catalog must not offer it for this arch.
  EXPECT_EQ(catalog().find("wgmma.mma_async", "sm_100a"), nullptr);
}

TEST(Sm100Task, SameProblemAsTheHopperTmaTask) {
  const TaskSpec& t = task();
  const TaskSpec hopper = find_task(kTasksRoot, catalog(), "sm90/gemm/bf16-wgmma-tma");
  EXPECT_EQ(t.dims, hopper.dims);
  EXPECT_EQ(t.multiple_of, (Shape{{{"K", 8}}}));
  ASSERT_EQ(t.tensors.size(), hopper.tensors.size());
  for (size_t i = 0; i < t.tensors.size(); ++i) {
    SCOPED_TRACE(t.tensors[i].name);
    EXPECT_EQ(t.tensors[i].name, hopper.tensors[i].name);
    EXPECT_EQ(t.tensors[i].role, hopper.tensors[i].role);
    EXPECT_EQ(t.tensors[i].dtype, DType::kBF16);
    EXPECT_EQ(t.tensors[i].dims, hopper.tensors[i].dims);
    EXPECT_EQ(t.tensors[i].layout, "row_major");
  }

  ASSERT_EQ(t.shapes.size(), hopper.shapes.size());
  for (size_t i = 0; i < t.shapes.size(); ++i) {
    SCOPED_TRACE(t.shapes[i].shape.to_string());
    EXPECT_EQ(t.shapes[i].shape, hopper.shapes[i].shape);
    EXPECT_EQ(t.shapes[i].hidden, hopper.shapes[i].hidden);
    EXPECT_EQ(t.shapes[i].timed, hopper.shapes[i].timed);
    EXPECT_EQ(t.shapes[i].shape.at("K") % 8, 0);
  }
  EXPECT_EQ(t.visible_shapes().size(), 4u);
  EXPECT_GE(t.hidden_shapes().size(), 4u);

  EXPECT_EQ(t.correctness.reference, hopper.correctness.reference);
  EXPECT_EQ(t.correctness.seeds, hopper.correctness.seeds);
  ASSERT_EQ(t.correctness.distributions.size(), hopper.correctness.distributions.size());
  for (size_t i = 0; i < t.correctness.distributions.size(); ++i) {
    const DistributionSpec& a = t.correctness.distributions[i];
    const DistributionSpec& b = hopper.correctness.distributions[i];
    SCOPED_TRACE(a.name);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.scale, b.scale);
    EXPECT_EQ(a.atol, b.atol);
    EXPECT_EQ(a.rtol, b.rtol);
    EXPECT_EQ(a.max_rel_frobenius, b.max_rel_frobenius);
    EXPECT_EQ(a.round_reference, b.round_reference);
  }
  EXPECT_EQ(t.baseline.library, "cublaslt");
  EXPECT_EQ(t.baseline.heuristic_algos, hopper.baseline.heuristic_algos);
  EXPECT_EQ(t.baseline.workspace_bytes, hopper.baseline.workspace_bytes);
}

TEST(Sm100Task, PromptNamesTheBuildTheTargetsAndTheMissingDevice) {
  const std::string& prompt = task().prompt;
  for (const char* needle :
       {"compute_100a,code=sm_100a", "ptxb_run", "ptxb_plan", "```cuda", "No B200", "S0", "S1",
        "UTCHMMA", "LDTM", "UTMALDG", "SYNCS.PHASECHK.TRANS64.TRYWAIT", "tcgen05.commit",
        "tcgen05.alloc", "tcgen05.dealloc", "tcgen05.wait::ld", "K % 8 == 0"}) {
    EXPECT_NE(prompt.find(needle), std::string::npos) << "prompt lacks: " << needle;
  }
  for (const TargetSpec& target : task().targets)
    EXPECT_NE(prompt.find("`" + target.instruction + "`"), std::string::npos) << target.instruction;
  EXPECT_EQ(prompt.find("compute_90a"), std::string::npos) << "a Hopper build line was left in";
}

// ---- the expert solution, statically (the only check possible without a B200) ----

/// The toolchain the static stage needs, or the reason it is missing.
std::string missing_toolchain() {
  if (default_cuobjdump().empty()) return "no cuobjdump (run scripts/bootstrap.sh)";
  try {
    nvcc_version(default_nvcc());
  } catch (const ApiError& e) {
    return std::string("nvcc cannot run: ") + e.what();
  }
  return "";
}

const CompileResult& compiled_expert() {
  static TempDir cache("ptxbench-test-sm100");
  static const CompileResult result = [] {
    CompileOptions options;
    options.arch = "sm_100a";
    options.cache_dir = cache.path();
    options.nvcc = default_nvcc();
    options.cuobjdump = default_cuobjdump();
    options.abi_include_dir = default_abi_include_dir();
    return compile_submission(read_file(kExpert), options);
  }();
  return result;
}

TEST(Sm100Expert, CompilesForSm100aWithoutSpills) {
  if (const std::string why = missing_toolchain(); !why.empty()) GTEST_SKIP() << why;
  const CompileResult& r = compiled_expert();
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_NE(r.ptx.find(".target sm_100a"), std::string::npos);
  EXPECT_TRUE(r.forbidden_imports.empty()) << r.forbidden_imports.front();
  ASSERT_EQ(r.resources.size(), 1u) << r.log;
  EXPECT_GT(r.resources[0].registers, 0);
  EXPECT_EQ(r.resources[0].spill_store_bytes, 0) << r.log;
  EXPECT_EQ(r.resources[0].stack_frame_bytes, 0) << r.log;
  ASSERT_TRUE(r.sass_available) << r.log;
  ASSERT_EQ(r.sass_functions.size(), 1u) << r.sass;
}

TEST(Sm100Expert, EveryTargetHasS0AndS1InTheKernel) {
  if (const std::string why = missing_toolchain(); !why.empty()) GTEST_SKIP() << why;
  const CompileResult& r = compiled_expert();
  ASSERT_TRUE(r.ok) << r.log;
  ASSERT_TRUE(r.sass_available) << r.log;

  // The task's targets, plus the TMEM bookkeeping the kernel must also contain.
  TaskSpec with_bookkeeping = task();
  for (const char* name : {"tcgen05.alloc", "tcgen05.commit"}) {
    TargetSpec extra;
    extra.instruction = name;
    with_bookkeeping.targets.push_back(extra);
  }
  const auto evidence = static_evidence(with_bookkeeping, catalog(), r);
  ASSERT_EQ(evidence.size(), with_bookkeeping.targets.size());
  const std::string kernel = r.sass_functions[0].name;
  for (const StaticEvidence& e : evidence) {
    SCOPED_TRACE(e.instruction);
    EXPECT_TRUE(e.s0);
    ASSERT_TRUE(e.s1.has_value());
    EXPECT_TRUE(*e.s1);
    EXPECT_EQ(e.s1_functions, std::vector<std::string>{kernel});
    EXPECT_FALSE(e.s1_opcodes.empty());
  }

  const auto count = [&](size_t target) {
    int64_t n = 0;
    for (const auto& [opcode, c] : evidence[target].s1_opcodes) n += c;
    return n;
  };
  // One K block of 64 is four kind::f16 MMAs (K = 16 each); fewer would drop part of the tile.
  EXPECT_GE(count(0), 4);
  EXPECT_TRUE(evidence[0].s1_opcodes.count("UTCHMMA")) << "bf16 MMA should lower to UTCHMMA";
  EXPECT_GE(count(2), 2) << "one TMA load each for A and B";
  EXPECT_TRUE(evidence[2].s1_opcodes.count("UTMALDG.2D"));
  // tcgen05.alloc and tcgen05.dealloc both lower to UTCATOMSWS (FIND_AND_SET / AND).
  EXPECT_TRUE(evidence[4].s1_opcodes.count("UTCATOMSWS.AND")) << "no dealloc";
}

}  // namespace
}  // namespace ptxb
