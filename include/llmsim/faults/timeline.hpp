#pragma once
// The fault timeline: training over faults.horizon_h on a SimGrid platform of one host per node, each linked to
// a controller host by its own link (the node's NIC); host and link states follow the drawn failures (state
// profiles: off at the failure, on after the repair). The controller runs training in segments: every up node
// works for the segment — a transfer to the controller over its link lasting exactly the segment — so a node
// whose host or link fails loses that transfer, and the controller learns of the failure from it
// (NetworkFailureException) at the moment it happens, the iteration in flight is lost, and the fault-tolerance module (strategy/
// fault_tolerance.hpp) decides what happens next: stop, roll back to the last checkpoint, stall, run degraded
// at another iteration time, or wait for a repair. Segments end at the horizon, at a node's repair (the
// controller knows the repair ticket) and at checkpoints. Progress is counted in iterations: d(iterations)/dt =
// 1/T while running.
#include <string>
#include <vector>

#include "llmsim/faults/failure_process.hpp"
#include "llmsim/scenario/scenario.hpp"
#include "llmsim/strategy/fault_tolerance.hpp"

namespace llmsim::faults {

/// Training at a constant iteration time between t0 and t1 [s].
struct RunInterval {
  double t0 = 0, t1 = 0, iteration = 0;
  int down = 0;  ///< nodes failed meanwhile
};

/// Something that happened (trace and summary).
struct TimelineEvent {
  std::string kind;  ///< failure, repair, stall, checkpoint, wait, stop
  double start = 0, end = 0;
  int node = -1;
};

struct TimelineResult {
  double computed_iterations = 0;  ///< all training done, incl. what was lost
  double lost_iterations = 0;      ///< rolled back or in flight at a failure
  /// [s] stalled (restarts, reconfigurations), waiting (cannot run), writing checkpoints, and running slower
  /// than the module's own failure-free iteration (degraded)
  double stall_time = 0, wait_time = 0, checkpoint_time = 0, degraded_time = 0;
  double stopped_at = -1;          ///< [s] when the job stopped (module none), -1 if it ran to the horizon
  int failures = 0, checkpoints = 0;
  std::vector<RunInterval> running;
  std::vector<TimelineEvent> events;
  double net_iterations() const { return computed_iterations - lost_iterations; }
};

/// Runs the timeline (one SimGrid simulation: the caller's process must not have run another).
TimelineResult run_timeline(const scenario::Scenario& s, const std::vector<Failure>& failures,
                            const strategy::FaultTolerance& ft, const strategy::JobCosts& costs, double cluster_mtbf);

}  // namespace llmsim::faults
