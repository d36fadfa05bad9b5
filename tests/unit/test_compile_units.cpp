// Static-stage pieces that need no compiler: PTX comment stripping, forbidden-import matching, ELF
// reading of bad input, cache keys and entries, tool defaults.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <optional>

#include "compile/compile_cache.hpp"
#include "compile/elf_imports.hpp"
#include "compile/ptx_text.hpp"
#include "compile/tools.hpp"
#include "core/error.hpp"
#include "sys/files.hpp"

namespace ptxb {
namespace {
namespace fs = std::filesystem;

TEST(CompilePtxText, StripsLineAndBlockComments) {
  EXPECT_EQ(strip_ptx_comments("add.s32 %r1; // wgmma.mma_async\nret;"), "add.s32 %r1; \nret;");
  EXPECT_EQ(strip_ptx_comments("a/* x\ny */b"), "a\n b");
  EXPECT_EQ(strip_ptx_comments(".file 1 \"/tmp//x/*y.cu\"\nret; /* open"),
            ".file 1 \"/tmp//x/*y.cu\"\nret;  ");
  EXPECT_EQ(strip_ptx_comments("a / b"), "a / b");
}

TEST(CompilePtxText, MatchesOnlyOutsideComments) {
  const std::string live = "\t{ wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1}, ...; }";
  EXPECT_TRUE(ptx_matches(live, R"(wgmma\.mma_async)"));
  EXPECT_FALSE(ptx_matches("\t// " + live + "\n\t/* " + live + " */", R"(wgmma\.mma_async)"));
  EXPECT_TRUE(ptx_matches("ret;\n" + live, R"(^\s*\{\s*wgmma\.mma_async)"));  // per line
  EXPECT_THROW(ptx_matches(live, "(unclosed"), InputError);
}

TEST(CompileImports, ForbiddenFragmentsMatchLibrariesAndSymbols) {
  ElfImports imports;
  imports.needed_libraries = {"libcublasLt.so.13", "libcudart.so.13", "libcuda.so.1",
                              "libstdc++.so.6",    "libm.so.6",       "libgcc_s.so.1",
                              "libc.so.6",         "libcudnn.so.9",   "libNVJITLINK.so.13"};
  imports.undefined_symbols = {
      "cudnnCreate", "cuLaunchKernel", "cudaLaunchKernel",    "_ZN7cutlass6KernelEv",
      "malloc",      "ncclAllReduce",  "nvrtcCompileProgram", "curandCreateGenerator",
      "cufftPlan1d", "cusparseCreate", "cusolverDnCreate",    "dlopen"};
  EXPECT_EQ(forbidden_imports(imports),
            (std::vector<std::string>{"libcublasLt.so.13", "libcudnn.so.9", "libNVJITLINK.so.13",
                                      "cudnnCreate", "_ZN7cutlass6KernelEv", "ncclAllReduce",
                                      "nvrtcCompileProgram", "curandCreateGenerator", "cufftPlan1d",
                                      "cusparseCreate", "cusolverDnCreate"}));
  EXPECT_TRUE(forbidden_imports(ElfImports{}).empty());
}

TEST(CompileImports, NonElfInputIsRejectedWithAReason) {
  std::string error;
  EXPECT_FALSE(read_elf_imports("", &error).has_value());
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(read_elf_imports("not an elf file at all, just text", &error).has_value());
  std::string header(64, '\0');
  header.replace(0, 4,
                 "\x7f"
                 "ELF");
  header[4] = 1;  // ELFCLASS32
  EXPECT_FALSE(read_elf_imports(header, &error).has_value());
  EXPECT_NE(error.find("ELF64"), std::string::npos) << error;
  EXPECT_FALSE(read_elf_imports_file("/nonexistent/cand.so", &error).has_value());
}

TEST(CompileCacheKey, EveryInputChangesTheKey) {
  const std::vector<std::string> flags = {"-O3", "-gencode", "arch=compute_90a,code=sm_90a"};
  const std::string base = compile_cache_key("source", flags, "nvcc 13.0", "abi");
  EXPECT_EQ(base.size(), 64u);
  EXPECT_EQ(base, compile_cache_key("source", flags, "nvcc 13.0", "abi"));
  EXPECT_NE(base, compile_cache_key("sourcf", flags, "nvcc 13.0", "abi"));
  EXPECT_NE(base, compile_cache_key("source ", flags, "nvcc 13.0", "abi"));
  EXPECT_NE(base, compile_cache_key("source", {"-O3", "-gencode", "arch=compute_100a,code=sm_100a"},
                                    "nvcc 13.0", "abi"));
  EXPECT_NE(base, compile_cache_key("source", flags, "nvcc 13.1", "abi"));
  EXPECT_NE(base, compile_cache_key("source", flags, "nvcc 13.0", "abi2"));
  // Parts are length-prefixed: moving bytes between parts changes the key.
  EXPECT_NE(compile_cache_key("ab", flags, "c", "abi"), compile_cache_key("a", flags, "bc", "abi"));
}

CompileResult failed_result(const std::string& key) {
  CompileResult r;
  r.cache_key = key;
  r.log = "cand.cu(1): error: nope\n";
  PtxasResources res;
  res.function = "_Z1kv";
  res.registers = 7;
  res.shared_bytes = 16;
  r.resources.push_back(res);
  r.quality_flags.push_back({"C7517", "ptxas info    : (C7517) injected"});
  return r;
}

TEST(CompileCacheEntry, StoreThenLoadRoundTripsAndKeepsTheFirstEntry) {
  TempDir cache("ptxbench-test-cache");
  const std::string key(64, 'a');
  EXPECT_FALSE(load_cache_entry(cache.path(), key).has_value());

  CacheMeta meta;
  meta.arch = "sm_90a";
  meta.flags = {"-O3"};
  meta.seconds = 1.5;
  const fs::path entry = store_cache_entry(cache.path(), failed_result(key), meta);
  EXPECT_EQ(entry, cache.path() / "aa" / key);
  CompileResult other = failed_result(key);
  other.log = "different\n";
  EXPECT_EQ(store_cache_entry(cache.path(), other, meta), entry);  // the first one stays

  auto hit = load_cache_entry(cache.path(), key);
  ASSERT_TRUE(hit.has_value());
  EXPECT_TRUE(hit->cached);
  EXPECT_FALSE(hit->ok);
  EXPECT_EQ(hit->seconds, 0);
  EXPECT_EQ(hit->log, "cand.cu(1): error: nope\n");
  ASSERT_EQ(hit->resources.size(), 1u);
  EXPECT_EQ(hit->resources[0].registers, 7);
  EXPECT_EQ(hit->resources[0].shared_bytes, 16);
  ASSERT_EQ(hit->quality_flags.size(), 1u);
  EXPECT_EQ(hit->quality_flags[0].code, "C7517");
  EXPECT_TRUE(hit->shared_object.empty());
  for (const auto& e : fs::directory_iterator(cache.path())) {
    EXPECT_EQ(e.path().filename(), "aa") << "left behind: " << e.path();
  }
}

TEST(CompileCacheEntry, UnreadableEntryIsDroppedAsAMiss) {
  TempDir cache("ptxbench-test-cache");
  const std::string key(64, 'b');
  const fs::path entry = cache_entry_dir(cache.path(), key);
  write_file_atomic(entry / "meta.json", "{ not json");
  EXPECT_FALSE(load_cache_entry(cache.path(), key).has_value());
  EXPECT_FALSE(fs::exists(entry));

  CacheMeta meta;
  meta.arch = "sm_90a";
  store_cache_entry(cache.path(), failed_result(key), meta);
  std::string text = read_file(entry / "meta.json");
  text.replace(text.find("\"schema\": 1"), 11, "\"schema\": 999");
  write_file_atomic(entry / "meta.json", text);
  EXPECT_FALSE(load_cache_entry(cache.path(), key).has_value());
}

/// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = ::getenv(name)) old_ = old;
    value ? ::setenv(name, value, 1) : ::unsetenv(name);
  }
  ~ScopedEnv() { old_ ? ::setenv(name_, old_->c_str(), 1) : ::unsetenv(name_); }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(CompileTools, EnvironmentOverridesAndCacheFolderFallbacks) {
  {
    ScopedEnv nvcc("PTXBENCH_NVCC", "/opt/x/nvcc");
    ScopedEnv dump("PTXBENCH_CUOBJDUMP", "/opt/x/cuobjdump");
    EXPECT_EQ(default_nvcc(), fs::path("/opt/x/nvcc"));
    EXPECT_EQ(default_cuobjdump(), fs::path("/opt/x/cuobjdump"));
  }
  ScopedEnv cache("PTXBENCH_CACHE_DIR", "/c");
  EXPECT_EQ(default_cache_dir(), fs::path("/c/compile"));
  ScopedEnv no_cache("PTXBENCH_CACHE_DIR", nullptr);
  ScopedEnv xdg("XDG_CACHE_HOME", "/x");
  EXPECT_EQ(default_cache_dir(), fs::path("/x/ptxbench/compile"));
  ScopedEnv no_xdg("XDG_CACHE_HOME", nullptr);
  ScopedEnv home("HOME", "/h");
  EXPECT_EQ(default_cache_dir(), fs::path("/h/.cache/ptxbench/compile"));
}

TEST(CompileTools, AbiHeaderIsInTheDefaultIncludeDir) {
  EXPECT_TRUE(fs::is_regular_file(default_abi_include_dir() / "ptxbench" / "abi.h"));
  EXPECT_TRUE(find_executable("definitely-not-a-program-ptxb").empty());
  EXPECT_FALSE(find_executable("sh").empty());
}

}  // namespace
}  // namespace ptxb
