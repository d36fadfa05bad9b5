// Files and folders: atomic writes, private temporary folders, content hashes.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace ptxb {

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so
/// readers never see a half-written file. Creates parent folders. Throws ApiError on failure.
void write_file_atomic(const std::filesystem::path& path, std::string_view bytes);

/// The whole file; throws InputError naming the path if it cannot be read.
std::string read_file(const std::filesystem::path& path);

/// A fresh private folder (mode 0700) removed with its contents on destruction.
class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "ptxbench");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  /// Keeps the folder on destruction (for debugging, PTXBENCH_KEEP_TEMP).
  void keep() { keep_ = true; }

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

/// Lower-case hex SHA-256 of `bytes`.
std::string sha256_hex(std::string_view bytes);

}  // namespace ptxb
