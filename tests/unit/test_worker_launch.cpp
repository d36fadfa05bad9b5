// Where the parent puts the shared object the worker processes load (eval/worker_launch.hpp):
// outside the worker folder, which candidate code may write, rename and remove in, in a folder
// the sandbox user can read and not change; the job names that copy.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "eval/config.hpp"
#include "eval/worker_launch.hpp"
#include "sys/files.hpp"
#include "tasks/catalog.hpp"
#include "tasks/spec.hpp"

namespace ptxb {
namespace {

namespace fs = std::filesystem;

const fs::path kTasksRoot = fs::path(PTXB_SOURCE_DIR) / "tasks";

struct Prepared {
  TempDir compiled_dir{"ptxbench-test-compiled"}, work{"ptxbench-test-work"},
      binary{"ptxbench-test-binary"};
  CompileResult compiled;
  EvalConfig config = EvalConfig::from_environment();

  Prepared() {
    compiled.ok = true;
    compiled.shared_object = compiled_dir.path() / "cand.so";
    write_file_atomic(compiled.shared_object, "not really an ELF file, but bytes to copy");
    config.sandbox = false;  // no chown of the worker folder in a test
  }
  WorkerJob job(const fs::path& binary_dir) {
    const Catalog catalog = load_catalog(kTasksRoot / "catalog");
    const TaskSpec task = find_task(kTasksRoot, catalog, "sm90/gemm/bf16-wgmma");
    return prepare_worker_job(task, catalog, config, compiled, work.path(), binary_dir);
  }
};

TEST(WorkerLaunch, TheSharedObjectIsACopyOutsideTheWorkerFolderThatOnlyTheParentCanChange) {
  Prepared p;
  const WorkerJob job = p.job(p.binary.path());
  EXPECT_EQ(job.shared_object, p.binary.path() / "cand.so");
  EXPECT_EQ(read_file(job.shared_object), read_file(p.compiled.shared_object));
  EXPECT_FALSE(fs::exists(p.work.path() / "cand.so"));
  struct stat folder {};
  ASSERT_EQ(::stat(p.binary.path().c_str(), &folder), 0);
  EXPECT_EQ(folder.st_uid, ::geteuid());
  EXPECT_EQ(folder.st_mode & 0777, 0700u) << "no sandbox user: the worker is this user";
  struct stat file {};
  ASSERT_EQ(::stat(job.shared_object.c_str(), &file), 0);
  EXPECT_EQ(file.st_mode & 0777, 0600u);
}

// As root with the sandbox on: readable by the sandbox user's group, by no other user (not the
// workers of other GPUs, whose sandbox users differ), writable by root alone.
TEST(WorkerLaunch, AsRootTheSandboxUsersGroupAloneMayReadTheSharedObject) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the folder's group away";
  Prepared p;
  p.config.sandbox = true;
  const WorkerJob job = p.job(p.binary.path());
  struct stat folder {
  }, file{};
  ASSERT_EQ(::stat(p.binary.path().c_str(), &folder), 0);
  ASSERT_EQ(::stat(job.shared_object.c_str(), &file), 0);
  EXPECT_EQ(folder.st_uid, 0u);
  EXPECT_EQ(folder.st_gid, p.config.sandbox_uid);
  EXPECT_EQ(folder.st_mode & 0777, 0750u);
  EXPECT_EQ(file.st_gid, p.config.sandbox_uid);
  EXPECT_EQ(file.st_mode & 0777, 0640u);
}

TEST(WorkerLaunch, AFolderInsideTheWorkerFolderIsRefused) {
  Prepared p;
  fs::create_directories(p.work.path() / "bin");
  EXPECT_THROW(p.job(p.work.path() / "bin"), InternalError);
  EXPECT_THROW(p.job(p.work.path()), InternalError);
}

// The later processes (sanitizers, evidence run) each get a fresh folder of their own: the
// sandbox's writable folder, HOME and TMPDIR are that folder's, the message key a new one, and the
// shared object the same parent's copy.
TEST(WorkerLaunch, ALaterProcessGetsItsOwnFolderKeyAndEnvironment) {
  Prepared p;
  p.config.sandbox = true;  // the policy only (as root the folders are also chowned)
  const WorkerJob first = p.job(p.binary.path());
  TempDir later("ptxbench-test-later");
  const WorkerJob job = job_in_folder(first, p.config, later.path(), /*under_profiler=*/true);
  ASSERT_TRUE(job.sandbox.has_value());
  EXPECT_EQ(job.sandbox->writable, std::vector<fs::path>{later.path()});
  EXPECT_NE(job.message_key, first.message_key);
  EXPECT_EQ(job.shared_object, first.shared_object);
  const auto has = [&](const std::string& entry) {
    return std::find(job.environment.begin(), job.environment.end(), entry) !=
           job.environment.end();
  };
  EXPECT_TRUE(has("HOME=" + later.path().string()));
  EXPECT_TRUE(has("TMPDIR=" + later.path().string()));
  EXPECT_FALSE(has("HOME=" + p.work.path().string()));
}

}  // namespace
}  // namespace ptxb
