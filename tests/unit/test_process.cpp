// Child processes: exit codes, signals, deadlines, output capture and the result pipe.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>

#include "core/error.hpp"
#include "sys/files.hpp"
#include "sys/process.hpp"

namespace ptxb {
namespace {

namespace fs = std::filesystem;

ProcessResult sh(const std::string& script,
                 std::chrono::milliseconds deadline = std::chrono::seconds(10),
                 const std::filesystem::path& out = {}, bool pipe = false) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.deadline = deadline;
  spec.stdout_path = out;
  spec.pass_result_pipe = pipe;
  return run_process(spec);
}

TEST(Process, ExitCodes) {
  EXPECT_TRUE(sh("exit 0").ok());
  const ProcessResult r = sh("exit 7");
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.describe(), "exit 7");
}

TEST(Process, MissingProgramIs127) {
  ProcessSpec spec;
  spec.argv = {"/nonexistent/program"};
  EXPECT_EQ(run_process(spec).exit_code, 127);
}

TEST(Process, SignalIsReported) {
  const ProcessResult r = sh("kill -SEGV $$");
  ASSERT_TRUE(r.term_signal.has_value());
  EXPECT_EQ(*r.term_signal, SIGSEGV);
  EXPECT_NE(r.describe().find("signal 11"), std::string::npos);
}

TEST(Process, DeadlineKillsTheWholeGroup) {
  TempDir dir;
  const auto marker = dir.path() / "grandchild-survived";
  // The grandchild would write the marker after 2 s unless the group is killed.
  const ProcessResult r =
      sh("(sleep 2; touch " + marker.string() + ") & sleep 30", std::chrono::milliseconds(300));
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.wall_seconds, 5.0);
  ::sleep(3);
  EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST(Process, StdoutGoesToFileAndResultPipeToFd3) {
  TempDir dir;
  const auto out = dir.path() / "out.txt";
  const ProcessResult r = sh("echo printed; echo result >&3", std::chrono::seconds(10), out, true);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(read_file(out), "printed\n");
  EXPECT_EQ(r.result_bytes, "result\n");
}

TEST(Process, ReadTextFileCapsSize) {
  TempDir dir;
  write_file_atomic(dir.path() / "big.txt", std::string(100, 'x'));
  const std::string text = read_text_file(dir.path() / "big.txt", 10);
  EXPECT_EQ(text.substr(0, 10), std::string(10, 'x'));
  EXPECT_NE(text.find("cut at 10 bytes"), std::string::npos);
}

TEST(Process, ReadTextFileExactSizeIsNotCut) {
  TempDir dir;
  write_file_atomic(dir.path() / "ten.txt", std::string(10, 'y'));
  EXPECT_EQ(read_text_file(dir.path() / "ten.txt", 10), std::string(10, 'y'));
  EXPECT_EQ(read_text_file(dir.path() / "missing.txt"), "");
}

// Candidate code may put links and pipes where the parent, possibly root, reads a worker's output
// (stdout.txt, the evidence run's messages): a link's target is never read, nor a pipe waited on.
TEST(Process, ReadTextFileReadsNoLinkAndNoPipe) {
  TempDir dir;
  write_file_atomic(dir.path() / "secret.txt", "only root may read this");
  fs::create_symlink(dir.path() / "secret.txt", dir.path() / "stdout.txt");
  const std::string through_link = read_text_file(dir.path() / "stdout.txt");
  EXPECT_EQ(through_link.find("only root"), std::string::npos) << through_link;
  ASSERT_EQ(::mkfifo((dir.path() / "fifo").c_str(), 0600), 0);
  EXPECT_EQ(read_text_file(dir.path() / "fifo"), "[not a regular file: fifo]\n");
}

// ... nor written through: an output file that is a link makes the start fail, its target intact.
TEST(Process, OutputFilesAreNotOpenedThroughALink) {
  TempDir dir;
  write_file_atomic(dir.path() / "precious.txt", "keep");
  fs::create_symlink(dir.path() / "precious.txt", dir.path() / "out.txt");
  EXPECT_THROW(sh("echo clobber", std::chrono::seconds(10), dir.path() / "out.txt", false),
               ApiError);
  EXPECT_EQ(read_file(dir.path() / "precious.txt"), "keep");
}

// run_as_uid: as root the child runs as that user with that group alone; otherwise the drop
// fails and the child never runs the program as the parent's user.
TEST(Process, RunAsUidDropsToThatUserOrDoesNotRun) {
  TempDir dir;
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo $(id -u) $(id -g) $(id -G)"};
  spec.stdout_path = dir.path() / "out.txt";
  spec.run_as_uid = 60999;
  const ProcessResult r = run_process(spec);
  if (::geteuid() == 0) {
    EXPECT_TRUE(r.ok()) << r.describe();
    EXPECT_EQ(read_file(spec.stdout_path), "60999 60999 60999\n");
  } else {
    EXPECT_EQ(r.exit_code, 126);
    EXPECT_NE(read_file(spec.stdout_path).find("could not drop"), std::string::npos);
  }
}

TEST(Files, Sha256KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

}  // namespace
}  // namespace ptxb
