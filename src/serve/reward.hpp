// The shaped reward of a verdict, the same table as the Python package's `reward_of`
// (docs/python.md; python/ptxbench/rewards.py): a cheat -1, other failures 0, incorrect 0.1,
// correct without the target instructions doing the work 0.3, passed 0.5 + 0.5 * min(s, 2) / 2
// with s the geometric mean of the cold speedups (0.5 without timing); nullopt when PTXBench
// could not judge (`unavailable`).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

namespace ptxb::serve {

std::optional<double> reward_of(const nlohmann::json& verdict);

}  // namespace ptxb::serve
