#include "llmsim/regress/command.hpp"

#include <filesystem>
#include <optional>

#include "llmsim/regress/baseline.hpp"
#include "llmsim/regress/compare.hpp"
#include "llmsim/regress/suite.hpp"
#include "llmsim/util/error.hpp"

namespace llmsim::regress {

int regress_command(const RegressOptions& o, const std::string& executable, std::ostream& out) {
  const bool given_tolerance = !o.tolerance.empty();
  const double option_tolerance = given_tolerance ? parse_tolerance(o.tolerance) : kDefaultTolerance;
  const auto files = suite_files(o.suite, o.baseline);
  // Checking: the baseline must be readable. Updating: an old readable baseline is shown and lends its tolerance.
  std::optional<Baseline> old;
  std::error_code ec;  // a loop of links "does not exist" here; writing it names the loop
  if (!o.update || std::filesystem::exists(o.baseline, ec)) {
    try {
      old = read_baseline(o.baseline);
    } catch (const ScenarioError&) {
      if (!o.update) throw;
    }
  }
  const double tolerance = given_tolerance ? option_tolerance : old ? old->tolerance : kDefaultTolerance;
  size_t metrics = 0;
  if (old)
    for (const auto& [name, values] : old->scenarios) metrics += values.size();
  if (!o.update && metrics == 0)  // every metric would be "new": a check that compares nothing passes
    throw ScenarioError(o.baseline, "/scenarios: the baseline holds no metric, so nothing would be compared (write "
                                    "one with --update-baseline)");

  SuiteMetrics now;
  bool run_failed = false;
  for (const auto& run : run_suite(executable, files, o.overrides, o.jobs)) {
    if (!run.failure.empty()) {
      out << "FAILED " << run.file << ": " << run.failure << "\n";
      run_failed = true;
      continue;
    }
    now[scenario_name(run.file)] = run.metrics;
  }

  if (old && old->llmsim_version != LLMSIM_VERSION)
    out << "note: the baseline was written by llmsim " << old->llmsim_version << ", this is llmsim " << LLMSIM_VERSION
        << "\n";
  std::vector<Row> rows;
  if (old) {
    rows = compare(old->scenarios, now, tolerance);
    out << format_table(rows, tolerance);
  }

  if (o.update) {
    if (run_failed) {
      out << "a scenario failed: the baseline " << o.baseline << " is left as it was\n";
      return 1;
    }
    write_baseline(o.baseline, Baseline{LLMSIM_VERSION, tolerance, now});
    out << "baseline " << o.baseline << " updated: " << now.size() << " scenarios\n";
    return 0;
  }
  return run_failed || fails(rows) ? 1 : 0;
}

}  // namespace llmsim::regress
