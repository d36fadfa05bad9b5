// The evidence control's bytes on the catalog's byte counters (docs/evidence.md, "Controls"): a
// byte floor or a cap on other reads is only as good as the counters it reads, so every evidence
// run shows them counting the control's known loads before they judge a candidate.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "instrument/ncu_csv.hpp"
#include "tasks/catalog.hpp"
#include "tasks/spec.hpp"

namespace ptxb {

struct ControlBytes {
  std::string problem;  ///< empty: the counters count what the control loads
  nlohmann::json detail = nlohmann::json::object();  ///< the live control's bytes per metric
};

/// `positive` and `negative`: the live and dead evidence control as ncu counted them. Where
/// `entry` has a byte floor (moved_bytes_metric), its counter must show the control's TMA load
/// bytes exactly (kEvidenceControlTmaLoadBytes); where `target` caps other reads
/// (max_other_read_input_share), every other-read metric of `entry` must show at least the
/// control's bytes of its kind (kEvidenceControlOtherReads) and their sum those plus the
/// non-coherent loads' bytes. The dead control must show 0 on each. A metric ncu did not report,
/// or one the control has no load for, is a problem too: the run cannot show it counts.
ControlBytes check_control_bytes(const InstructionEntry& entry, const TargetSpec& target,
                                 const ProfiledKernel& positive, const ProfiledKernel& negative);

}  // namespace ptxb
