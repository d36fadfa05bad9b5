// Loading a task from TOML text, for tests of the loader's rules: the text is written as
// task.toml beside a one-line prompt.md in a temporary folder and loaded with the shipped catalog.
// Throws what load_task throws (InputError naming the file and field); load_task_message returns
// its message instead ("" when the task loads).
#pragma once

#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "shipped_tasks.hpp"
#include "sys/files.hpp"
#include "tasks/spec.hpp"

namespace ptxb::testing {

inline TaskSpec load_task_text(const std::string& toml) {
  TempDir dir("ptxb-task-text");
  write_file_atomic(dir.path() / "task.toml", toml);
  write_file_atomic(dir.path() / "prompt.md", "A prompt.\n");
  return load_task(dir.path() / "task.toml", catalog());
}

inline std::string load_task_message(const std::string& toml, TaskSpec* loaded = nullptr) {
  try {
    const TaskSpec task = load_task_text(toml);
    if (loaded != nullptr) *loaded = task;
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

}  // namespace ptxb::testing
