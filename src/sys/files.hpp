// Files and folders: atomic writes, private temporary folders, content hashes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
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

/// Gives `folder` and everything in it (links not followed) to user and group `uid`, for a child
/// process that runs as that user. Throws ApiError (needs root).
void give_to_user(const std::filesystem::path& folder, uint32_t uid);

/// Makes `file` in `folder` readable and `folder` listable by group `group` (0640, 0750: the
/// owner stays, the group becomes `group`) and by no one else but the owner; without a group
/// by the owner alone (0600, 0700). For a child running as another user that must read the file
/// and change nothing. Throws ApiError when the group cannot be set (needs root).
void share_read_only(const std::filesystem::path& folder, const std::filesystem::path& file,
                     std::optional<uint32_t> group);

/// Lower-case hex SHA-256 of `bytes`.
std::string sha256_hex(std::string_view bytes);

}  // namespace ptxb
