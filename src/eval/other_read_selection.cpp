#include "eval/other_read_selection.hpp"

#include <algorithm>

#include "instrument/sass_opcode.hpp"

namespace ptxb {
namespace {

bool in_any_family(const std::string& opcode, const std::vector<std::string>& families) {
  return std::any_of(families.begin(), families.end(),
                     [&](const std::string& f) { return opcode_in_family(opcode, f); });
}

}  // namespace

const std::map<std::string, std::vector<std::string>>& optional_other_read_metrics() {
  // NOTE: generous families: a family listed here that a kind never uses only keeps its metric.
  // The atomics metric counts atomics with a return value (ATOMG, generic ATOM reaching global
  // memory); reductions (RED, REDG) are listed too, in case the hardware counts them there.
  static const std::map<std::string, std::vector<std::string>> kMetrics = {
      {"l1tex__m_xbar2l1tex_read_bytes_mem_global_op_ldgsts_cache_access.sum", {"LDGSTS"}},
      {"smsp__sass_l1tex_m_xbar2l1tex_read_bytes_mem_global_op_ldgsts_cache_bypass.sum",
       {"LDGSTS"}},
      {"l1tex__m_xbar2l1tex_read_bytes_mem_surface_op_ld.sum", {"SULD"}},
      {"l1tex__m_xbar2l1tex_read_bytes_mem_global_op_atom.sum", {"ATOM", "ATOMG", "RED", "REDG"}},
  };
  return kMetrics;
}

OtherReadSelection select_other_reads(const Catalog& catalog,
                                      const std::vector<SassFunction>& functions) {
  OtherReadSelection out{catalog, {}};
  if (functions.empty()) return out;
  for (const auto& [metric, families] : optional_other_read_metrics()) {
    const bool present =
        std::any_of(functions.begin(), functions.end(), [&](const SassFunction& f) {
          return std::any_of(f.opcode_counts.begin(), f.opcode_counts.end(),
                             [&](const auto& op) { return in_any_family(op.first, families); });
        });
    if (!present) out.left_out[metric] = families;
  }
  for (InstructionEntry& e : out.catalog.entries)
    std::erase_if(e.other_read_metrics,
                  [&](const std::string& m) { return out.left_out.count(m) > 0; });
  return out;
}

std::optional<std::string> left_out_kind_executed(const OtherReadSelection& selection,
                                                  const std::set<std::string>& executed_opcodes) {
  for (const std::string& opcode : executed_opcodes)
    for (const auto& [metric, families] : selection.left_out)
      if (in_any_family(opcode, families))
        return opcode + ", which " + metric + " counts and the static SASS did not list";
  return std::nullopt;
}

}  // namespace ptxb
