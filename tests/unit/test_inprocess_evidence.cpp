// The in-process evidence's parent side (eval/inprocess_evidence.hpp): the worker's records as
// controls and calls, and their comparison with Nsight Compute's kernels. No GPU, no process.
#include <gtest/gtest.h>

#include "controls/evidence_names.hpp"
#include "controls/flop_classes.hpp"
#include "core/error.hpp"
#include "eval/config.hpp"
#include "eval/inprocess_evidence.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

// A listing in cuobjdump's form: each function's instructions at 16-byte offsets.
std::string listing(const std::vector<std::pair<std::string, std::vector<std::string>>>& fns) {
  std::string out;
  for (const auto& [name, ops] : fns) {
    out += "\t\tFunction : " + name + "\n";
    char pc[16];
    for (size_t i = 0; i < ops.size(); ++i) {
      std::snprintf(pc, sizeof pc, "%04zx", i * 16);
      out += "        /*" + std::string(pc) + "*/                   " + ops[i] +
             " ;  /* 0x000000000000000000000000 */\n";
    }
  }
  return out;
}

const std::string kControls = listing({{kControlKernelName, {"HGMMA.64x8x16.F32.BF16", "EXIT"}},
                                       {kFlopControlKernelName, {"FFMA", "HFMA2", "EXIT"}}});
const std::string kCandidate = listing(
    {{"_Z4gemmv", {"HGMMA.64x256x16.F32.BF16", "FMUL", "EXIT"}}, {"_Z6reducev", {"FADD", "EXIT"}}});

json records(const std::vector<std::string>& functions, const json& pcs) {
  return {{"functions", functions}, {"pcs", pcs}};
}

std::vector<json> run_messages() {
  return {
      {{"type", "evidence_control"},
       {"live", true},
       {"records", records({kControlKernelName}, {{0, 0, 4, 128}, {0, 16, 4, 128}})}},
      {{"type", "evidence_control"},
       {"live", false},
       {"records", records({kControlKernelName}, {{0, 16, 4, 128}})}},
      {{"type", "evidence_control"},
       {"live", true},
       {"records", records({kFlopControlKernelName}, {{0, 0, 256, 8192}, {0, 16, 512, 16384}})}},
      {{"type", "evidence_call"},
       {"plan_status", 0},
       {"records", records({"_Z4gemmv", "_Z6reducev"},
                           {{0, 0, 1000, 32000}, {0, 16, 10, 300}, {1, 0, 5, 160}})}},
      {{"type", "evidence_call"}, {"plan_status", 3}},  // a plan that failed: no call
  };
}

TEST(SplitFromRecords, ControlsAndCallsByTheirListings) {
  const SplitKernels s = split_from_records(run_messages(), kControls, kCandidate);
  ASSERT_TRUE(s.problem.empty()) << s.problem;
  ASSERT_TRUE(s.positive && s.negative && s.flop);
  EXPECT_EQ(s.positive->opcodes.at("HGMMA.64x8x16.F32.BF16"), 4);
  EXPECT_EQ(s.negative->opcodes.count("HGMMA.64x8x16.F32.BF16"), 0u);
  EXPECT_EQ(s.flop->metrics.at("smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"), 16384);
  ASSERT_EQ(s.calls.size(), 1u);
  ASSERT_EQ(s.calls[0].size(), 1u);  // one kernel for the call's functions
  const ProfiledKernel& call = s.calls[0][0];
  EXPECT_EQ(call.name, "gemm + reduce");
  EXPECT_EQ(call.executed_total, 1015);
  EXPECT_EQ(call.opcodes.at("HGMMA.64x256x16.F32.BF16"), 1000);
  EXPECT_EQ(call.opcodes.at("FADD"), 5);
  EXPECT_EQ(call.metrics.at("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"), 160);
  EXPECT_EQ(call.metrics.at("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"), 300);
}

// The counted runs' messages of run_messages(): three controls and the one planned call.
std::vector<json> counted_messages(double call_gmma) {
  const char* gmma = "sm__inst_executed_pipe_tensor_op_gmma.sum";
  std::vector<json> out;
  for (const char* control : {kControlKernelName, kControlKernelName, kFlopControlKernelName})
    out.push_back({{"type", "evidence_counters"},
                   {"control", control},
                   {"counted", {{"launches", 1}, {"values", {{gmma, 4.0}}}}}});
  out.push_back({{"type", "evidence_counters"},
                 {"shape", {{"M", 1}}},
                 {"plan_status", 0},
                 {"counted", {{"launches", 3}, {"values", {{gmma, call_gmma}}}}}});
  out.push_back({{"type", "evidence_counters"}, {"shape", {{"M", 2}}}, {"plan_status", 3}});
  return out;
}

TEST(SplitFromRecords, CountedRunsJoinTheirControlOrCall) {
  const char* gmma = "sm__inst_executed_pipe_tensor_op_gmma.sum";
  std::vector<json> m = counted_messages(1000);
  for (const json& x : run_messages()) m.push_back(x);
  const SplitKernels s = split_from_records(m, kControls, kCandidate);
  ASSERT_TRUE(s.problem.empty()) << s.problem;
  EXPECT_EQ(s.calls[0][0].metrics.at(gmma), 1000.0);
  EXPECT_EQ(s.positive->metrics.at(gmma), 4.0);
  EXPECT_EQ(s.flop->metrics.at(gmma), 4.0);
  // Without counted runs nothing is added; with a call's count missing the run is refused.
  EXPECT_EQ(
      split_from_records(run_messages(), kControls, kCandidate).calls[0][0].metrics.count(gmma),
      0u);
  m = counted_messages(1000);
  m.erase(m.begin() + 3);
  for (const json& x : run_messages()) m.push_back(x);
  EXPECT_NE(split_from_records(m, kControls, kCandidate).problem.find("do not match"),
            std::string::npos);
  m = counted_messages(1000);
  m[3]["counted"]["values"] = "none";
  for (const json& x : run_messages()) m.push_back(x);
  EXPECT_FALSE(split_from_records(m, kControls, kCandidate).problem.empty());
}

TEST(SplitFromRecords, CodeNeitherListingHasIsAProblem) {
  std::vector<json> m = run_messages();
  m[3]["records"] = records({"_Z7foreignv"}, {{0, 0, 1, 32}});
  EXPECT_NE(split_from_records(m, kControls, kCandidate).problem.find("_Z7foreignv"),
            std::string::npos);
  m = run_messages();
  m[3]["records"] = records({"_Z4gemmv"}, {{0, 8, 1, 32}});  // between two instructions
  EXPECT_FALSE(split_from_records(m, kControls, kCandidate).problem.empty());
  m = run_messages();
  m[0].erase("records");
  EXPECT_FALSE(split_from_records(m, kControls, kCandidate).problem.empty());
  m = run_messages();
  m[3]["records"]["pcs"] = {{7, 0, 1, 32}};  // no function 7
  EXPECT_FALSE(split_from_records(m, kControls, kCandidate).problem.empty());
  m = run_messages();
  m.erase(m.begin() + 2);  // two controls
  EXPECT_FALSE(split_from_records(m, kControls, kCandidate).problem.empty());
  m = run_messages();  // the candidate calling a control's kernel: not in its listing
  m[3]["records"] = records({kFlopControlKernelName}, {{0, 0, 1, 32}});
  EXPECT_FALSE(split_from_records(m, kControls, kCandidate).problem.empty());
}

// ncu's form of the same run: per launch, gemm in two launches with its counts split between
// them, then reduce; names with parameter lists.
SplitKernels ncu_form(const SplitKernels& own) {
  SplitKernels out = own;
  const ProfiledKernel& total = own.calls[0][0];
  ProfiledKernel first, second, reduce;
  first.name = second.name = "gemm()";
  reduce.name = "reduce()";
  for (const auto& [op, n] : total.opcodes) {
    if (op == "FADD" || op == "EXIT") {
      reduce.opcodes[op] = op == "FADD" ? n : 0;
      continue;
    }
    first.opcodes[op] = n / 2;
    second.opcodes[op] = n - n / 2;
  }
  for (const auto& [m, v] : total.metrics) {
    const bool fadd = m.find("_fadd_") != std::string::npos;
    (fadd ? reduce : second).metrics[m] = v;
    if (!fadd) first.metrics[m] = 0;
  }
  out.calls[0] = {first, second, reduce};
  return out;
}

TEST(CompareProfiles, LaunchesOfOneKernelAreSummedBeforeComparing) {
  const SplitKernels own = split_from_records(run_messages(), kControls, kCandidate);
  const json c = compare_profiles(ncu_form(own), own);
  EXPECT_TRUE(c["same"].get<bool>()) << c.dump(1);
  EXPECT_EQ(c["calls"].size(), 1u);
  EXPECT_EQ(c["calls"][0]["kernels"], "gemm + reduce");
  EXPECT_EQ(c["calls"][0]["in_process_kernels"], "gemm + reduce");
  EXPECT_EQ(c["controls"].size(), 3u);
}

TEST(CompareProfiles, ADifferentCountOrClassOrCallCountIsReported) {
  const SplitKernels own = split_from_records(run_messages(), kControls, kCandidate);
  SplitKernels ncu = ncu_form(own);
  ncu.calls[0][2].opcodes["FADD"] += 1;
  json c = compare_profiles(ncu, own);
  EXPECT_FALSE(c["same"].get<bool>());
  EXPECT_EQ(c["calls"][0]["opcodes"]["FADD"]["ncu"], 6);
  ncu = ncu_form(own);
  ncu.flop->metrics["smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"] = 1;
  c = compare_profiles(ncu, own);
  EXPECT_FALSE(c["same"].get<bool>());
  EXPECT_TRUE(c["controls"][2]["classes"].contains("hfma"));
  ncu = ncu_form(own);
  ncu.calls.push_back({});
  EXPECT_FALSE(compare_profiles(ncu, own)["same"].get<bool>());
  ncu = ncu_form(own);
  ncu.calls[0].pop_back();  // a kernel only one side saw
  c = compare_profiles(ncu, own);
  EXPECT_FALSE(c["same"].get<bool>());
  EXPECT_EQ(c["calls"][0]["kernels"], "gemm");
}

TEST(CompareProfiles, CountersBothReadAgreeWithinATenthOfAPercent) {
  SplitKernels own = split_from_records(run_messages(), kControls, kCandidate);
  own.calls[0][0].metrics["lts__bytes.sum"] = 1e6;
  SplitKernels ncu = ncu_form(own);
  // The call's launches summing to 0.9996e6: within 0.1% of 1e6.
  ncu.calls[0][0].metrics["lts__bytes.sum"] = 0.4e6;
  ncu.calls[0][1].metrics["lts__bytes.sum"] = 0.5996e6;
  ncu.calls[0][2].metrics["lts__bytes.sum"] = 0;
  ncu.calls[0][1].metrics["gpu__time_duration.sum"] = 1234;  // ncu's only: not compared
  EXPECT_TRUE(compare_profiles(ncu, own)["same"].get<bool>());
  ncu.calls[0][1].metrics["lts__bytes.sum"] = 0.59e6;
  const json c = compare_profiles(ncu, own);
  EXPECT_FALSE(c["same"].get<bool>());
  EXPECT_TRUE(c["calls"][0]["counters"].contains("lts__bytes.sum"));
}

TEST(CompareJudgements, LevelsAvailabilityAndFindingsDecideTextsDoNot) {
  RuntimeJudgement ncu;
  ncu.available = true;
  ncu.targets["wgmma"].r1 = true;
  ncu.targets["wgmma"].r2 = true;
  RuntimeJudgement own = ncu;
  own.targets["wgmma"].measured_min_flop_share = 0.5;  // a figure, not a level
  EXPECT_TRUE(compare_judgements(ncu, own)["same"].get<bool>());
  own.pass_disagreement = "kernel k: 1 GMMA executions counted by opcode, 2 by the counter";
  EXPECT_FALSE(compare_judgements(ncu, own)["same"].get<bool>());
  own = ncu;
  own.targets["wgmma"].r2 = std::nullopt;
  const json c = compare_judgements(ncu, own);
  EXPECT_FALSE(c["same"].get<bool>());
  EXPECT_EQ(c["in_process"]["targets"]["wgmma"]["R2"], "unavailable");
  own = ncu;
  own.available = false;
  EXPECT_FALSE(compare_judgements(ncu, own)["same"].get<bool>());
}

// Sets a variable for one scope and puts back what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(EvidenceMechanismSetting, ReadFromTheEnvironmentWithItsCupti) {
  {
    ScopedEnv mechanism("PTXBENCH_EVIDENCE", "in_process");
    ScopedEnv cupti("PTXBENCH_CUPTI_DIR", "/opt/cupti-13.2");
    const EvalConfig c = EvalConfig::from_environment();
    EXPECT_EQ(c.evidence_mechanism, EvidenceMechanism::kInProcess);
    EXPECT_EQ(c.in_process_evidence.cupti_dir, "/opt/cupti-13.2");
    EXPECT_EQ(c.to_json()["evidence_mechanism"], "in_process");
  }
  {
    ScopedEnv mechanism("PTXBENCH_EVIDENCE", "compare");
    EXPECT_EQ(EvalConfig::from_environment().evidence_mechanism, EvidenceMechanism::kCompare);
  }
  {
    ScopedEnv mechanism("PTXBENCH_EVIDENCE", "");  // empty: the default
    EXPECT_EQ(EvalConfig::from_environment().evidence_mechanism, EvidenceMechanism::kNcu);
  }
  ScopedEnv mechanism("PTXBENCH_EVIDENCE", "cupti");
  EXPECT_THROW(EvalConfig::from_environment(), InputError);
}

}  // namespace
}  // namespace ptxb
