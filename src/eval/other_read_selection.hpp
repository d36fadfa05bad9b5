// Which other-read byte metrics an evidence run reads (docs/evidence.md, "Cost"). Each metric
// of a load kind costs Nsight Compute a replay pass of every profiled kernel; a kind whose
// instructions appear in none of the candidate's SASS functions counts nothing, so its metric is
// left out. Code the static SASS does not list (loaded at run time) could still execute such an
// instruction: the run's per-opcode counts show it, and the evidence is then taken again with
// every metric (eval/pipeline.cpp).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compile/static_stage.hpp"
#include "tasks/catalog.hpp"

namespace ptxb {

/// The other-read metrics that may be left out, each with the SASS opcode families whose
/// execution it counts (compared by opcode_in_family: "LDGSTS" covers "LDGSTS.E.BYPASS.128").
/// Metrics not listed (plain and non-coherent global loads, textures: loads that generic and
/// constant-cache forms also reach) are always read.
const std::map<std::string, std::vector<std::string>>& optional_other_read_metrics();

struct OtherReadSelection {
  /// The catalog with the left-out metrics removed from every entry's other_read_metrics: what
  /// the evidence run collects and judges (its controls included).
  Catalog catalog;
  /// Each left-out metric with its opcode families.
  std::map<std::string, std::vector<std::string>> left_out;
};

/// Leaves out every optional metric none of whose opcode families occurs in `functions` (the
/// candidate's whole SASS listing, every function, launched or not). With no SASS listing
/// (`functions` empty) nothing is left out.
OtherReadSelection select_other_reads(const Catalog& catalog,
                                      const std::vector<SassFunction>& functions);

/// The first of `executed_opcodes` (opcodes the profiled candidate calls executed) that a
/// left-out metric would have counted, in words ("LDGSTS.E.BYPASS.128, which ... counts");
/// nullopt when none.
std::optional<std::string> left_out_kind_executed(const OtherReadSelection& selection,
                                                  const std::set<std::string>& executed_opcodes);

}  // namespace ptxb
