#include "tasks/task_identity.hpp"

#include "sys/files.hpp"
#include "tasks/task_json.hpp"
#include "tasks/task_wire.hpp"

namespace ptxb {

std::string task_definition_text(const TaskSpec& task, const Catalog& catalog) {
  nlohmann::json spec = task_detail_json(task, HiddenShapes::kInclude);
  spec.erase("dir");  // where a checkout keeps it changes nothing
  // FLOPs and bytes are rules applied to the shapes: derived data, not part of the definition.
  for (nlohmann::json& shape : spec["shapes"]) {
    shape.erase("flops");
    shape.erase("bytes");
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const TargetSpec& t : task.targets) {
    const InstructionEntry* e = catalog.find(t.instruction, task.arch);
    if (e == nullptr) continue;
    rows.push_back({{"name", e->name},
                    {"ptx_pattern", e->ptx_pattern},
                    {"primary_opcodes", e->primary_opcodes},
                    {"glue_opcodes", e->glue_opcodes},
                    {"flop_rule", std::string(to_string(e->flop_rule))},
                    {"bytes_per_instruction", e->bytes_per_instruction}});
  }
  const nlohmann::json identity = {
      {"spec", spec},
      {"prompt", task.prompt},
      {"catalog", rows},
      {"counters", counters_json(catalog.counters_for(task.arch))},
      {"reference", task.correctness.reference + "@" +
                        family_of(task.family).reference_version(task.correctness.reference)}};
  return identity.dump();  // NOTE: nlohmann::json objects iterate in key order: canonical
}

std::string task_hash(const TaskSpec& task, const Catalog& catalog) {
  return sha256_hex(task_definition_text(task, catalog));
}

std::string short_task_hash(const std::string& hash) { return hash.substr(0, 12); }

}  // namespace ptxb
