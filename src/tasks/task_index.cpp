// The task tree: finding task folders, loading them all or one by id (TOML: the parent only; the
// vocabulary around TaskSpec is in task_vocabulary.cpp, which the worker links).
#include <algorithm>
#include <array>
#include <cstdlib>

#include "core/error.hpp"
#include "sys/home.hpp"
#include "tasks/spec.hpp"

namespace ptxb {
namespace {

/// task.toml files under `root`, recursively.
std::vector<std::filesystem::path> task_files(const std::filesystem::path& root) {
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec))
    throw InputError(root.string() + ": tasks folder does not exist");
  std::vector<std::filesystem::path> files;
  for (const auto& item : std::filesystem::recursive_directory_iterator(root))
    if (item.is_regular_file() && item.path().filename() == "task.toml")
      files.push_back(item.path());
  std::sort(files.begin(), files.end());
  return files;
}

/// The id a task folder must carry: its path under the root, '/'-separated.
std::string folder_id(const std::filesystem::path& root, const std::filesystem::path& task_toml) {
  return task_toml.parent_path().lexically_relative(root).generic_string();
}

}  // namespace

std::filesystem::path default_tasks_root() {
  const char* env = std::getenv("PTXBENCH_TASKS_DIR");
  if (env != nullptr && *env != '\0') return std::filesystem::path(env);
  return ptxbench_home() / "tasks";
}

std::vector<TaskSpec> load_all_tasks(const std::filesystem::path& tasks_root,
                                     const Catalog& catalog) {
  std::vector<TaskSpec> tasks;
  for (const auto& file : task_files(tasks_root)) {
    TaskSpec task = load_task(file, catalog);
    const std::string expected = folder_id(tasks_root, file);
    if (task.id != expected)
      throw InputError(file.string() + ": id: '" + task.id + "' must equal its folder, '" +
                       expected + "'");
    tasks.push_back(std::move(task));
  }
  std::sort(tasks.begin(), tasks.end(),
            [](const TaskSpec& a, const TaskSpec& b) { return a.id < b.id; });
  return tasks;
}

TaskSpec find_task(const std::filesystem::path& tasks_root, const Catalog& catalog,
                   const std::string& id) {
  // NOTE: only the requested folder is parsed, so one broken task does not hide the others.
  std::vector<std::string> known;
  for (const auto& file : task_files(tasks_root)) {
    const std::string folder = folder_id(tasks_root, file);
    if (folder != id) {
      known.push_back(folder);
      continue;
    }
    TaskSpec task = load_task(file, catalog);
    if (task.id != id)
      throw InputError(file.string() + ": id: '" + task.id + "' must equal its folder, '" + id +
                       "'");
    return task;
  }
  std::string list;
  for (const std::string& name : known) list += (list.empty() ? "" : ", ") + name;
  throw InputError("unknown task '" + id + "' under " + tasks_root.string() +
                   (known.empty() ? std::string(" (no tasks found)") : " (known: " + list + ")"));
}

}  // namespace ptxb
