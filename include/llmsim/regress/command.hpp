#pragma once
// `llmsim regress SUITE_DIR --baseline FILE [--tolerance 2%] [--update-baseline] [--set k=v ...] [-j N]`: CI's
// check that no strategy got slower. Runs every scenario of the suite (regress/suite.hpp), extracts its
// metrics (regress/metrics.hpp), compares them with the baseline (regress/compare.hpp) and prints the table.
#include <ostream>
#include <string>
#include <vector>

namespace llmsim::regress {

struct RegressOptions {
  std::string suite;                   ///< directory of scenario files
  std::string baseline;                ///< baseline JSON file (regress/baseline.hpp)
  std::string tolerance;               ///< "2%" or "0.02"; empty = the baseline's, else 2%
  bool update = false;                 ///< rewrite the baseline with the current values
  std::vector<std::string> overrides;  ///< --set json.path=value, applied to every scenario
  int jobs = 1;                        ///< scenarios run at once
};

/// Returns the exit code: 0 if no metric is WORSE or missing (or the baseline was updated), 1 otherwise or if a
/// scenario run failed. Bad input (tolerance syntax, suite directory, unreadable baseline, a --set a scenario
/// rejects) is a ScenarioError (exit 2), checked before anything runs where possible; the baseline is then
/// left untouched. `executable` is the llmsim binary the scenarios run with.
int regress_command(const RegressOptions& o, const std::string& executable, std::ostream& out);

}  // namespace llmsim::regress
