// compile_submission: one nvcc run with fixed flags in a private folder, then SASS, ptxas
// resources, quality flags and ELF imports; every result goes through the content-hashed cache.
#include "compile/static_stage.hpp"

#include <algorithm>
#include <sstream>

#include "compile/compile_cache.hpp"
#include "compile/elf_imports.hpp"
#include "compile/ptxas_log.hpp"
#include "compile/sass.hpp"
#include "compile/tools.hpp"
#include "core/arch.hpp"
#include "core/error.hpp"
#include "sys/files.hpp"
#include "sys/process.hpp"

namespace ptxb {
namespace fs = std::filesystem;
namespace {

constexpr const char* kTmpPlaceholder = "<tmp>";
constexpr const char* kAbiPlaceholder = "-I<abi_include_dir>";
constexpr std::chrono::seconds kCuobjdumpDeadline{120};

std::string note(const std::string& text) { return "[ptxbench] " + text + "\n"; }

/// The -gencode value of `arch` (core/arch.hpp). InputError for an unknown architecture.
std::string gencode_for(const std::string& arch) {
  const Arch* a = find_arch(arch);
  if (a == nullptr) throw InputError("compile: arch '" + arch + "' is not a known architecture");
  return a->gencode;
}

std::string with_newline(std::string text) {
  if (!text.empty() && text.back() != '\n') text.push_back('\n');
  return text;
}

/// Every *.ptx that --keep left in `dir`, in name order, concatenated.
std::string kept_ptx(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".ptx") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::string ptx;
  for (const auto& f : files) ptx += read_file(f);
  return ptx;
}

/// Runs `cuobjdump -sass` on the shared object; on failure returns nullopt and says why in `log`.
/// With `run_as_uid` the disassembler runs as that user on a copy of the object (it parses an ELF
/// whose contents the candidate's source shapes): the copy and the folder it lies in belong to
/// this process with that user's group, readable and not writable by it; only a scratch folder
/// (its TMPDIR: cuobjdump writes temporary files) is the user's. Its output is written by this
/// process into the folder the user cannot change.
std::optional<std::string> disassemble(const fs::path& so, const fs::path& cuobjdump,
                                       std::optional<uint32_t> run_as_uid, std::string& log) {
  if (cuobjdump.empty()) {
    log += note("SASS unavailable: no cuobjdump configured (PTXBENCH_CUOBJDUMP)");
    return std::nullopt;
  }
  TempDir tmp("ptxbench-sass");
  ProcessSpec spec;
  spec.argv = {cuobjdump.string(), "-sass", so.string()};
  if (run_as_uid) {
    const fs::path copy = tmp.path() / "cand.so", scratch = tmp.path() / "scratch";
    fs::copy_file(so, copy);
    share_read_only(tmp.path(), copy, run_as_uid);
    // NOTE: the user opens the copy by name: it need not list the folder (0710, not 0750).
    fs::permissions(tmp.path(), fs::perms::owner_all | fs::perms::group_exec);
    fs::create_directory(scratch);
    fs::permissions(scratch, fs::perms::owner_all);
    give_to_user(scratch, *run_as_uid);
    spec.argv.back() = copy.string();
    spec.cwd = scratch;
    spec.run_as_uid = run_as_uid;
    spec.extra_env = {"HOME=" + scratch.string(), "TMPDIR=" + scratch.string()};
  }
  spec.stdout_path = tmp.path() / "sass.txt";
  spec.stderr_path = tmp.path() / "stderr.txt";
  spec.deadline = kCuobjdumpDeadline;
  const ProcessResult run = run_process(spec);
  if (!run.ok()) {
    log += note("SASS unavailable: " + cuobjdump.string() + " -sass: " + run.describe());
    log += with_newline(read_text_file(spec.stderr_path, 4096));
    return std::nullopt;
  }
  return read_file(spec.stdout_path);
}

void set_sass(CompileResult& result, std::optional<std::string> sass) {
  std::vector<SassFunction> functions = sass ? parse_sass(*sass) : std::vector<SassFunction>{};
  // NOTE: a disassembler too old for the arch may print the fatbin headers and no code; that is
  // "unavailable", not "no primary opcode". The PTX tells whether there were kernels to list.
  if (sass && functions.empty() && result.ptx.find(".entry") != std::string::npos) {
    result.log += note("SASS unavailable: the disassembler listed no functions");
    sass.reset();
  }
  result.sass_available = sass.has_value();
  result.sass = sass.value_or("");
  result.sass_functions = std::move(functions);
}

void read_imports(CompileResult& result) {
  std::string error;
  auto imports = read_elf_imports_file(result.shared_object, &error);
  if (!imports) {
    result.log += note("ELF imports unavailable: " + error);
    return;
  }
  result.needed_libraries = imports->needed_libraries;
  result.forbidden_imports = forbidden_imports(*imports);
}

/// The fixed nvcc flags, with placeholders for the per-run folder and the ABI include folder
/// (their contents, not their paths, go into the cache key). `--no-compress`: the cubins lie in
/// the shared object's .nv_fatbin as the driver loads them, which the monitor compares every
/// module loaded while candidate code runs with (worker/monitor.hpp, set_own_device_code).
std::vector<std::string> flag_template(const std::string& arch) {
  return {"-O3",           "-std=c++17",   "-shared",    "-Xcompiler",
          "-fPIC",         "-lineinfo",    "-Xptxas",    "-v",
          "-Xptxas",       "-warn-spills", "-gencode",   gencode_for(arch),
          "--no-compress", "--keep",       "--keep-dir", kTmpPlaceholder,
          kAbiPlaceholder, "cand.cu",      "-o",         "cand.so"};
}

// The ABI header's folder inside the compile folder (a copy: nvcc may run as a user that cannot
// read the repository).
fs::path abi_copy_dir(const fs::path& tmp) { return tmp / "include"; }

std::vector<std::string> nvcc_argv(const CompileOptions& options,
                                   const std::vector<std::string>& flags, const fs::path& tmp) {
  std::vector<std::string> argv = {options.nvcc.string()};
  for (const auto& flag : flags) {
    if (flag == kTmpPlaceholder) {
      argv.push_back(tmp.string());
    } else if (flag == kAbiPlaceholder) {
      argv.push_back("-I" + abi_copy_dir(tmp).string());
    } else {
      argv.push_back(flag);
    }
  }
  return argv;
}

/// A cache hit made without a disassembler gets its SASS now, if one is configured.
void complete_cached_sass(CompileResult& hit, const CompileOptions& options) {
  if (!hit.ok || hit.sass_available || options.cuobjdump.empty()) return;
  auto sass = disassemble(hit.shared_object, options.cuobjdump, options.run_as_uid, hit.log);
  if (!sass) return;
  set_sass(hit, std::move(sass));
  hit.log += note("SASS added to the cached entry with " + options.cuobjdump.string());
  update_cache_sass(options.cache_dir, hit, options.cuobjdump.string());
}

}  // namespace

CompileResult compile_submission(const std::string& source, const CompileOptions& options) {
  PTXB_ASSERT(!options.cache_dir.empty(), "CompileOptions.cache_dir is empty");
  PTXB_ASSERT(!options.nvcc.empty(), "CompileOptions.nvcc is empty");
  PTXB_ASSERT(!options.abi_include_dir.empty(), "CompileOptions.abi_include_dir is empty");

  const std::vector<std::string> flags = flag_template(options.arch);
  const std::string abi_header = read_file(options.abi_include_dir / "ptxbench" / "abi.h");
  const std::string& version = nvcc_version(options.nvcc);
  const std::string key = compile_cache_key(source, flags, version, abi_header);

  if (auto hit = load_cache_entry(options.cache_dir, key)) {
    complete_cached_sass(*hit, options);
    return std::move(*hit);
  }

  CompileResult result;
  result.cache_key = key;
  TempDir tmp("ptxbench-compile");
  write_file_atomic(tmp.path() / "cand.cu", source);
  write_file_atomic(abi_copy_dir(tmp.path()) / "ptxbench" / "abi.h", abi_header);
  if (options.run_as_uid) give_to_user(tmp.path(), *options.run_as_uid);
  ProcessSpec spec;
  spec.argv = nvcc_argv(options, flags, tmp.path());
  spec.cwd = tmp.path();
  spec.run_as_uid = options.run_as_uid;
  spec.stdout_path = tmp.path() / "nvcc.log";  // stderr joins stdout: one log in order
  // NOTE: nvcc reads extra flags from these variables; the flags must be exactly the fixed list.
  // Its other variables are this process's but for HOME and TMPDIR, which are the folder's.
  spec.extra_env = {"NVCC_PREPEND_FLAGS=", "NVCC_APPEND_FLAGS=", "HOME=" + tmp.path().string(),
                    "TMPDIR=" + tmp.path().string()};
  spec.deadline = options.deadline;
  const ProcessResult run = run_process(spec);
  result.seconds = run.wall_seconds;
  result.log = read_text_file(spec.stdout_path);

  if (run.timed_out) {
    result.timed_out = true;
    result.log = with_newline(result.log) +
                 note("nvcc timed out after " + std::to_string(run.wall_seconds) + " s (deadline " +
                      std::to_string(options.deadline.count()) + " ms)");
    return result;  // NOTE: not cached: a slow machine must not turn into a stored failure
  }
  result.shared_object = tmp.path() / "cand.so";
  result.ok = run.ok() && fs::is_regular_file(result.shared_object);
  if (!result.ok) result.log = with_newline(result.log) + note("nvcc failed: " + run.describe());
  result.ptx = kept_ptx(tmp.path());
  result.resources = parse_ptxas_resources(result.log);
  result.quality_flags = parse_quality_flags(result.log);
  if (result.ok) {
    read_imports(result);
    set_sass(result,
             disassemble(result.shared_object, options.cuobjdump, options.run_as_uid, result.log));
  }

  const CacheMeta meta{.arch = options.arch,
                       .flags = flags,
                       .nvcc_version = version,
                       .cuobjdump = result.sass_available ? options.cuobjdump.string() : "",
                       .seconds = result.seconds};
  const fs::path entry = store_cache_entry(options.cache_dir, result, meta);
  result.shared_object = result.ok ? entry / "cand.so" : fs::path();
  return result;
}

}  // namespace ptxb
