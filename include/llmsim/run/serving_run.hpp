#pragma once
// A serving run (kind "serving"): the workload's requests, the simulation (serving/simulation.hpp) and its
// outputs (report/serving_report.hpp) written into `out_dir` atomically (empty = nothing written). Returns the
// summary.
// Capacity search (serving.capacity_search.enabled, as DistServe's simulator does): the highest rate_scale whose
// SLO attainment reaches `attainment`, by bisection on log(rate_scale) within [1/max_scale, max_scale] until the
// bracket is narrower than `tolerance` (relative); each probe simulates the workload at that scale in a child
// process (SimGrid runs once per process), then the run at the capacity found writes the outputs, with
// summary.json "capacity" (rate_scale, requests/s, every probe) and capacity.csv (the probes). Attainment is
// assumed to fall as the rate grows (monotone), which bisection needs.
#include <nlohmann/json.hpp>
#include <string>

#include "llmsim/scenario/scenario.hpp"

namespace llmsim::run {

nlohmann::json run_serving(const scenario::Scenario& s, const std::string& out_dir);

}  // namespace llmsim::run
