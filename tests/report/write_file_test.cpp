// Output files: a write that fails (a full disk, a missing folder) is the output place's fault, a one-line
// ScenarioError naming the file (exit 2), and an atomic write leaves neither half a file nor its temporary.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../support/scenarios.hpp"
#include "llmsim/report/output_dir.hpp"
#include "llmsim/util/error.hpp"

namespace fs = std::filesystem;

namespace {

TEST(WriteFile, AFailedWriteIsAScenarioErrorNamingTheFile) {
  const auto e = llmsim::test::error_of([] { llmsim::report::write_text("/nonexistent-llmsim-dir/x.csv", "a"); });
  EXPECT_EQ(e.path(), "/nonexistent-llmsim-dir/x.csv");
  EXPECT_EQ(e.message(), "cannot write (No such file or directory)");
}

TEST(WriteFile, AnAtomicWriteThatFailsLeavesTheTargetAndNoTemporary) {
  char tmpl[] = "/tmp/llmsim-write-XXXXXX";
  const fs::path dir = mkdtemp(tmpl);
  const fs::path target = dir / "taken";
  fs::create_directory(target);  // the rename onto a directory fails after the temporary is written
  const auto e = llmsim::test::error_of([&] { llmsim::report::write_atomically(target.string(), "text"); });
  EXPECT_EQ(e.path(), target.string());
  EXPECT_TRUE(fs::is_directory(target));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);  // no "taken.tmp-<pid>"
  llmsim::report::write_atomically((dir / "ok.csv").string(), "a,b\n");
  std::ifstream in(dir / "ok.csv");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "a,b\n");
  fs::remove_all(dir);
}

}  // namespace
