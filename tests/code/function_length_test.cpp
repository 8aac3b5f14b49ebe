// Code shape (issue 15): no function body in src/workload/ or src/engine/ is longer than 80 lines. A body is
// counted from the line whose `{` opens it (a line ending in ") {" outside any other function body, after
// comments and string literals are blanked) to the line of its closing brace.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

constexpr int kMaxLines = 80;

/// `line` without its // comment and with string and character literals emptied.
std::string code_of(const std::string& line) {
  static const std::regex literal(R"("([^"\\]|\\.)*"|'([^'\\]|\\.)*')"), comment(R"(//.*)");
  return std::regex_replace(std::regex_replace(line, literal, "\"\""), comment, "");
}

/// "file:line: N lines" for every function body over kMaxLines in `text`.
std::vector<std::string> long_functions(const std::string& name, const std::string& text) {
  static const std::regex opens_body(R"(\)\s*(const\s*)?(override\s*)?(noexcept\s*)?(->\s*[\w:<>]+\s*)?\{\s*$)"),
      control(R"(^\s*(\}\s*)?(if|for|while|switch|else|do|catch)\b)");
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  int depth = 0, start = -1, start_depth = 0;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::string code = code_of(line);
    for (char ch : code) {
      if (ch == '{') {
        if (start < 0 && std::regex_search(code, opens_body) && !std::regex_search(code, control))
          start = n, start_depth = depth;
        ++depth;
      } else if (ch == '}' && --depth == start_depth && start >= 0) {
        if (n - start + 1 > kMaxLines) out.push_back(name + ":" + std::to_string(start) + ": " + std::to_string(n - start + 1) + " lines");
        start = -1;
      }
    }
  }
  return out;
}

std::string read(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(FunctionLength, TheCounterSeesALongBodyAndIgnoresNestedBlocks) {
  std::string body = "int f(int x) {\n  if (x) {\n    x = 1;\n  }\n";
  for (int i = 0; i < kMaxLines; ++i) body += "  ++x;\n";
  body += "  return x;\n}\nint g() {\n  return \"}\"[0];  // }\n}\n";
  const auto found = long_functions("t.cpp", body);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], "t.cpp:1: " + std::to_string(kMaxLines + 6) + " lines");
}

TEST(FunctionLength, NoFunctionInWorkloadOrEngineIsLongerThan80Lines) {
  std::vector<std::string> found;
  int files = 0;
  for (const char* folder : {"src/workload", "src/engine"})
    for (const auto& e : fs::recursive_directory_iterator(fs::path(LLMSIM_TEST_SOURCE_DIR) / folder)) {
      if (e.path().extension() != ".cpp" && e.path().extension() != ".hpp") continue;
      ++files;
      for (auto& f : long_functions(e.path().filename().string(), read(e.path()))) found.push_back(f);
    }
  EXPECT_GT(files, 10);
  EXPECT_TRUE(found.empty()) << [&] {
    std::string s;
    for (const auto& f : found) s += f + "\n";
    return s;
  }();
}

}  // namespace
