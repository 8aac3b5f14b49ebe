#pragma once
// Running a regression suite: every scenario file of a directory as `llmsim run` in a child process (SimGrid's
// engine runs once per process), up to `jobs` at a time, each into a private temporary output directory.
// An interrupt (util/interrupt.hpp) stops the runs and removes the temporary directory.
#include <string>
#include <vector>

#include "llmsim/regress/metrics.hpp"

namespace llmsim::regress {

/// The scenario files of `dir`: its *.json files (not recursive), sorted, except the file `baseline` (the
/// baseline may live in the suite). ScenarioError(dir, ...) if `dir` is not a directory or holds no scenario.
std::vector<std::string> suite_files(const std::string& dir, const std::string& baseline);

/// The scenario name of a suite file: its file name without ".json" (unique within a directory).
std::string scenario_name(const std::string& file);

struct ScenarioRun {
  std::string file;
  Metrics metrics;      ///< empty if the run failed
  std::string failure;  ///< why the run failed (the child's last error line); empty on success
};

/// Runs each of `files` as `<executable> run FILE --set ...` with `overrides`, at most `jobs` at once, and
/// returns their metrics in the order of `files`. A child that exits 2 (bad input, e.g. an override the
/// scenario rejects) is a ScenarioError(FILE, <its error>); one that fails otherwise (exit 1, a crash) is
/// reported in ScenarioRun::failure.
std::vector<ScenarioRun> run_suite(const std::string& executable, const std::vector<std::string>& files,
                                   const std::vector<std::string>& overrides, int jobs);

}  // namespace llmsim::regress
