#pragma once
// A training run under failures (faults.process other than "none"): the failure-free iteration is simulated
// (in a child process, run/child_process.hpp), so are Oobleck's smaller templates; the workload plan gives each
// worker's compute and memory; then the fault timeline (faults/timeline.hpp) runs in this process. Writes
// summary.json (throughput kept, lost work, stalls, module numbers), throughput.csv (tokens/s over time),
// fault_trace.json (Chrome/Perfetto: failures, repairs, stalls, checkpoints, degraded periods) and
// scenario.resolved.json. Returns the summary.
#include <nlohmann/json.hpp>
#include <string>

#include "llmsim/scenario/scenario.hpp"

namespace llmsim::run {

nlohmann::json run_faults(const scenario::Scenario& s, const std::string& out_dir);

/// An upper bound on the fault timeline's work, in node-steps: (its failures, repairs and checkpoints) x nodes.
/// Checkpoints are at most faults.horizon / the strategy's checkpoint interval (an iteration is shorter).
struct TimelineWork {
  double failure_steps = 0, checkpoint_steps = 0;
  double total() const { return failure_steps + checkpoint_steps; }
};
TimelineWork timeline_work(const scenario::Scenario& s);

}  // namespace llmsim::run
