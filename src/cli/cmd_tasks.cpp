// `ptxbench tasks [ID] [--json] [--show-hidden] [--prompt]`: list the tasks, or show one.
// Hidden shapes are counted, never printed, unless --show-hidden is given.
#include <CLI/CLI.hpp>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli/cmd_common.hpp"
#include "cli/commands.hpp"
#include "tasks/catalog.hpp"
#include "tasks/spec.hpp"
#include "tasks/task_identity.hpp"
#include "tasks/task_json.hpp"

namespace ptxb::cli {
namespace {

struct TasksArgs {
  std::string id;
  bool json = false;
  bool show_hidden = false;
  bool prompt = false;
};

std::string join_targets(const TaskSpec& task) {
  std::string out;
  for (const TargetSpec& target : task.targets)
    out += (out.empty() ? "" : ",") + target.instruction;
  return out;
}

void print_list(const std::vector<TaskSpec>& tasks, std::ostream& os) {
  size_t id_width = 2, family_width = 6;
  for (const TaskSpec& task : tasks) {
    id_width = std::max(id_width, task.id.size());
    family_width = std::max(family_width, task.family.size());
  }
  os << std::left << std::setw(static_cast<int>(id_width) + 2) << "ID" << std::setw(9) << "ARCH"
     << std::setw(static_cast<int>(family_width) + 2) << "FAMILY" << std::setw(7) << "LEVEL"
     << std::setw(9) << "VISIBLE" << std::setw(8) << "HIDDEN"
     << "TARGETS\n";
  for (const TaskSpec& task : tasks) {
    os << std::setw(static_cast<int>(id_width) + 2) << task.id << std::setw(9) << task.arch
       << std::setw(static_cast<int>(family_width) + 2) << task.family << std::setw(7) << task.level
       << std::setw(9) << task.visible_shapes().size() << std::setw(8)
       << task.hidden_shapes().size() << join_targets(task) << "\n";
  }
}

std::string tensor_line(const TensorSpec& tensor) {
  std::string dims;
  for (const std::string& dim : tensor.dims) dims += (dims.empty() ? "" : ", ") + dim;
  std::ostringstream os;
  os << tensor.name << "  " << to_string(tensor.role) << "  " << to_string(tensor.dtype) << "  ["
     << dims << "]  " << tensor.layout;
  return os.str();
}

void print_shapes(const TaskSpec& task, bool show_hidden, std::ostream& os) {
  os << "shapes (" << task.visible_shapes().size() << " visible, " << task.hidden_shapes().size()
     << " hidden" << (show_hidden ? "" : ", not shown") << "):\n";
  for (const ShapeCase& shape : task.shapes) {
    if (shape.hidden && !show_hidden) continue;
    os << "  " << shape.shape.to_string() << (shape.timed ? "  timed" : "")
       << (shape.hidden ? "  hidden" : "") << "\n";
  }
  if (!task.multiple_of.dims.empty()) {
    os << "  every shape:";
    for (const auto& [dim, divisor] : task.multiple_of.dims)
      os << " " << dim << " % " << divisor << " == 0";
    os << "\n";
  }
}

void print_task(const TaskSpec& task, const Catalog& catalog, bool show_hidden, std::ostream& os) {
  os << task.id << ": " << task.title << "\n"
     << "arch " << task.arch << ", family " << task.family << ", level " << task.level << "\n"
     << "folder " << task.dir.string() << "\n\ntensors:\n";
  for (const TensorSpec& tensor : task.tensors) os << "  " << tensor_line(tensor) << "\n";
  os << "\n";
  print_shapes(task, show_hidden, os);
  os << "\ntargets:\n";
  for (const TargetSpec& target : task.targets) {
    os << "  " << target.instruction << "  required " << to_string(target.required);
    const InstructionEntry* entry = catalog.find(target.instruction, task.arch);
    if (entry != nullptr && entry->flop_rule != FlopRule::kNone)
      os << ", min FLOP share " << target.min_flop_share << ", at most "
         << target.max_nontarget_flop_share << " of the FLOPs done by other arithmetic, "
         << target.max_nontarget_integer_share << " by integer multiply-adds, and "
         << target.max_nontarget_instructions_per_mac
         << " other instructions per multiply-add of the problem";
    if (target.max_other_read_input_share)
      os << ", other loads read at most " << *target.max_other_read_input_share
         << " of the input bytes";
    if (entry != nullptr) os << "\n      " << entry->note;
    os << "\n";
  }
  os << "\ncorrectness: reference " << task.correctness.reference << ", seeds";
  for (uint64_t seed : task.correctness.seeds) os << " " << seed;
  os << "\n";
  for (const DistributionSpec& dist : task.correctness.distributions) {
    os << "  " << dist.name << " (" << to_string(dist.kind) << ", scale " << dist.scale
       << "): atol " << dist.atol << ", rtol " << dist.rtol;
    if (dist.max_rel_frobenius > 0) os << ", max rel Frobenius " << dist.max_rel_frobenius;
    os << (dist.round_reference ? ", reference rounded to the output dtype" : "") << "\n";
  }
  os << "\nbaseline: " << task.baseline.library << ", " << task.baseline.heuristic_algos
     << " heuristic algorithms, workspace " << (task.baseline.workspace_bytes >> 20) << " MiB\n";
}

int show(const TasksArgs& args, const Catalog& catalog, const std::filesystem::path& root) {
  const TaskSpec task = find_task(root, catalog, args.id);
  if (args.prompt) {
    std::cout << task.prompt;
  } else if (args.json) {
    const auto hidden = args.show_hidden ? HiddenShapes::kInclude : HiddenShapes::kCountOnly;
    nlohmann::json detail = task_detail_json(task, hidden);
    detail["task_hash"] = task_hash(task, catalog);
    std::cout << detail.dump(2) << "\n";
  } else {
    print_task(task, catalog, args.show_hidden, std::cout);
  }
  return kExitOk;
}

}  // namespace

int run_tasks(int argc, char** argv) {
  CLI::App app{"List the tasks, or show one task.", "ptxbench tasks"};
  TasksArgs args;
  app.add_option("id", args.id, "task id, e.g. sm90/gemm/bf16-wgmma-tma (omit to list all)");
  app.add_flag("--json", args.json, "machine-readable output");
  app.add_flag("--show-hidden", args.show_hidden,
               "also print the hidden shapes (never put them in front of a model)");
  app.add_flag("--prompt", args.prompt, "print the task's prompt text (prompt.md)");
  if (const auto status = parse_flags(app, argc, argv)) return *status;
  if (args.id.empty() && (args.show_hidden || args.prompt)) {
    std::cerr << "ptxbench tasks: --show-hidden and --prompt need a task id\n";
    return kExitHarnessError;
  }

  const std::filesystem::path root = default_tasks_root();
  const Catalog catalog = load_catalog(root / "catalog");
  if (!args.id.empty()) return show(args, catalog, root);

  const std::vector<TaskSpec> tasks = load_all_tasks(root, catalog);
  if (args.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const TaskSpec& task : tasks) {
      nlohmann::json summary = task_summary_json(task);
      summary["task_hash"] = task_hash(task, catalog);
      out.push_back(std::move(summary));
    }
    std::cout << out.dump(2) << "\n";
  } else {
    print_list(tasks, std::cout);
  }
  return kExitOk;
}

}  // namespace ptxb::cli
