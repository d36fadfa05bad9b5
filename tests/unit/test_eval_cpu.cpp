// The whole pipeline on a machine without a GPU: the real compiler, the real worker (which
// reports that no GPU is there), and the verdicts that follow.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/error.hpp"
#include "eval/pipeline.hpp"
#include "sys/files.hpp"
#include "tasks/catalog.hpp"
#include "tasks/spec.hpp"

namespace ptxb {
namespace {

class EvalCpu : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { cache_ = new TempDir("ptxbench-test-cache"); }
  static void TearDownTestSuite() { delete cache_; }

  EvalConfig config() const {
    EvalConfig c = EvalConfig::from_environment();
    c.worker = std::filesystem::path(PTXB_BINARY_DIR) / "ptxbench-worker";
    c.compile.cache_dir = cache_->path();
    c.worker_deadline = std::chrono::seconds(60);
    return c;
  }
  static Verdict eval(const EvalConfig& c, const std::string& file, const std::string& task) {
    return evaluate({read_file(file), file, task}, c);
  }
  static bool has_gpu() { return std::system("nvidia-smi -L > /dev/null 2>&1") == 0; }
  static TempDir* cache_;
};
TempDir* EvalCpu::cache_ = nullptr;

const std::string kRoot = PTXB_SOURCE_DIR;

TEST_F(EvalCpu, ExpertSolutionGetsStaticEvidenceAndNoGpuVerdict) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present: tests/gpu covers this path";
  const Verdict v = eval(config(), kRoot + "/kernels/reference/sm90_gemm_bf16_wgmma_tma.cu",
                         "sm90/gemm/bf16-wgmma-tma");
  EXPECT_EQ(v.outcome, Outcome::kUnavailable) << v.reason;
  EXPECT_NE(v.reason.find("no suitable GPU"), std::string::npos);
  const auto j = v.to_json();
  EXPECT_EQ(validate_verdict_json(j), "");
  ASSERT_EQ(j["targets"].size(), 3u);
  for (const auto& t : j["targets"]) {
    EXPECT_EQ(t["S0"], true) << t.dump();
    EXPECT_EQ(t["S1"], true) << t.dump();
    EXPECT_EQ(t["R1"], "unavailable");
    EXPECT_EQ(t["met"], false) << "R2 is required and was not measured";
  }
}

// Every expert solution of the attention tasks compiles and shows each target in its SASS.
TEST_F(EvalCpu, AttentionExpertsGetStaticEvidence) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present: bench/attention_session.sh covers this path";
  for (const char* pass : {"fwd", "bwd"}) {
    SCOPED_TRACE(pass);
    const Verdict v =
        eval(config(), kRoot + "/kernels/reference/sm90_attention_" + pass + "_bf16.cu",
             std::string("sm90/attention/") + pass + "-bf16");
    EXPECT_EQ(v.outcome, Outcome::kUnavailable) << v.reason;
    const auto j = v.to_json();
    ASSERT_EQ(j["targets"].size(), 3u);
    for (const auto& t : j["targets"]) {
      EXPECT_EQ(t["S0"], true) << t.dump();
      EXPECT_EQ(t["S1"], true) << t.dump();
    }
  }
}

// Every task has an expert solution (kernels/reference/<id with / and - as _>.cu, what
// `ptxbench run --model reference` answers), it shows every target in its PTX and SASS, and it
// compiles without a warning.
TEST_F(EvalCpu, EveryTaskHasAnExpertWithStaticEvidence) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present: scripts/run-reference.sh covers this path";
  const std::filesystem::path root = std::filesystem::path(kRoot) / "tasks";
  for (const TaskSpec& task : load_all_tasks(root, load_catalog(root / "catalog"))) {
    SCOPED_TRACE(task.id);
    std::string file = task.id;
    for (char& c : file)
      if (c == '/' || c == '-') c = '_';
    const std::filesystem::path expert =
        std::filesystem::path(kRoot) / "kernels/reference" / (file + ".cu");
    ASSERT_TRUE(std::filesystem::exists(expert)) << expert;
    const Verdict v = eval(config(), expert.string(), task.id);
    EXPECT_EQ(v.outcome, Outcome::kUnavailable) << v.reason;
    // The experts are what candidates are measured against and shown as examples: they compile
    // without a warning of nvcc or ptxas (spills included: -warn-spills).
    const std::string log = v.record["compile"]["log"].get<std::string>();
    EXPECT_EQ(log.find("warning"), std::string::npos) << log;
    // ... nor a coded ptxas diagnostic (serialized wgmma, an ignored setmaxnreg, an injected
    // warpgroup wait: "info" lines, which cost an expert its speed without failing anything).
    EXPECT_TRUE(v.record["compile"]["quality_flags"].empty())
        << v.record["compile"]["quality_flags"].dump();
    ASSERT_EQ(v.targets.size(), task.targets.size());
    for (const TargetEvidence& t : v.targets) {
      EXPECT_EQ(t.s0, LevelResult::kYes) << t.instruction;
      EXPECT_EQ(t.s1, LevelResult::kYes) << t.instruction;
    }
  }
}

TEST_F(EvalCpu, BrokenSourceIsCompileErrorWithLog) {
  const Verdict v =
      eval(config(), kRoot + "/tests/e2e/does_not_compile.cu", "sm90/gemm/bf16-wgmma");
  EXPECT_EQ(v.outcome, Outcome::kCompileError);
  EXPECT_NE(v.reason.find("undeclared_variable"), std::string::npos);
  EXPECT_NE(v.record["compile"]["log"].get<std::string>().find("error"), std::string::npos);
  EXPECT_FALSE(v.record.contains("correctness"));
}

TEST_F(EvalCpu, UnknownTaskIsInputError) {
  EXPECT_THROW(eval(config(), kRoot + "/tests/e2e/trap_kernel.cu", "sm90/gemm/nope"), InputError);
}

TEST_F(EvalCpu, MissingWorkerIsOurError) {
  if (has_gpu()) GTEST_SKIP();
  EvalConfig c = config();
  c.worker = "/nonexistent/ptxbench-worker";
  EXPECT_THROW(
      eval(c, kRoot + "/kernels/reference/sm90_gemm_bf16_wgmma.cu", "sm90/gemm/bf16-wgmma"),
      ApiError);
}

}  // namespace
}  // namespace ptxb
