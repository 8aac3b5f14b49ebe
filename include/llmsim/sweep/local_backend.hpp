#pragma once
// The local backend: the points' runs as child processes of the sweep, `jobs` at a time. An interrupt
// (util/interrupt.hpp) stops the running children: each gets SIGTERM and removes its staging directory, no
// marker is written for it, so a rerun redoes it; the finished points stay.
#include <vector>

#include "llmsim/sweep/plan.hpp"
#include "llmsim/sweep/progress.hpp"

namespace llmsim::sweep {

/// Runs the points `todo` of the sweep in `dir` with the llmsim executable `exe`; reports each ended point.
void run_local(const SweepDir& dir, const SweepDefinition& d, const std::vector<Point>& todo, int jobs,
               const std::string& exe, Progress& progress);

}  // namespace llmsim::sweep
