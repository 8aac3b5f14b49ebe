#pragma once
// Opening the files a scenario names (the scenario itself, presets, failure and request traces, length CDFs,
// co-activation files, SimGrid platforms): regular files only, and bounded in size, so that /dev/zero, a FIFO or
// a terminal never makes a run read forever. Limits: util/limits.hpp.
#include <string>

namespace llmsim::util {

/// Throws ScenarioError at `where` (a JSON path or the file itself) unless `file` is a readable regular file of
/// at most `max_bytes` bytes: "... does not exist", "... is a directory", "... is a FIFO, not a regular file",
/// "... is 3.2 GiB, more than the 1 GiB an input file may have", "file name too long".
void check_input_file(const std::string& file, const std::string& where, double max_bytes);

/// What `file` (through links) is when it exists and is not a regular file ("a FIFO", "a directory", "a character
/// device", ...); "" when it is a regular file or does not exist.
std::string non_regular_kind(const std::string& file);

/// check_input_file, then the whole file as a string.
std::string read_input_file(const std::string& file, const std::string& where, double max_bytes);

}  // namespace llmsim::util
