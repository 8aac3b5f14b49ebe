#pragma once
// Running a simulation in a forked child process: SimGrid's engine can run once per process, so a run that
// needs several simulations (FlowMoE's S_p search, the healthy and degraded iterations of a fault timeline)
// runs all but the last in children. The parent must not have started SimGrid before forking.
#include <functional>
#include <string>

namespace llmsim::run {

/// Runs `f` in a forked child (logging off) and returns the bytes it returned. A child that throws or crashes is
/// a SimulationError naming `what`.
std::string in_child_bytes(const std::function<std::string()>& f, const std::string& what);

/// As in_child_bytes, for a number; NaN is a failure too.
double in_child(const std::function<double()>& f, const std::string& what);

}  // namespace llmsim::run
