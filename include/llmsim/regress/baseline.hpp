#pragma once
// The baseline file of `llmsim regress` and its tolerance.
//
//   {"llmsim_version": "0.1.0", "tolerance": 0.02,
//    "scenarios": {"<scenario file name without .json>": {"<metric>": <value>, ...}, ...}}
//
// Values are in the units of summary.json (SI: s, tokens/s, TFLOP/s per GPU, fractions); tolerance is a
// fraction (0.02 = 2%). Errors are ScenarioError naming the file (exit 2).
#include <map>
#include <string>

#include "llmsim/regress/metrics.hpp"

namespace llmsim::regress {

/// Scenario name -> its metrics.
using SuiteMetrics = std::map<std::string, Metrics>;

/// Tolerance when neither --tolerance nor the baseline gives one.
constexpr double kDefaultTolerance = 0.02;

struct Baseline {
  std::string llmsim_version;  ///< the llmsim that wrote it
  double tolerance = kDefaultTolerance;
  SuiteMetrics scenarios;
};

/// Reads and checks a baseline file; ScenarioError(path, ...) if it cannot be read, is not JSON or has
/// another shape.
Baseline read_baseline(const std::string& path);

/// Writes `b` to `path` atomically (a sibling temporary file renamed onto it): the old file or the whole new
/// one, never half of it. ScenarioError("--baseline <path>", ...) if it cannot.
void write_baseline(const std::string& path, const Baseline& b);

/// "2%" or "0.02" -> 0.02. A percentage in [0, 100]%, or a fraction in [0, 1]; anything else (a bare "5", a
/// negative value, trailing text) is a ScenarioError("--tolerance", ...).
double parse_tolerance(const std::string& text);

}  // namespace llmsim::regress
