// The quick judging tier (docs/serve.md): a cheaper judgement for a first look or a dense reward,
// with the full tier's checks on fewer shapes and rounds. Its verdict says "tier": "quick".
#pragma once

#include <optional>
#include <string_view>

#include "eval/config.hpp"
#include "tasks/spec.hpp"

namespace ptxb {

/// "full" or "quick".
std::string_view tier_name(Tier tier);
/// The tier named `name`; nullopt for any other name.
std::optional<Tier> tier_from_name(std::string_view name);

/// `task` as the quick tier judges it: timed (and so profiled by the evidence stage) only at its
/// first timed visible shape and its first timed hidden one; every shape stays for correctness,
/// which the worker then runs on the smallest visible and the smallest hidden shape only.
TaskSpec quick_task(const TaskSpec& task);

/// `config` for the quick tier: that tier, 2 warm-up calls and 10 timed rounds per shape, no
/// sustained regime. Everything else (evidence, counters, round checks, sandbox) as configured.
EvalConfig quick_tier(EvalConfig config);

}  // namespace ptxb
