// The library baseline's plan choices, cached between evaluations (docs/timing.md, "The library's
// plan"). cuBLASLt and cuDNN offer several plans per problem and the baseline times them all to
// keep the fastest (0.4-0.7 s of a GEMM evaluation, seconds of an attention one, where cuDNN also
// compiles every offered plan). The worker makes those choices before any candidate code runs and
// reports them ("library_choices", accepted by eval/worker_fold.cpp only before the "sandbox"
// message); the parent stores them here, in the cache folder no worker can write, and hands them
// to the next evaluation of the task on the same device, whose baseline then takes them untimed
// when its library still offers them (Implementation::prefer). Every candidate of a run thus meets
// the same library plans.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace ptxb {

/// Bumped whenever the file's layout or a choice's meaning changes.
inline constexpr int kLibraryChoicesSchema = 1;

/// <cache_dir>/library-choices/<hex SHA-256 of the schema, the task hash and the device index>.json
std::filesystem::path library_choices_path(const std::filesystem::path& cache_dir,
                                           const std::string& task_hash, int device);

/// The choices stored in `file` (a JSON array of objects): empty when the file is missing, cannot
/// be read or parsed, is of another schema, or its checksum (SHA-256 of the choices as stored)
/// does not match: a torn or edited file is a miss, never an error.
nlohmann::json load_library_choices(const std::filesystem::path& file);

/// Stores `choices` (objects; others are dropped) in `file`, merged with what it holds: a stored
/// choice of the same problem, device and library is replaced. Written atomically. Throws
/// ApiError when the folder cannot be written.
void store_library_choices(const std::filesystem::path& file, const nlohmann::json& choices);

}  // namespace ptxb
