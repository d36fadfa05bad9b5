// The identity of a task definition: what a result means depends on the spec (shapes, tolerances,
// targets, baseline), the prompt a model was shown, the catalog rows that judge its targets, the
// architecture's counters and the reference implementation. Every verdict and run records the
// hash; the report never pools results of one task id judged under different hashes.
#pragma once

#include <string>

#include "tasks/catalog.hpp"
#include "tasks/spec.hpp"

namespace ptxb {

/// The canonical text the hash covers (JSON): the spec with hidden shapes (not its folder), the
/// prompt, the catalog rows of its targets, its arch's counters and its reference's version.
std::string task_definition_text(const TaskSpec& task, const Catalog& catalog);

/// SHA-256 (hex) of task_definition_text.
std::string task_hash(const TaskSpec& task, const Catalog& catalog);

/// The first 12 hex digits: how reports name a definition.
std::string short_task_hash(const std::string& hash);

}  // namespace ptxb
