#pragma once
// One training simulation end to end: plan the workload, check memory, run the engine, write outputs
// (summary.json, trace.json, scenario.resolved.json) into `out_dir` atomically. Returns the summary.
// A scenario that does not fit in HBM is not simulated: its summary has "status": "oom" and the breakdown.
#include <nlohmann/json.hpp>
#include <string>

#include "llmsim/scenario/scenario.hpp"

namespace llmsim::run {

/// `out_dir` empty = write nothing. A scenario with failures (faults.process) runs as run/fault_run.hpp.
nlohmann::json run_training(const scenario::Scenario& s, const std::string& out_dir);

/// The iteration time [s] of a run of `s` that writes nothing; infinity when it does not fit in memory.
double iteration_time(const scenario::Scenario& s);
/// The iteration time [s] a run's summary reports; infinity when it did not fit in memory ("status" "oom").
double reported_iteration_time(const nlohmann::json& summary);

}  // namespace llmsim::run
