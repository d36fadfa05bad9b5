// Static stage end to end with the real nvcc and cuobjdump: fixture kernels in
// tests/fixtures/compile are compiled once per test binary into one fresh cache and shared by the
// tests below.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>

#include "compile/compile_cache.hpp"
#include "compile/elf_imports.hpp"
#include "compile/fatbin.hpp"
#include "compile/static_stage.hpp"
#include "compile/tools.hpp"
#include "core/error.hpp"
#include "sys/files.hpp"
#include "tasks/catalog.hpp"
#include "tasks/spec.hpp"

namespace ptxb {
namespace {
namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(PTXB_FIXTURE_DIR) / "compile";

std::string fixture_source(const std::string& name) { return read_file(kFixtures / name); }

/// The cache shared by every test of this binary (removed at exit).
const fs::path& shared_cache_dir() {
  static TempDir dir("ptxbench-test-compile");
  return dir.path();
}

CompileOptions options_with_cache(const fs::path& cache_dir) {
  CompileOptions options;
  options.cache_dir = cache_dir;
  options.nvcc = default_nvcc();
  options.cuobjdump = default_cuobjdump();
  options.abi_include_dir = default_abi_include_dir();
  return options;
}

/// The first (uncached) compile of a fixture; later calls return the same result.
const CompileResult& compiled(const std::string& name) {
  static std::map<std::string, CompileResult> results;
  auto it = results.find(name);
  if (it == results.end()) {
    it = results
             .emplace(name, compile_submission(fixture_source(name),
                                               options_with_cache(shared_cache_dir())))
             .first;
  }
  return it->second;
}

const SassFunction* find_function(const CompileResult& r, const std::string& name) {
  for (const auto& fn : r.sass_functions) {
    if (fn.name == name) return &fn;
  }
  return nullptr;
}

TEST(CompileTools, DisassemblerIsInstalled) {
  // NOTE: CI has one (scripts/bootstrap.sh); without it every S1 test below would be vacuous.
  ASSERT_FALSE(default_cuobjdump().empty()) << "no cuobjdump: run scripts/bootstrap.sh";
  EXPECT_NE(nvcc_version(default_nvcc()).find("release"), std::string::npos);
}

TEST(CompileSubmission, LiveWgmmaBuildsWithAllArtefacts) {
  const CompileResult& r = compiled("live_wgmma.cu");
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(r.cached);
  EXPECT_GT(r.seconds, 0);
  EXPECT_EQ(r.cache_key.size(), 64u);
  EXPECT_TRUE(fs::is_regular_file(r.shared_object));
  EXPECT_NE(r.ptx.find("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"), std::string::npos);
  EXPECT_NE(r.ptx.find(".target sm_90a"), std::string::npos);
  EXPECT_NE(r.log.find("ptxas info"), std::string::npos) << "ptxas -v output belongs in the log";

  ASSERT_EQ(r.resources.size(), 1u) << r.log;
  EXPECT_EQ(r.resources[0].function, "_Z17live_wgmma_kernelPf");
  EXPECT_GT(r.resources[0].registers, 0);
  EXPECT_EQ(r.resources[0].shared_bytes, (64 * 16 + 8 * 16) * 2);
  EXPECT_EQ(r.resources[0].spill_store_bytes, 0);

  ASSERT_TRUE(r.sass_available) << r.log;
  const SassFunction* fn = find_function(r, "_Z17live_wgmma_kernelPf");
  ASSERT_NE(fn, nullptr) << r.sass;
  EXPECT_EQ(fn->opcode_counts.at("HGMMA.64x8x16.F32.BF16"), 1);
  EXPECT_NE(fn->text.find("HGMMA"), std::string::npos);
}

TEST(CompileSubmission, SyntaxErrorIsAResultWithTheNvccError) {
  const CompileResult& r = compiled("syntax_error.cu");
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.timed_out);
  EXPECT_NE(r.log.find("error: identifier \"undeclared_value_ptxb\" is undefined"),
            std::string::npos)
      << r.log;
  EXPECT_NE(r.log.find("nvcc failed: exit"), std::string::npos) << r.log;
  EXPECT_TRUE(r.shared_object.empty());
  EXPECT_FALSE(r.sass_available);
  EXPECT_TRUE(r.sass_functions.empty());
}

// The compiler reads what the source names: run as an unprivileged user, it cannot read a file
// only its owner may (as root it quoted such a file's lines into the compile log).
TEST(CompileSubmission, AsAnUnprivilegedUserTheSourceCannotReadTheParentsFiles) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to drop nvcc to another user";
  TempDir secret_dir("ptxbench-test-secret"), cache("ptxbench-test-compile-uid");
  const fs::path secret = secret_dir.path() / "secret.txt";
  write_file_atomic(secret, "sk-not-for-candidates 42\n");
  fs::permissions(secret, fs::perms::owner_read | fs::perms::owner_write);
  const std::string source = "#include \"" + secret.string() + "\"\n";
  CompileOptions options = options_with_cache(cache.path());
  options.run_as_uid = 60999;
  const CompileResult dropped = compile_submission(source, options);
  EXPECT_FALSE(dropped.ok);
  EXPECT_NE(dropped.log.find("Permission denied"), std::string::npos) << dropped.log;
  EXPECT_EQ(dropped.log.find("sk-not-for-candidates"), std::string::npos) << dropped.log;
  // The same source as this process's user: the line is in the log (what the drop prevents).
  options.run_as_uid.reset();
  options.cache_dir = cache.path() / "as-root";
  const CompileResult as_root = compile_submission(source, options);
  EXPECT_NE(as_root.log.find("sk-not-for-candidates"), std::string::npos) << as_root.log;
}

TEST(CompileSubmission, AnExpertCompilesAsTheUnprivilegedUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to drop nvcc to another user";
  TempDir cache("ptxbench-test-compile-uid");
  CompileOptions options = options_with_cache(cache.path());
  options.run_as_uid = 60999;
  const CompileResult r = compile_submission(fixture_source("live_wgmma.cu"), options);
  EXPECT_TRUE(r.ok) << r.log;
  EXPECT_TRUE(r.sass_available) << r.log;
}

// The disassembler parses a binary the candidate's source shapes: it runs as the unprivileged
// user too (a stand-in cuobjdump prints its user id as a function name).
TEST(CompileSubmission, TheDisassemblerRunsAsTheUnprivilegedUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to drop cuobjdump to another user";
  TempDir tools("ptxbench-test-fake-cuobjdump"), cache("ptxbench-test-compile-uid");
  const fs::path fake = tools.path() / "cuobjdump";
  write_file_atomic(fake,
                    "#!/bin/sh\n"
                    "test -r \"$2\" || exit 3\n"  // the copy it reads: readable,
                    "test -w \"$2\" && exit 4\n"  // not its to change
                    "echo \"\tFunction : uid_$(id -u)_$(test -w \"$TMPDIR\" && echo tmp)\"\n"
                    "echo '        /*0000*/                   EXIT ;'\n");
  fs::permissions(tools.path(),
                  fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(fake, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  CompileOptions options = options_with_cache(cache.path());
  options.cuobjdump = fake;
  options.run_as_uid = 60999;
  const CompileResult r = compile_submission(fixture_source("no_wgmma.cu"), options);
  ASSERT_TRUE(r.ok) << r.log;
  ASSERT_TRUE(r.sass_available) << r.log;
  EXPECT_NE(r.sass.find("uid_60999_tmp"), std::string::npos) << r.sass;
}

TEST(CompileSubmission, UsesTheArchSpecificGencodeNotTheShorthand) {
  const CompileResult& r = compiled("live_wgmma.cu");
  const auto entry = cache_entry_dir(shared_cache_dir(), r.cache_key);
  const std::string meta = read_file(entry / "meta.json");
  EXPECT_NE(meta.find("arch=compute_90a,code=sm_90a"), std::string::npos) << meta;
  EXPECT_EQ(meta.find("-arch"), std::string::npos) << meta;
}

TEST(CompileSubmission, Sm100aBuildsForBlackwell) {
  CompileOptions options = options_with_cache(shared_cache_dir());
  options.arch = "sm_100a";
  const CompileResult r = compile_submission(fixture_source("no_wgmma.cu"), options);
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_NE(r.ptx.find(".target sm_100a"), std::string::npos);
  EXPECT_NE(r.cache_key, compiled("no_wgmma.cu").cache_key);
  ASSERT_TRUE(r.sass_available) << r.log;
  EXPECT_NE(r.sass.find("sm_100a"), std::string::npos);
}

TEST(CompileSubmission, RejectsAnUnknownArch) {
  CompileOptions options = options_with_cache(shared_cache_dir());
  options.arch = "compute_90a";
  EXPECT_THROW(compile_submission("", options), InputError);
}

TEST(CompileSubmission, DeadlineGivesTimedOutAndIsNotCached) {
  TempDir cache("ptxbench-test-timeout");
  CompileOptions options = options_with_cache(cache.path());
  options.deadline = std::chrono::milliseconds(1);
  const CompileResult r = compile_submission(fixture_source("no_wgmma.cu"), options);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.cached);
  EXPECT_NE(r.log.find("timed out"), std::string::npos) << r.log;
  EXPECT_FALSE(fs::exists(cache_entry_dir(cache.path(), r.cache_key)));
}

TEST(CompileCache, SecondCompileIsAHitWithEveryFieldRestored) {
  const CompileResult& first = compiled("live_wgmma.cu");
  ASSERT_TRUE(first.ok) << first.log;
  const auto start = std::chrono::steady_clock::now();
  const CompileResult hit =
      compile_submission(fixture_source("live_wgmma.cu"), options_with_cache(shared_cache_dir()));
  const double hit_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(hit.cached);
  EXPECT_LT(hit_seconds, first.seconds);
  EXPECT_EQ(hit.seconds, 0);
  EXPECT_EQ(hit.ok, first.ok);
  EXPECT_EQ(hit.cache_key, first.cache_key);
  EXPECT_EQ(hit.shared_object, first.shared_object);
  EXPECT_EQ(hit.log, first.log);
  EXPECT_EQ(hit.ptx, first.ptx);
  EXPECT_EQ(hit.sass, first.sass);
  EXPECT_EQ(hit.sass_available, first.sass_available);
  ASSERT_EQ(hit.sass_functions.size(), first.sass_functions.size());
  for (size_t i = 0; i < hit.sass_functions.size(); ++i) {
    EXPECT_EQ(hit.sass_functions[i].name, first.sass_functions[i].name);
    EXPECT_EQ(hit.sass_functions[i].opcode_counts, first.sass_functions[i].opcode_counts);
  }
  ASSERT_EQ(hit.resources.size(), first.resources.size());
  for (size_t i = 0; i < hit.resources.size(); ++i) {
    EXPECT_EQ(hit.resources[i].function, first.resources[i].function);
    EXPECT_EQ(hit.resources[i].registers, first.resources[i].registers);
    EXPECT_EQ(hit.resources[i].shared_bytes, first.resources[i].shared_bytes);
    EXPECT_EQ(hit.resources[i].stack_frame_bytes, first.resources[i].stack_frame_bytes);
  }
  EXPECT_EQ(hit.quality_flags.size(), first.quality_flags.size());
  EXPECT_EQ(hit.needed_libraries, first.needed_libraries);
  EXPECT_EQ(hit.forbidden_imports, first.forbidden_imports);
}

TEST(CompileCache, EntryLayoutIsKeyPrefixFolderWithEveryArtefact) {
  const CompileResult& r = compiled("live_wgmma.cu");
  const fs::path entry = shared_cache_dir() / r.cache_key.substr(0, 2) / r.cache_key;
  for (const char* file : {"cand.so", "cand.ptx", "sass.txt", "log.txt", "meta.json"}) {
    EXPECT_TRUE(fs::is_regular_file(entry / file)) << file;
  }
  EXPECT_EQ(r.shared_object, entry / "cand.so");
  for (const auto& e : fs::directory_iterator(shared_cache_dir())) {
    EXPECT_EQ(e.path().filename().string().rfind(".staging", 0), std::string::npos)
        << "staging folder left behind: " << e.path();
  }
}

TEST(CompileCache, FailuresAreCachedAndOneByteChangesTheKey) {
  const CompileResult& first = compiled("syntax_error.cu");
  const CompileOptions options = options_with_cache(shared_cache_dir());
  const CompileResult again = compile_submission(fixture_source("syntax_error.cu"), options);
  EXPECT_TRUE(again.cached);
  EXPECT_FALSE(again.ok);
  EXPECT_EQ(again.log, first.log);

  const CompileResult changed =
      compile_submission(fixture_source("syntax_error.cu") + " ", options);
  EXPECT_FALSE(changed.cached);
  EXPECT_FALSE(changed.ok);
  EXPECT_NE(changed.cache_key, first.cache_key);
}

TEST(CompileImports, CublasCallIsFlaggedAndPlainKernelsAreNot) {
  const CompileResult& cublas = compiled("cublas_import.cu");
  ASSERT_TRUE(cublas.ok) << cublas.log;
  EXPECT_NE(std::find(cublas.forbidden_imports.begin(), cublas.forbidden_imports.end(),
                      "cublasCreate_v2"),
            cublas.forbidden_imports.end());
  for (const char* name : {"live_wgmma.cu", "no_wgmma.cu", "tma_mbarrier.cu"}) {
    const CompileResult& r = compiled(name);
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_TRUE(r.forbidden_imports.empty()) << name << ": " << r.forbidden_imports.front();
    EXPECT_NE(std::find(r.needed_libraries.begin(), r.needed_libraries.end(), "libc.so.6"),
              r.needed_libraries.end())
        << name;
  }
}

TEST(CompileImports, ReaderAgreesWithTheCompiledObjectAndSurvivesTruncation) {
  const CompileResult& r = compiled("cublas_import.cu");
  ASSERT_TRUE(r.ok);
  const std::string image = read_file(r.shared_object);
  auto imports = read_elf_imports(image);
  ASSERT_TRUE(imports.has_value());
  EXPECT_NE(
      std::find(imports->undefined_symbols.begin(), imports->undefined_symbols.end(), "malloc"),
      imports->undefined_symbols.end());
  // Every prefix of the file is either rejected or read without going out of range.
  for (size_t cut :
       {size_t{0}, size_t{10}, size_t{64}, size_t{1000}, image.size() / 2, image.size() - 1}) {
    std::string error;
    auto partial = read_elf_imports(std::string_view(image).substr(0, cut), &error);
    if (!partial) {
      EXPECT_FALSE(error.empty()) << cut;
    }
  }
}

TEST(CompileImports, TheDeviceCodeLiesUncompressedInTheFatBinarySection) {
  const CompileResult& r = compiled("live_wgmma.cu");
  ASSERT_TRUE(r.ok);
  const std::string image = read_file(r.shared_object);
  std::string error;
  const std::optional<std::string> fatbin = read_elf_section(image, ".nv_fatbin", &error);
  ASSERT_TRUE(fatbin.has_value()) << error;
  // The fat binary's magic (0xBA55ED50, little-endian), and a cubin inside it as it is loaded:
  // an ELF header for the CUDA machine (EM_CUDA, 190), not a compressed image (--no-compress).
  ASSERT_GE(fatbin->size(), 4u);
  EXPECT_EQ(fatbin->substr(0, 4), std::string("\x50\xed\x55\xba", 4));
  const size_t elf = fatbin->find(
      "\x7f"
      "ELF");
  ASSERT_NE(elf, std::string::npos);
  ASSERT_GE(fatbin->size(), elf + 20);
  EXPECT_EQ(static_cast<unsigned char>((*fatbin)[elf + 18]), 190u);
  // The container reader finds the same: ELF images for the CUDA machine, the first at that byte.
  const std::vector<std::string_view> images = fatbin_elf_images(*fatbin);
  ASSERT_FALSE(images.empty());
  EXPECT_EQ(images[0].data() - fatbin->data(), static_cast<std::ptrdiff_t>(elf));
  for (const std::string_view image : images) {
    ASSERT_GE(image.size(), 20u);
    EXPECT_EQ(image.substr(0, 4),
              "\x7f"
              "ELF");
    EXPECT_EQ(static_cast<unsigned char>(image[18]), 190u);
  }
  EXPECT_FALSE(read_elf_section(image, ".no_such_section", &error).has_value());
  EXPECT_NE(error.find(".no_such_section"), std::string::npos) << error;
  for (size_t cut : {size_t{0}, size_t{64}, image.size() / 2, image.size() - 1}) {
    error.clear();
    if (!read_elf_section(std::string_view(image).substr(0, cut), ".nv_fatbin", &error))
      EXPECT_FALSE(error.empty()) << cut;
  }
}

// ---- S0/S1 evidence on compiled fixtures ----

InstructionEntry entry(std::string name, std::string pattern, std::vector<std::string> primary) {
  InstructionEntry e;
  e.name = std::move(name);
  e.arch = "sm_90a";
  e.ptx_pattern = std::move(pattern);
  e.primary_opcodes = std::move(primary);
  return e;
}

Catalog hopper_catalog() {
  Catalog catalog;
  catalog.entries.push_back(
      entry("wgmma.mma_async", R"(wgmma\.mma_async)", {"HGMMA", "QGMMA", "IGMMA", "BGMMA"}));
  catalog.entries.push_back(
      entry("cp.async.bulk.tensor", R"(cp\.async\.bulk\.tensor)", {"UTMALDG", "UTMASTG"}));
  catalog.entries.push_back(
      entry("mbarrier.try_wait", R"(mbarrier\.try_wait)", {"SYNCS.PHASECHK.TRANS64.TRYWAIT"}));
  return catalog;
}

TaskSpec task_with_targets(std::vector<std::string> instructions) {
  TaskSpec task;
  task.id = "test/static";
  task.arch = "sm_90a";
  for (auto& name : instructions) {
    TargetSpec target;
    target.instruction = name;
    task.targets.push_back(target);
  }
  return task;
}

TEST(StaticEvidence, LiveWgmmaHasS0AndS1) {
  const CompileResult& r = compiled("live_wgmma.cu");
  ASSERT_TRUE(r.ok) << r.log;
  auto ev = static_evidence(task_with_targets({"wgmma.mma_async"}), hopper_catalog(), r);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].instruction, "wgmma.mma_async");
  EXPECT_TRUE(ev[0].s0);
  ASSERT_TRUE(ev[0].s1.has_value());
  EXPECT_TRUE(*ev[0].s1);
  EXPECT_EQ(ev[0].s1_functions, std::vector<std::string>{"_Z17live_wgmma_kernelPf"});
  EXPECT_EQ(ev[0].s1_opcodes.at("HGMMA.64x8x16.F32.BF16"), 1);
}

TEST(StaticEvidence, PlainKernelHasNeither) {
  const CompileResult& r = compiled("no_wgmma.cu");
  ASSERT_TRUE(r.ok) << r.log;
  auto ev = static_evidence(task_with_targets({"wgmma.mma_async"}), hopper_catalog(), r);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_FALSE(ev[0].s0);
  ASSERT_TRUE(ev[0].s1.has_value());
  EXPECT_FALSE(*ev[0].s1);
  EXPECT_TRUE(ev[0].s1_functions.empty());
  EXPECT_TRUE(ev[0].s1_opcodes.empty());
  EXPECT_EQ(find_function(r, "_Z11axpy_kernelPfPKffi")->opcode_counts.at("FFMA"), 1);
}

TEST(StaticEvidence, MnemonicOnlyInAPtxCommentIsNotS0) {
  const CompileResult& r = compiled("comment_only_wgmma.cu");
  ASSERT_TRUE(r.ok) << r.log;
  // The decoy really is in the PTX text; only comment stripping keeps it from counting.
  ASSERT_NE(r.ptx.find("// wgmma.mma_async"), std::string::npos) << r.ptx;
  ASSERT_NE(r.ptx.find("/* wgmma.mma_async"), std::string::npos) << r.ptx;
  auto ev = static_evidence(task_with_targets({"wgmma.mma_async"}), hopper_catalog(), r);
  EXPECT_FALSE(ev[0].s0);
  EXPECT_EQ(ev[0].s1, std::optional<bool>(false));
}

TEST(StaticEvidence, TmaLoadAndMbarrierWait) {
  const CompileResult& r = compiled("tma_mbarrier.cu");
  ASSERT_TRUE(r.ok) << r.log;
  auto ev = static_evidence(
      task_with_targets({"cp.async.bulk.tensor", "mbarrier.try_wait", "wgmma.mma_async"}),
      hopper_catalog(), r);
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_TRUE(ev[0].s0);
  EXPECT_EQ(ev[0].s1, std::optional<bool>(true));
  EXPECT_EQ(ev[0].s1_opcodes.at("UTMALDG.2D"), 1);
  EXPECT_TRUE(ev[1].s0);
  EXPECT_EQ(ev[1].s1, std::optional<bool>(true));
  EXPECT_GE(ev[1].s1_opcodes.at("SYNCS.PHASECHK.TRANS64.TRYWAIT"), 1);
  EXPECT_FALSE(ev[2].s0);
  EXPECT_EQ(ev[2].s1, std::optional<bool>(false));
}

TEST(StaticEvidence, S1IsUnavailableWithoutSass) {
  CompileResult r = compiled("live_wgmma.cu");
  r.sass_available = false;
  r.sass.clear();
  r.sass_functions.clear();
  auto ev = static_evidence(task_with_targets({"wgmma.mma_async"}), hopper_catalog(), r);
  EXPECT_TRUE(ev[0].s0);
  EXPECT_FALSE(ev[0].s1.has_value());
}

TEST(CompileSubmission, WithoutADisassemblerSassIsUnavailableAndAddedOnALaterHit) {
  TempDir cache("ptxbench-test-nosass");
  CompileOptions options = options_with_cache(cache.path());
  options.cuobjdump.clear();
  const std::string source = fixture_source("no_wgmma.cu");
  const CompileResult bare = compile_submission(source, options);
  ASSERT_TRUE(bare.ok) << bare.log;
  EXPECT_FALSE(bare.sass_available);
  EXPECT_NE(bare.log.find("SASS unavailable"), std::string::npos) << bare.log;

  options.cuobjdump = "/nonexistent/cuobjdump";
  const CompileResult still_bare = compile_submission(source, options);
  EXPECT_TRUE(still_bare.cached);
  EXPECT_FALSE(still_bare.sass_available);

  options.cuobjdump = default_cuobjdump();
  const CompileResult completed = compile_submission(source, options);
  EXPECT_TRUE(completed.cached);
  EXPECT_TRUE(completed.sass_available) << completed.log;
  const CompileResult reloaded = compile_submission(source, options);
  EXPECT_TRUE(reloaded.sass_available);
  EXPECT_EQ(reloaded.sass, completed.sass);
}

}  // namespace
}  // namespace ptxb
