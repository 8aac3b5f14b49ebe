#pragma once
// A fixture for end-to-end tests of the llmsim executable: each test runs the binary from a fresh temporary
// directory and gets its exit code, stdout and stderr.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace llmsim::test {

namespace fs = std::filesystem;
using nlohmann::json;

struct Result {
  int code = -1;
  std::string out;  ///< stdout
  std::string err;  ///< stderr
};

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string source(const std::string& relative) { return std::string(LLMSIM_TEST_SOURCE_DIR) + "/" + relative; }

inline json default_json() { return json::parse(read_file(source("scenarios/default.json"))); }

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> v;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) v.push_back(l);
  return v;
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/llmsim-cli-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    fs::create_directories(dir_ / ".capture");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  /// Runs `llmsim <args>` with the temporary directory (or `cwd`) as working directory.
  Result run(const std::string& args, const fs::path& cwd = {}) {
    const fs::path out = dir_ / ".capture" / "stdout", err = dir_ / ".capture" / "stderr";
    const std::string cmd = "cd '" + (cwd.empty() ? dir_ : cwd).string() + "' && '" + std::string(LLMSIM_BINARY) + "' " + args + " >'" +
                            out.string() + "' 2>'" + err.string() + "' </dev/null";
    const int status = std::system(cmd.c_str());
    Result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
  }

  /// Runs shipped scenario `scenario` (a path relative to the source tree) with `args` (e.g. "--set k=v ...")
  /// into a fresh output directory, expects success and returns its summary.json.
  json run_summary(const std::string& scenario, const std::string& args = "") {
    const std::string out = "run-" + std::to_string(summaries_++);
    const auto r = run("run '" + source(scenario) + "' " + args + " --out " + out);
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(read_file(dir_ / out / "summary.json"));
  }

  /// Writes `j` (or raw text) to a file in the temporary directory; returns its absolute path.
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  std::string write(const std::string& name, const json& j) { return write(name, j.dump(2)); }
  std::string write(const std::string& name, const char* text) { return write(name, std::string(text)); }

  /// No "<out>.partial-*" (or ".old-*") sibling left next to the output directory.
  void expect_no_staging_leftovers() {
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string name = e.path().filename().string();
      EXPECT_EQ(name.find(".partial-"), std::string::npos) << "left behind: " << e.path();
      EXPECT_EQ(name.find(".old-"), std::string::npos) << "left behind: " << e.path();
    }
  }

  /// Bad input: exit 2, exactly one stderr line "error: <prefix>...", nothing on stdout's output dir.
  void expect_input_error(const Result& r, const std::string& prefix) {
    EXPECT_EQ(r.code, 2) << "stderr: " << r.err;
    const auto l = lines(r.err);
    ASSERT_EQ(l.size(), 1u) << "stderr is not one line:\n" << r.err;
    EXPECT_EQ(l[0].rfind("error: " + prefix, 0), 0u) << "stderr: " << r.err;
    EXPECT_FALSE(r.err.empty() || r.err.back() != '\n') << "stderr does not end with a newline: " << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "out")) << "the --out directory was created";
    expect_no_staging_leftovers();
  }

  fs::path dir_;
  int summaries_ = 0;  ///< output directories run_summary has used
};

}  // namespace llmsim::test
