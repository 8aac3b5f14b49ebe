#pragma once
// Line-by-line reading of the workload's input files (request traces, length CDFs) with errors that name
// "<file>:<line>". Private to src/serving/.
#include <fstream>
#include <string>
#include <vector>

namespace llmsim::serving {

/// `file` as written in the scenario: a relative path resolves against `base_dir` (the scenario file's directory).
std::string resolve_path(const std::string& file, const std::string& base_dir);

class TraceFile {
 public:
  /// Opens `file`; `json_path` is the scenario key that named it (the path of every ScenarioError).
  /// Throws ScenarioError if it is a directory or cannot be opened.
  TraceFile(std::string file, std::string json_path);

  /// Reads the next line that is neither blank nor a "#" comment (a trailing CR and a UTF-8 byte order mark
  /// are dropped); false at the end of the file.
  bool next();
  const std::string& line() const { return line_; }
  int number() const { return number_; }  ///< 1-based line number of line()
  const std::string& file() const { return file_; }

  /// Throws ScenarioError(json_path, "<file>:<line>: <why>").
  [[noreturn]] void fail(const std::string& why) const;
  /// The first line is `header` exactly, else fail(); an empty file fails too.
  void expect_header(const std::string& header);
  /// line() split at commas into exactly `count` cells, else fail() naming `columns`.
  std::vector<std::string> cells(size_t count, const std::string& columns) const;
  /// A decimal integer in [min, max] (no sign, fraction or blank), else fail() naming `what`.
  long long integer(const std::string& cell, const std::string& what, long long min, long long max) const;
  /// A finite decimal number (no blank), else fail() naming `what`.
  double number(const std::string& cell, const std::string& what) const;

 private:
  std::string file_, json_path_, line_;
  std::ifstream in_;
  int number_ = 0;
};

}  // namespace llmsim::serving
