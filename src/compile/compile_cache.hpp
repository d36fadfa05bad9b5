// The content-hashed compile cache. One folder per key, <cache_dir>/<key[0:2]>/<key>/, holding
// cand.so (when ok), cand.ptx, sass.txt, log.txt and meta.json. Entries are built in a staging
// folder inside cache_dir and renamed into place, so a reader sees a whole entry or none.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compile/static_stage.hpp"

namespace ptxb {

/// JSON forms of ptxas resources and quality flags, shared by meta.json and the verdict record.
nlohmann::json resources_json(const std::vector<PtxasResources>& resources);
nlohmann::json flags_json(const std::vector<QualityFlag>& flags);

/// Bumped whenever the entry layout, meta.json or the meaning of a stored field changes.
inline constexpr int kCompileCacheSchema = 1;

/// Hex SHA-256 over the schema version, the flag list (with placeholders for per-run paths), the
/// `nvcc --version` text, the ABI header bytes and the source bytes; each part length-prefixed.
std::string compile_cache_key(std::string_view source, const std::vector<std::string>& flags,
                              std::string_view nvcc_version, std::string_view abi_header);

/// <cache_dir>/<key[0:2]>/<key>
std::filesystem::path cache_entry_dir(const std::filesystem::path& cache_dir,
                                      const std::string& key);

/// The stored result for `key`, with cached = true and seconds = 0; nullopt on a miss. An entry
/// that cannot be read back (other schema, missing file, bad JSON) is removed and is a miss.
std::optional<CompileResult> load_cache_entry(const std::filesystem::path& cache_dir,
                                              const std::string& key);

/// What meta.json records besides the result itself.
struct CacheMeta {
  std::string arch;
  std::vector<std::string> flags;
  std::string nvcc_version;
  std::string cuobjdump;  ///< the disassembler that produced sass.txt ("" when none)
  double seconds = 0;     ///< compile wall time of the run that made the entry
};

/// Stores `result` (result.shared_object is copied when result.ok) and returns the entry folder.
/// If an entry for the key appeared meanwhile (another process), that one is kept. Throws
/// ApiError when the cache folder cannot be written. Timeouts must not be stored.
std::filesystem::path store_cache_entry(const std::filesystem::path& cache_dir,
                                        const CompileResult& result, const CacheMeta& meta);

/// Rewrites sass.txt, log.txt and meta.json of an existing entry after SASS was recomputed
/// (an entry made without a disassembler). Each file is replaced atomically, meta.json last.
void update_cache_sass(const std::filesystem::path& cache_dir, const CompileResult& result,
                       const std::string& cuobjdump);

}  // namespace ptxb
