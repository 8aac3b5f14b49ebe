#include "trace_file.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "llmsim/util/error.hpp"
#include "llmsim/util/input_file.hpp"
#include "llmsim/util/limits.hpp"

namespace llmsim::serving {

std::string resolve_path(const std::string& file, const std::string& base_dir) {
  const std::filesystem::path p(file);
  return p.is_relative() && !base_dir.empty() ? (std::filesystem::path(base_dir) / p).string() : file;
}

TraceFile::TraceFile(std::string file, std::string json_path) : file_(std::move(file)), json_path_(std::move(json_path)) {
  util::check_input_file(file_, json_path_, limits::kMaxDataFileBytes);
  in_.open(file_);
  if (!in_) throw ScenarioError(json_path_, "cannot open " + file_ + " (does it exist and is it readable?)");
}

bool TraceFile::next() {
  while (std::getline(in_, line_)) {
    ++number_;
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    if (number_ == 1 && line_.rfind("\xEF\xBB\xBF", 0) == 0) line_.erase(0, 3);
    if (line_.find_first_not_of(" \t") != std::string::npos && line_[0] != '#') return true;
  }
  return false;
}

void TraceFile::fail(const std::string& why) const {
  throw ScenarioError(json_path_, file_ + ":" + std::to_string(number_) + ": " + why);
}

void TraceFile::expect_header(const std::string& header) {
  if (!next()) throw ScenarioError(json_path_, file_ + " has no line (expected the header " + header + ")");
  if (line_ != header) fail("the first line is \"" + line_ + "\", expected the header " + header);
}

std::vector<std::string> TraceFile::cells(size_t count, const std::string& columns) const {
  std::vector<std::string> out;
  std::stringstream row(line_);
  for (std::string cell; std::getline(row, cell, ',');) out.push_back(cell);
  if (!line_.empty() && line_.back() == ',') out.emplace_back();
  if (out.size() != count)
    fail(std::to_string(out.size()) + " fields in \"" + line_ + "\", expected " + std::to_string(count) + ": " + columns);
  return out;
}

long long TraceFile::integer(const std::string& cell, const std::string& what, long long min, long long max) const {
  long long v = 0;
  const char* end = cell.data() + cell.size();
  const auto [ptr, ec] = std::from_chars(cell.data(), end, v);
  if (cell.empty() || ec != std::errc() || ptr != end) fail(what + " \"" + cell + "\" is not an integer");
  if (v < min || v > max)
    fail(what + " " + cell + " is out of range (an integer from " + std::to_string(min) + " to " + std::to_string(max) + ")");
  return v;
}

double TraceFile::number(const std::string& cell, const std::string& what) const {
  double v = NAN;
  const char* end = cell.data() + cell.size();
  const auto [ptr, ec] = std::from_chars(cell.data(), end, v);
  if (cell.empty() || ec != std::errc() || ptr != end || !std::isfinite(v))
    fail(what + " \"" + cell + "\" is not a finite decimal number");
  return v;
}

}  // namespace llmsim::serving
