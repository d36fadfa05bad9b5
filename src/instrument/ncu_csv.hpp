// Reads what Nsight Compute prints with `--csv --print-metric-instances details`
// (docs/evidence.md): one row per profiled kernel and metric; the instanced metric
// sass__inst_executed_per_opcode_with_modifier_all reads "762 (BRA: 88; HGMMA.64x8x16.F32.BF16: 12;
// ...)", executed warp-level instruction counts per SASS opcode with its modifiers.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxb {

/// The metrics the evidence run asks ncu for.
inline constexpr std::string_view kOpcodeMetric =
    "sass__inst_executed_per_opcode_with_modifier_all";
inline constexpr std::string_view kDurationMetric = "gpu__time_duration.sum";

/// One kernel launch as ncu profiled it.
struct ProfiledKernel {
  int64_t id = -1;   ///< ncu's result ID: launch order within the process
  std::string name;  ///< demangled, with its parameter list when it has one
  int64_t stream = -1;
  std::array<int64_t, 3> grid{};
  std::array<int64_t, 3> block{};
  /// Executed warp-level instructions per opcode with modifiers ("SYNCS.ARRIVE.TRANS64.A1T0").
  std::map<std::string, int64_t> opcodes;
  int64_t executed_total = 0;         ///< the metric's aggregate value
  std::optional<double> duration_ns;  ///< gpu__time_duration.sum, when collected
  /// Every other numeric metric row by name: the hardware counters and thread-level arithmetic
  /// counts of docs/evidence.md ("sm__inst_executed_pipe_fma.sum": 3975680).
  std::map<std::string, double> metrics;
};

/// A metric of `k` by name; nullopt when ncu did not report it for this kernel.
std::optional<double> metric_of(const ProfiledKernel& k, const std::string& name);

/// Parses ncu's CSV log. Lines that are not CSV rows ("==PROF==", warnings) are skipped. Kernels
/// come back in result-ID order. Throws InputError naming the line when a row is malformed, the
/// opcode metric is missing for a kernel, or its instances do not add up to its aggregate.
std::vector<ProfiledKernel> parse_ncu_csv(std::string_view text);

/// True when ncu's kernel name is `name` itself or `name(` followed by a parameter list.
bool kernel_name_is(const std::string& ncu_name, std::string_view name);

}  // namespace ptxb
