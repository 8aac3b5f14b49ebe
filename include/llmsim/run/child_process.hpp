#pragma once
// Running a simulation in a forked child process: SimGrid's engine can run once per process, so a run that
// needs several simulations (FlowMoE's S_p search, the healthy and degraded iterations of a fault timeline)
// runs all but the last in children. The parent must not have started SimGrid before forking.
#include <functional>
#include <string>

namespace llmsim::run {

/// Runs `f` in a forked child (logging off) and returns its result. A child that throws, crashes or returns
/// NaN is a SimulationError naming `what`.
double in_child(const std::function<double()>& f, const std::string& what);

}  // namespace llmsim::run
