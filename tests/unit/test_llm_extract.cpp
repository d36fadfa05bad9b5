// Code extraction from model answers: fences of every kind, prose around them, several blocks,
// unterminated fences, reasoning sections, and answers without code.
#include <gtest/gtest.h>

#include "llm/code_extract.hpp"

namespace ptxb {
namespace {

const std::string kKernel =
    "#include <ptxbench/abi.h>\n"
    "extern \"C\" int ptxb_run(const ptxb_args* args) {\n"
    "  return 0;\n"
    "}\n";

std::string fenced(const std::string& tag, const std::string& code,
                   const std::string& fence = "```") {
  return fence + tag + "\n" + code + fence + "\n";
}

TEST(LlmExtract, SingleCudaBlockWithProse) {
  const std::string answer =
      "Here is my kernel. It uses wgmma.\n\n" + fenced("cuda", kKernel) + "\nIt should be fast.";
  EXPECT_EQ(extract_code(answer), kKernel);
}

TEST(LlmExtract, EveryCodeTagAndUntagged) {
  for (const char* tag :
       {"cuda", "cu", "CUDA", "c++", "cpp", "C++", "c", "cxx", "cc", "cuh", "h", "hpp", "", " cuda",
        "{.cuda}", "cuda title=\"kernel.cu\"", "cu:kernel.cu"})
    EXPECT_EQ(extract_code("Answer:\n" + fenced(tag, kKernel)), kKernel) << "tag '" << tag << "'";
}

TEST(LlmExtract, TildeFencesAndLongerFences) {
  EXPECT_EQ(extract_code(fenced("cuda", kKernel, "~~~")), kKernel);
  EXPECT_EQ(extract_code(fenced("cuda", kKernel, "````")), kKernel);
  // A longer outer fence keeps an inner ``` line as code.
  const std::string inner = "// example:\n// ```\nint x;\n";
  EXPECT_EQ(extract_code("````cpp\n" + inner + "````\n"), inner);
  // A closing fence must use the opening character.
  EXPECT_EQ(extract_code("~~~c\nint a;\n```\nint b;\n~~~\n"), "int a;\n```\nint b;\n");
}

TEST(LlmExtract, UnterminatedFinalFenceTakesTheRest) {
  const std::string answer = "Partial answer (hit max_tokens):\n```cuda\n" + kKernel + "// more";
  EXPECT_EQ(extract_code(answer), kKernel + "// more\n");
  const auto blocks = find_code_blocks(answer);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_FALSE(blocks[0].terminated);
}

TEST(LlmExtract, NoCodeAtAll) {
  EXPECT_EQ(extract_code(""), std::nullopt);
  EXPECT_EQ(extract_code("I cannot write this kernel, sorry."), std::nullopt);
  EXPECT_EQ(extract_code("Use `ptxb_run` with ``inline`` code only."), std::nullopt);
  EXPECT_EQ(extract_code("```cuda\n```\n"), std::nullopt);       // empty block
  EXPECT_EQ(extract_code("```\n   \n\n```\n"), std::nullopt);    // blank block
  EXPECT_EQ(extract_code("```cuda```\nprose\n"), std::nullopt);  // inline, not a fence
  EXPECT_EQ(extract_code("Shell only:\n```bash\nnvcc -o k k.cu\n```\n"), std::nullopt);
}

TEST(LlmExtract, PrefersTheCudaBlockThatDefinesPtxbRun) {
  const std::string helper =
      "__device__ int helper() { return 1; }\n" + std::string(400, ' ') + "\n";
  const std::string caller = "// call it like this\nint r = ptxb_run(&args);\n";
  const std::string answer = fenced("cpp", helper) + "Usage:\n" + fenced("cpp", caller) +
                             "The file:\n" + fenced("cuda", kKernel) +
                             fenced("bash", "nvcc x.cu\n");
  EXPECT_EQ(extract_code(answer), kKernel);
}

TEST(LlmExtract, AmongCudaDefinitionsTheLongestWins) {
  const std::string longer = kKernel + "// tuned version\n";
  EXPECT_EQ(extract_code(fenced("cuda", kKernel) + fenced("cu", longer)), longer);
  EXPECT_EQ(extract_code(fenced("cu", longer) + fenced("cuda", kKernel)), longer);
}

TEST(LlmExtract, ElseTheLongestBlockContainingPtxbRun) {
  // Tagged c++ (not cuda/cu), one defines and one only mentions ptxb_run: the longest wins.
  const std::string mention = "// replaces ptxb_run's tile loop\n" + std::string(300, '/') + "\n";
  const std::string definition = kKernel;
  EXPECT_EQ(extract_code(fenced("cpp", definition) + fenced("cpp", mention)), mention);
  // Untagged blocks count too.
  EXPECT_EQ(extract_code(fenced("", kKernel) + fenced("cpp", "int unrelated;\n")), kKernel);
}

TEST(LlmExtract, ElseTheLongestCxxBlockThenUntagged) {
  const std::string small = "int a;\n", large = "int a;\nint b;\nint c;\n";
  EXPECT_EQ(extract_code(fenced("c", small) + fenced("cpp", large) + fenced("text", large + large)),
            large);
  EXPECT_EQ(extract_code(fenced("python", large + large) + fenced("", small)), small);
  EXPECT_EQ(extract_code(fenced("", large) + fenced("cuda", small)), small);  // tagged first
}

TEST(LlmExtract, DefinitionDetection) {
  EXPECT_TRUE(defines_ptxb_run(kKernel));
  EXPECT_TRUE(defines_ptxb_run("int ptxb_run(const ptxb_args* a)\n{\n}"));
  EXPECT_TRUE(defines_ptxb_run("int ptxb_run(const ptxb_args* a) noexcept { }"));
  EXPECT_TRUE(defines_ptxb_run("int ptxb_run ( f((int)x) ) {"));
  EXPECT_FALSE(defines_ptxb_run("extern \"C\" int ptxb_run(const ptxb_args* args);"));
  EXPECT_FALSE(defines_ptxb_run("return ptxb_run(&args);"));
  EXPECT_FALSE(defines_ptxb_run("ptxb_run_fn f; int my_ptxb_run(int) { }"));
  EXPECT_FALSE(defines_ptxb_run("ptxb_run"));
  EXPECT_FALSE(defines_ptxb_run("int ptxb_run(int"));
}

TEST(LlmExtract, LeadingThinkingIsIgnored) {
  const std::string draft = "```cuda\n// draft that does not define the entry\nint x;\n```\n";
  const std::string answer =
      "<think>\nLet me try:\n" + draft + "</think>\n\n" + fenced("cuda", kKernel);
  EXPECT_EQ(extract_code(answer), kKernel);
  EXPECT_EQ(extract_code("  \n<think>plan</think>no code here"), std::nullopt);
  // Code only inside the reasoning is not the answer.
  EXPECT_EQ(extract_code("<think>" + fenced("cuda", kKernel) + "</think>Sorry."), std::nullopt);
  // Never closed: the answer is all reasoning.
  EXPECT_EQ(extract_code("<think>\n" + fenced("cuda", kKernel)), std::nullopt);
}

TEST(LlmExtract, ClosingTagWithoutOpeningTag) {
  // Templates that open <think> in the prompt leave only the closing tag in the content.
  const std::string answer =
      "reasoning...\n```cuda\nint draft;\n```\n</think>\n" + fenced("cuda", kKernel);
  EXPECT_EQ(strip_thinking(answer).value(), "\n" + fenced("cuda", kKernel));
  EXPECT_EQ(extract_code(answer), kKernel);
  // A text that opens a section later (not at its start) keeps everything.
  const std::string prose = "Models emit <think> tags; they end with </think>.\n";
  EXPECT_EQ(strip_thinking(prose).value(), prose);
  EXPECT_EQ(strip_thinking("no tags").value(), "no tags");
}

TEST(LlmExtract, CrlfAndIndentedFences) {
  EXPECT_EQ(extract_code("Text\r\n```cuda\r\nint a;\r\nint b;\r\n```\r\n"), "int a;\nint b;\n");
  // A fence indented inside a list: its indentation is removed from the code lines.
  EXPECT_EQ(extract_code("1. The file:\n   ```cpp\n   int a;\n     int b;\n   ```\n"),
            "int a;\n  int b;\n");
}

TEST(LlmExtract, BlocksAreListedInOrderWithTags) {
  const auto blocks = find_code_blocks("a\n```CUDA extra\nx\n```\nb\n~~~\ny\n~~~\n```py\nz\n```");
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[0].tag, "cuda");
  EXPECT_EQ(blocks[0].code, "x\n");
  EXPECT_EQ(blocks[1].tag, "");
  EXPECT_EQ(blocks[1].code, "y\n");
  EXPECT_EQ(blocks[2].tag, "py");
  EXPECT_TRUE(blocks[2].terminated);
}

}  // namespace
}  // namespace ptxb
