// The static stage (CPU): compile a submission with fixed flags into a shared object, keep every
// artefact (log, PTX, SASS, ptxas resources, quality flags), and derive S0/S1 evidence.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/arch.hpp"
#include "tasks/spec.hpp"

namespace ptxb {

struct CompileOptions {
  std::string arch = known_archs().front();  ///< an Arch name (core/arch.hpp); its gencode is used
  std::chrono::milliseconds deadline{180'000};  ///< nvcc wall-clock limit
  std::filesystem::path cache_dir;              ///< content-hashed cache root
  std::filesystem::path nvcc;                   ///< nvcc executable
  std::filesystem::path cuobjdump;              ///< for SASS; empty: SASS unavailable
  std::filesystem::path abi_include_dir;        ///< folder holding ptxbench/abi.h
  /// nvcc runs as this user (ProcessSpec::run_as_uid), unset: as this process's. NOTE: the
  /// compiler reads what the source names: as root, `#include "/etc/shadow"` put a root-only
  /// file's lines into the compile log (the verdict, the model's feedback) and `.incbin` into
  /// the binary. cuobjdump, which parses the binary the source shapes, runs as this user too.
  /// EvalConfig sets it for root parents with the sandbox on.
  std::optional<uint32_t> run_as_uid;
};

/// ptxas resource usage of one function ("ptxas info : Used N registers ...").
struct PtxasResources {
  std::string function;  ///< mangled name
  int registers = 0;
  int64_t stack_frame_bytes = 0;
  int64_t spill_store_bytes = 0;
  int64_t spill_load_bytes = 0;
  int64_t shared_bytes = 0;  ///< static shared memory ("smem")
};

/// A compiler diagnostic kept as a quality flag, e.g. C7515 wgmma serialization.
struct QualityFlag {
  std::string code;     ///< "C7514", "C7515", "C7517", "C7508", ...
  std::string message;  ///< the full diagnostic line
};

/// SASS of one function of the shared object.
struct SassFunction {
  std::string name;                              ///< mangled name as cuobjdump prints it
  std::map<std::string, int64_t> opcode_counts;  ///< static count per full opcode token
  std::string text;                              ///< the function's SASS listing
};

struct CompileResult {
  bool ok = false;  ///< a loadable shared object was produced
  bool timed_out = false;
  bool cached = false;    ///< served from the cache
  double seconds = 0;     ///< compile wall time (0 when cached)
  std::string log;        ///< nvcc + ptxas output, verbatim
  std::string cache_key;  ///< hex SHA-256 of source, flags and tool versions
  std::filesystem::path shared_object;
  std::string ptx;
  std::string sass;  ///< full cuobjdump -sass output ("" when unavailable)
  bool sass_available = false;
  std::vector<SassFunction> sass_functions;
  std::vector<PtxasResources> resources;
  std::vector<QualityFlag> quality_flags;
  std::vector<std::string> needed_libraries;   ///< DT_NEEDED entries of the shared object
  std::vector<std::string> forbidden_imports;  ///< GPU-library imports (cuBLAS, cuDNN, ...)
};

/// Compiles `source` (one .cu file) for options.arch. Never throws for a bad source: a failure
/// is ok=false with the log. Throws ApiError only when nvcc cannot be started at all.
CompileResult compile_submission(const std::string& source, const CompileOptions& options);

/// Static evidence for one target: S0 (PTX text matches the catalog pattern) and S1 (a primary
/// opcode is present in the SASS of a kernel in the shared object).
struct StaticEvidence {
  std::string instruction;
  bool s0 = false;
  std::optional<bool> s1;                     ///< nullopt when SASS was unavailable
  std::vector<std::string> s1_functions;      ///< kernels whose SASS holds a primary opcode
  std::map<std::string, int64_t> s1_opcodes;  ///< primary opcode token -> static count
};

std::vector<StaticEvidence> static_evidence(const TaskSpec& task, const Catalog& catalog,
                                            const CompileResult& compiled);

}  // namespace ptxb
