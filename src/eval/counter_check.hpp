// The parent's half of "the evidence describes the timed calls" (docs/evidence.md): the worker's
// hardware counts of every candidate call at a timed shape against the counts of the call Nsight
// Compute profiled there. Two or more calls off tolerance: rejected_cheat; one: an audit note.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/outcome.hpp"
#include "instrument/evidence_judge.hpp"
#include "tasks/catalog.hpp"
#include "tasks/spec.hpp"

namespace ptxb {

struct CounterCheck {
  std::optional<Outcome> outcome;  ///< rejected_cheat or unavailable; nullopt: no objection
  std::string reason;
  std::vector<std::string> audit;
  nlohmann::json record;  ///< the verdict's "counter_check"
};

/// `worker_counters` is the record the worker's messages left ({"setup": ..., "shapes": [...]},
/// see fold_worker). Nothing is judged while the runtime evidence itself is unavailable.
CounterCheck check_counters(const TaskSpec& task, const Catalog& catalog,
                            const nlohmann::json& worker_counters, const RuntimeJudgement& j);

}  // namespace ptxb
