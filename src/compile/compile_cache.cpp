// Content-hashed compile cache (see compile_cache.hpp).
#include "compile/compile_cache.hpp"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "compile/sass.hpp"
#include "core/error.hpp"
#include "sys/files.hpp"
#include "sys/process.hpp"

namespace ptxb {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kSharedObject = "cand.so";
constexpr const char* kPtx = "cand.ptx";
constexpr const char* kSass = "sass.txt";
constexpr const char* kLog = "log.txt";
constexpr const char* kMeta = "meta.json";

std::vector<PtxasResources> resources_from_json(const json& in) {
  std::vector<PtxasResources> out;
  for (const auto& r : in) {
    out.push_back({.function = r.at("function").get<std::string>(),
                   .registers = r.at("registers").get<int>(),
                   .stack_frame_bytes = r.at("stack_frame_bytes").get<int64_t>(),
                   .spill_store_bytes = r.at("spill_store_bytes").get<int64_t>(),
                   .spill_load_bytes = r.at("spill_load_bytes").get<int64_t>(),
                   .shared_bytes = r.at("shared_bytes").get<int64_t>()});
  }
  return out;
}

std::vector<QualityFlag> flags_from_json(const json& in) {
  std::vector<QualityFlag> out;
  for (const auto& f : in) {
    out.push_back({f.at("code").get<std::string>(), f.at("message").get<std::string>()});
  }
  return out;
}

json meta_json(const CompileResult& result, const CacheMeta& meta) {
  return {{"schema", kCompileCacheSchema},
          {"key", result.cache_key},
          {"ok", result.ok},
          {"seconds", meta.seconds},
          {"arch", meta.arch},
          {"flags", meta.flags},
          {"nvcc_version", meta.nvcc_version},
          {"cuobjdump", meta.cuobjdump},
          {"sass_available", result.sass_available},
          {"resources", resources_json(result.resources)},
          {"quality_flags", flags_json(result.quality_flags)},
          {"needed_libraries", result.needed_libraries},
          {"forbidden_imports", result.forbidden_imports}};
}

std::string length_prefixed(std::string_view tag, std::string_view bytes) {
  return std::string(tag) + ":" + std::to_string(bytes.size()) + ":" + std::string(bytes) + "\n";
}

/// A staging folder inside the cache root, removed unless it was renamed into place.
class StagingDir {
 public:
  explicit StagingDir(const fs::path& cache_dir) {
    fs::create_directories(cache_dir);
    std::string tmpl = (cache_dir / ".staging.XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr)
      throw_api("POSIX", "mkdtemp", errno, tmpl, std::strerror(errno), __FILE__, __LINE__);
    path_ = tmpl;
  }
  ~StagingDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  StagingDir(const StagingDir&) = delete;
  StagingDir& operator=(const StagingDir&) = delete;
  const fs::path& path() const { return path_; }
  void released() { path_.clear(); }

 private:
  fs::path path_;
};

void remove_broken_entry(const fs::path& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace

json resources_json(const std::vector<PtxasResources>& resources) {
  json out = json::array();
  for (const auto& r : resources) {
    out.push_back({{"function", r.function},
                   {"registers", r.registers},
                   {"stack_frame_bytes", r.stack_frame_bytes},
                   {"spill_store_bytes", r.spill_store_bytes},
                   {"spill_load_bytes", r.spill_load_bytes},
                   {"shared_bytes", r.shared_bytes}});
  }
  return out;
}

json flags_json(const std::vector<QualityFlag>& flags) {
  json out = json::array();
  for (const auto& f : flags) out.push_back({{"code", f.code}, {"message", f.message}});
  return out;
}

std::string compile_cache_key(std::string_view source, const std::vector<std::string>& flags,
                              std::string_view nvcc_version, std::string_view abi_header) {
  std::string material = length_prefixed("schema", std::to_string(kCompileCacheSchema));
  for (const auto& flag : flags) material += length_prefixed("flag", flag);
  material += length_prefixed("nvcc", nvcc_version);
  material += length_prefixed("abi", abi_header);
  material += length_prefixed("source", source);
  return sha256_hex(material);
}

fs::path cache_entry_dir(const fs::path& cache_dir, const std::string& key) {
  PTXB_ASSERT(key.size() > 2, "cache key too short");
  return cache_dir / key.substr(0, 2) / key;
}

std::optional<CompileResult> load_cache_entry(const fs::path& cache_dir, const std::string& key) {
  const fs::path dir = cache_entry_dir(cache_dir, key);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return std::nullopt;
  try {
    const json meta = json::parse(read_file(dir / kMeta));
    if (meta.at("schema").get<int>() != kCompileCacheSchema ||
        meta.at("key").get<std::string>() != key) {
      remove_broken_entry(dir);
      return std::nullopt;
    }
    CompileResult result;
    result.cached = true;
    result.cache_key = key;
    result.ok = meta.at("ok").get<bool>();
    result.log = read_file(dir / kLog);
    if (fs::exists(dir / kPtx)) result.ptx = read_file(dir / kPtx);
    if (result.ok) {
      result.shared_object = dir / kSharedObject;
      if (!fs::is_regular_file(result.shared_object)) throw InputError("cand.so missing");
    }
    result.sass_available = meta.at("sass_available").get<bool>();
    if (result.sass_available) {
      result.sass = read_file(dir / kSass);
      result.sass_functions = parse_sass(result.sass);
    }
    result.resources = resources_from_json(meta.at("resources"));
    result.quality_flags = flags_from_json(meta.at("quality_flags"));
    result.needed_libraries = meta.at("needed_libraries").get<std::vector<std::string>>();
    result.forbidden_imports = meta.at("forbidden_imports").get<std::vector<std::string>>();
    return result;
  } catch (const json::exception&) {
  } catch (const InputError&) {
  } catch (const fs::filesystem_error&) {
  }
  // NOTE: an unreadable entry is dropped and rebuilt rather than trusted or reported as an error.
  remove_broken_entry(dir);
  return std::nullopt;
}

fs::path store_cache_entry(const fs::path& cache_dir, const CompileResult& result,
                           const CacheMeta& meta) {
  PTXB_ASSERT(!result.timed_out, "timeouts are not cached");
  const fs::path target = cache_entry_dir(cache_dir, result.cache_key);
  StagingDir staging(cache_dir);
  if (result.ok) fs::copy_file(result.shared_object, staging.path() / kSharedObject);
  write_file_atomic(staging.path() / kPtx, result.ptx);
  write_file_atomic(staging.path() / kSass, result.sass);
  write_file_atomic(staging.path() / kLog, result.log);
  write_file_atomic(staging.path() / kMeta, meta_json(result, meta).dump(2) + "\n");

  fs::create_directories(target.parent_path());
  if (::rename(staging.path().c_str(), target.c_str()) == 0) {
    staging.released();
    return target;
  }
  const int err = errno;
  // Another process stored the same key first: keep its entry (same inputs, same result).
  if ((err == EEXIST || err == ENOTEMPTY) && fs::is_directory(target)) return target;
  throw_api("POSIX", "rename", err, target.string(), std::strerror(err), __FILE__, __LINE__);
}

void update_cache_sass(const fs::path& cache_dir, const CompileResult& result,
                       const std::string& cuobjdump) {
  const fs::path dir = cache_entry_dir(cache_dir, result.cache_key);
  json meta = json::parse(read_file(dir / kMeta));
  meta["sass_available"] = result.sass_available;
  meta["cuobjdump"] = cuobjdump;
  write_file_atomic(dir / kSass, result.sass);
  write_file_atomic(dir / kLog, result.log);
  write_file_atomic(dir / kMeta, meta.dump(2) + "\n");
}

}  // namespace ptxb
