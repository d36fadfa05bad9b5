// The compiler notes of the repair loop's feedback (llm/compiler_notes.hpp), on recorded ptxas
// 13.0 logs (tests/fixtures/compile/recorded) parsed as the static stage parses them.
#include <gtest/gtest.h>

#include <filesystem>

#include "compile/compile_cache.hpp"
#include "compile/ptxas_log.hpp"
#include "llm/compiler_notes.hpp"
#include "llm/feedback.hpp"
#include "sys/files.hpp"
#include "tasks/catalog.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

const std::filesystem::path kRecorded =
    std::filesystem::path(PTXB_FIXTURE_DIR) / "compile" / "recorded";

// The verdict's `compile` record of a compile whose ptxas log is the recorded `log_name`.
json compile_record(const std::string& log_name) {
  const std::string log = read_file(kRecorded / log_name);
  return {{"ok", true},
          {"resources", resources_json(parse_ptxas_resources(log))},
          {"quality_flags", flags_json(parse_quality_flags(log))}};
}

TEST(CompilerNotes, KernelsWithRegistersAndEachCodeOnceWithItsCount) {
  const std::string notes = compiler_notes(compile_record("ptxas_wgmma_loop.log"));
  EXPECT_NE(notes.find("  axpy_kernel: 10 registers, no spills\n"), std::string::npos) << notes;
  EXPECT_NE(notes.find("  wgmma_loop_kernel: 30 registers, no spills\n"), std::string::npos);
  EXPECT_NE(notes.find("  (C7508) Potential Performance Loss: 'setmaxnreg' ignored"),
            std::string::npos);
  EXPECT_NE(notes.find("  (C7517) warpgroup.wait is injected in around line 135 by compiler to "
                       "allow use of registers defined by GMMA in function 'wgmma_loop_kernel' "
                       "(and 1 more C7517)\n"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("wgmma.mma_async instructions are serialized due to insufficient register "
                       "resources for the wgmma pipeline in the function 'wgmma_loop_kernel'\n"),
            std::string::npos);
  EXPECT_EQ(notes.find("_Z"), std::string::npos) << "a mangled name is left: " << notes;
  EXPECT_EQ(notes.find("ptxas info"), std::string::npos);
}

TEST(CompilerNotes, SpillsAndStackFrameShownAndACalleeWithoutThemLeftOut) {
  const std::string notes = compiler_notes(compile_record("ptxas_spill.log"));
  EXPECT_NE(notes.find("  spill: 32 registers, 664 bytes spill stores, 748 bytes spill loads, "
                       "624 bytes stack frame\n"),
            std::string::npos)
      << notes;
  EXPECT_EQ(notes.find("helper"), std::string::npos) << notes;
}

TEST(CompilerNotes, LimitsSayWhatTheyLeaveOut) {
  const std::string notes =
      compiler_notes(compile_record("ptxas_wgmma_loop.log"), {.max_kernels = 1, .max_codes = 2});
  EXPECT_NE(notes.find("  (1 more functions not shown)\n"), std::string::npos) << notes;
  EXPECT_NE(notes.find("  (1 more diagnostic codes not shown)\n"), std::string::npos) << notes;
  EXPECT_EQ(notes.find("C7511"), std::string::npos);
}

TEST(CompilerNotes, NothingToSayIsEmpty) {
  EXPECT_EQ(compiler_notes(json::object()), "");
  EXPECT_EQ(compiler_notes({{"resources", json::array()}, {"quality_flags", json::array()}}), "");
}

TEST(ReadableFunction, AnonymousNamespacesTemplatesAndParametersAsWritten) {
  EXPECT_EQ(readable_function("_Z17wgmma_loop_kernelPfi"), "wgmma_loop_kernel");
  // Kernels of the expert solutions as ptxas names them (a file-local namespace; a template).
  EXPECT_EQ(readable_function("_ZN50_GLOBAL__N__95a7e17c_17_cand_p_grouped_cu_e256a47724grouped_"
                              "gemm_bf16_tma_wsE14CUtensorMap_stS0_S0_bPKiS2_PKNS_9GroupTileEP13__"
                              "nv_bfloat16iiii"),
            "grouped_gemm_bf16_tma_ws");
  EXPECT_EQ(readable_function("_ZN39_GLOBAL__N__fb02d1fd_7_cand_cu_e256a47725gemm_fp8_blockwise_"
                              "tma_wsILi1EEEv14CUtensorMap_stS1_S1_S1_S1_bP13__nv_bfloat16Pfiiiii"),
            "gemm_fp8_blockwise_tma_ws<1>");
  EXPECT_EQ(readable_function("not_mangled"), "not_mangled");
}

TEST(CompilerNotes, InTheFeedbackOfCodeThatCompiledOnly) {
  const std::filesystem::path tasks = std::filesystem::path(PTXB_SOURCE_DIR) / "tasks";
  const TaskSpec task =
      find_task(tasks, load_catalog(tasks / "catalog"), "sm90/gemm/bf16-wgmma-tma");
  json verdict = {{"outcome", "passed"}, {"compile", compile_record("ptxas_wgmma_loop.log")}};
  EXPECT_NE(render_feedback(task, verdict).find("Compiler performance notes (ptxas):\n  (C7508)"),
            std::string::npos)
      << render_feedback(task, verdict);
  verdict["outcome"] = "compile_error";
  verdict["compile"]["ok"] = false;
  EXPECT_EQ(render_feedback(task, verdict).find("Compiler performance notes"), std::string::npos);
}

}  // namespace
}  // namespace ptxb
