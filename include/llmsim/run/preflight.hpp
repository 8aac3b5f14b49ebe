#pragma once
// Everything `run` checks short of simulating, in one place: `validate` calls it and stops, `run` calls it and
// goes on. Order: the network model can carry the run, the work estimate is within util/limits.hpp (before
// anything large is built), then the plan is built as the run builds it (compute model, schedule, workload,
// serving KV geometry, step model and that some request is served, serving/admission.hpp), and memory fit: a
// training plan that does not fit is a result ("status": "oom"), a fault run's failure-free job that does not fit
// is an error (there is nothing to fail).
// Throws ScenarioError naming the JSON path for every failed check.
#include <string>

#include "llmsim/run/work_estimate.hpp"
#include "llmsim/scenario/scenario.hpp"

namespace llmsim::run {

struct Preflight {
  WorkEstimate estimate;      ///< from the scenario alone (work_estimate.hpp)
  double ops = 0;             ///< training: ops of the built plan, all workers, all iterations (exact)
  double peak_memory = 0;     ///< [bytes] per GPU: training the largest stage; serving weights + activations + KV
  double memory_capacity = 0; ///< [bytes] HBM per GPU
  bool fits = true;           ///< training: peak_memory <= memory_capacity (serving always fits or throws)
  /// One line for `validate`: "12 ops ... peak 31.2 of 80.0 GiB per GPU" (or "does not fit: ...").
  std::string describe() const;
};

Preflight preflight(const scenario::Scenario& s);

}  // namespace llmsim::run
