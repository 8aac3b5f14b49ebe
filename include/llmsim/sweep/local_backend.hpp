#pragma once
// The local backend: the points' runs as child processes of the sweep, `jobs` at a time. SIGINT, SIGTERM
// and SIGHUP stop the running children (they get SIGTERM and leave no marker, so a rerun redoes them) and
// then end the sweep with the same signal.
#include <vector>

#include "llmsim/sweep/plan.hpp"
#include "llmsim/sweep/progress.hpp"

namespace llmsim::sweep {

/// Runs the points `todo` of the sweep in `dir` with the llmsim executable `exe`; reports each ended point.
void run_local(const SweepDir& dir, const SweepDefinition& d, const std::vector<Point>& todo, int jobs,
               const std::string& exe, Progress& progress);

}  // namespace llmsim::sweep
