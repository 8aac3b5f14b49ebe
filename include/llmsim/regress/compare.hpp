#pragma once
// Comparing a suite's metrics with its baseline, direction-aware, and the table `llmsim regress` prints.
#include <optional>
#include <string>
#include <vector>

#include "llmsim/regress/baseline.hpp"

namespace llmsim::regress {

/// ok: within the tolerance; better / WORSE: changed by more than the tolerance in the good / bad direction;
/// new: not in the baseline; missing: in the baseline but not produced now (a scenario removed, failed or no
/// longer reporting the metric).
enum class Verdict { Ok, Better, Worse, New, Missing };

const char* verdict_name(Verdict v);

struct Row {
  std::string scenario, metric;
  std::optional<double> baseline, now;
  double change = 0;  ///< (now - baseline) / |baseline|, a fraction; +-inf from a zero baseline; 0 without both
  Verdict verdict = Verdict::Ok;
};

/// One row per (scenario, metric) of either side, sorted by scenario then metric. A change beyond
/// `tolerance` (a fraction) in a metric's bad direction is WORSE, in its good direction better.
std::vector<Row> compare(const SuiteMetrics& baseline, const SuiteMetrics& now, double tolerance);

/// True if the rows fail the check: any WORSE or missing row.
bool fails(const std::vector<Row>& rows);

/// The aligned table: scenario, metric, baseline, now, change %, verdict; then one line counting the verdicts.
std::string format_table(const std::vector<Row>& rows, double tolerance);

}  // namespace llmsim::regress
