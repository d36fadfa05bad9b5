// The instruction catalog: one entry per target PTX instruction and architecture, loaded from
// tasks/catalog/*.toml (each row's `status` says where its opcodes come from).
#pragma once

#include <filesystem>

#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "core/arch.hpp"  // known_archs

namespace ptxb {

/// How FLOPs are credited to executed primary opcodes of an MMA instruction.
enum class FlopRule {
  kNone,          ///< not an MMA instruction: no FLOPs
  kSassShapeMnk,  ///< FLOPs per warpgroup instruction = 2*m*n*k, read from the SASS shape
                  ///< suffix (HGMMA.64x256x16 -> 2*64*256*16); executed counts are per warp,
                  ///< four warps per warpgroup instruction
};

struct InstructionEntry {
  std::string name;                          ///< target name used by tasks, "wgmma.mma_async"
  std::string arch;                          ///< "sm_90a" or "sm_100a"
  std::string ptx_pattern;                   ///< ECMAScript regex matched against PTX text (S0)
  std::vector<std::string> primary_opcodes;  ///< SASS opcode prefixes that count (S1, R1, R2)
  std::vector<std::string> glue_opcodes;     ///< emitted for other reasons; prove nothing
  FlopRule flop_rule = FlopRule::kNone;
  /// Most input bytes one executed (warp-level) instruction can move; sets the R2 count floor of
  /// non-MMA targets (docs/evidence.md). 0: no floor beyond R1.
  int64_t bytes_per_instruction = 0;
  /// A hardware counter of the bytes the instruction moves (one of the catalog's [[counters]], so
  /// ncu reads it for the profiled call and the timing worker for every timed call), and the least
  /// share of the problem's input bytes it must show in each profiled call for R2 (next to the
  /// count floor). "" and 0: no byte floor.
  std::string moved_bytes_metric;
  double min_moved_input_share = 0;
  /// Entries with a byte floor: ncu metrics (disjoint) whose sum is the bytes the SMs read from
  /// L2 by other means (plain loads, cp.async, textures, atomics); a task may cap their share of
  /// the input bytes (TargetSpec::max_other_read_input_share), so that the target's bytes cannot
  /// be met by loading one box over and over while the inputs arrive another way.
  std::vector<std::string> other_read_metrics;
  std::string status;  ///< provenance tag: "verified", "3p", "conflict"...
  std::string note;    ///< one line on semantics, for prompts and reports

  /// True when a SASS opcode token (e.g. "HGMMA.64x256x16.F32.BF16") is one of primary_opcodes:
  /// the token equals a primary opcode or starts with it followed by '.'. A primary opcode written
  /// with a trailing '$' ("SYNCS.ARRIVE.TRANS64$") matches that exact token only, for opcodes whose
  /// dotted extensions are other instructions (SYNCS.ARRIVE.TRANS64.A1T0 is a plain arrive).
  /// The token is the opcode alone: no predicate ("@P0"), no operands.
  bool is_primary(const std::string& sass_opcode) const;
  /// Same rule for glue_opcodes.
  bool is_glue(const std::string& sass_opcode) const;
};

/// A hardware counter read both in the timed process (CUPTI range profiler) and in the evidence
/// run (ncu), compared call by call (docs/evidence.md, "Counters from the timed process").
struct CounterSpec {
  std::string metric;  ///< "sm__inst_executed_pipe_tensor_op_gmma.sum": no "_sass_" metrics
  std::string arch;
  /// Largest relative difference (of the larger count) that is not a mismatch.
  double tolerance = 0;
  std::string note;  ///< why this counter and this tolerance
};

class Catalog {
 public:
  std::vector<InstructionEntry> entries;
  std::vector<CounterSpec> counters;

  /// The entry for `name` on `arch`, or nullptr.
  const InstructionEntry* find(const std::string& name, const std::string& arch) const;
  /// Entries of `arch`, in file order.
  std::vector<const InstructionEntry*> for_arch(const std::string& arch) const;
  /// Counters of `arch`, in file order (empty: the arch has no counter check).
  std::vector<CounterSpec> counters_for(const std::string& arch) const;
};

std::string_view to_string(FlopRule rule);
std::optional<FlopRule> flop_rule_from_string(std::string_view name);

/// Loads every *.toml under `dir` (tasks/catalog). Throws InputError naming file, field, problem.
Catalog load_catalog(const std::filesystem::path& dir);

/// FLOPs of one warpgroup-level MMA instruction from its SASS opcode token, e.g.
/// "HGMMA.64x256x16.F32.BF16" -> 2*64*256*16 = 524288. nullopt if the token has no MxNxK shape.
std::optional<double> mma_flops_per_instruction(const std::string& sass_opcode);

}  // namespace ptxb
