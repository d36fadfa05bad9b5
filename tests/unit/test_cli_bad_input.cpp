// Bad input to every ptxbench command (a bad flag, a missing or malformed file, an unknown name)
// ends with exit status 2 and exactly one line on stderr that names the problem, and it
// creates or changes no file.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "store/sqlite.hpp"
#include "sys/files.hpp"

namespace ptxb {
namespace {

const std::string kBin = (std::filesystem::path(PTXB_BINARY_DIR) / "ptxbench").string();

struct BadInput {
  std::string args;      ///< after "ptxbench "; {dir} is the test's folder
  std::string expected;  ///< a piece of the one stderr line
};

std::string expand(std::string text, const std::string& dir) {
  for (size_t at = text.find("{dir}"); at != std::string::npos; at = text.find("{dir}"))
    text.replace(at, 5, dir);
  return text;
}

class CliBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    write_file_atomic(dir_.path() / "kernel.cu", "// a kernel\n");
    write_file_atomic(dir_.path() / "garbage.db", "this is not SQLite at all, just text\n");
    sqlite::Database foreign(dir_.path() / "foreign.db");
    foreign.exec("CREATE TABLE notes (text TEXT)");
  }

  /// Runs one case; returns stderr after checking the status and the one-line shape.
  std::string expect_one_line_error(const BadInput& c) {
    const std::string dir = dir_.path().string();
    const std::string err = dir + "/stderr.txt";
    const std::string cmd =
        kBin + " " + expand(c.args, dir) + " > " + dir + "/stdout.txt 2> " + err;
    const int status = std::system(cmd.c_str());
    const std::string text = read_file(err);
    EXPECT_TRUE(WIFEXITED(status)) << c.args;
    EXPECT_EQ(WEXITSTATUS(status), 2) << c.args << "\n" << text;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << c.args << "\n" << text;
    EXPECT_NE(text.find(c.expected), std::string::npos) << c.args << "\n" << text;
    return text;
  }

  TempDir dir_{"ptxbench-cli-bad-input"};
};

TEST_F(CliBadInput, EveryCommandReportsBadInputOnOneLine) {
  const std::vector<BadInput> cases = {
      {"frob", "unknown command 'frob'"},
      {"tasks --bogus", "ptxbench tasks: The following argument was not expected: --bogus"},
      {"tasks nope/task", "unknown task 'nope/task'"},
      {"eval {dir}/kernel.cu", "ptxbench eval: --task is required"},
      {"eval {dir}/missing.cu --task sm90/gemm/bf16-wgmma-tma", "missing.cu: cannot read file"},
      {"eval {dir}/kernel.cu --task nope/task", "unknown task 'nope/task'"},
      {"eval {dir}/kernel.cu --task sm90/gemm/bf16-wgmma-tma --bogus", "--bogus"},
      {"run --tasks nope --db {dir}/run.db", "ptxbench run"},
      {"run --model reference --tasks nope/task --db {dir}/run.db", "nope/task"},
      {"generate --model m --endpoint http://127.0.0.1:9/v1 --db {dir}/gen.db --samples x",
       "--samples"},
      {"evaluate --db {dir}/missing.db --run r", "missing.db: no results database"},
      {"export --db {dir}/missing.db", "missing.db: no results database"},
      {"report --db {dir}/missing.db --out {dir}/report", "missing.db: no results database"},
      {"report --db {dir}/garbage.db --out {dir}/report", "not a PTXBench results database"},
      {"export --db {dir}/foreign.db", "an SQLite file of something else"},
      {"report --by-run --bogus", "--bogus"},
  };
  for (const BadInput& c : cases) expect_one_line_error(c);
  // Nothing was created or changed: no database, no report folder, the foreign files as they were.
  for (const char* name : {"missing.db", "run.db", "gen.db", "report"})
    EXPECT_FALSE(std::filesystem::exists(dir_.path() / name)) << name;
  EXPECT_EQ(read_file(dir_.path() / "garbage.db"), "this is not SQLite at all, just text\n");
  sqlite::Database foreign(dir_.path() / "foreign.db");
  EXPECT_EQ(foreign.query_text("SELECT group_concat(name) FROM sqlite_master"), "notes");
}

}  // namespace
}  // namespace ptxb
