#pragma once
// Outputs of a run under failures (run/fault_run.hpp).
//   summary.json       "faults": failures, failure-free and effective throughput [tokens/s], throughput_drop
//                      (1 - effective / failure-free), lost work (iterations, GPU-hours), stall / wait /
//                      checkpoint / degraded hours, time to the stop (module none), the checkpoint interval, and the
//                      module's own numbers (e.g. MeCeFO's neighbour multipliers and peak memory)
//   throughput.csv     time_h, tokens_per_s, down_nodes per bucket of faults.sample_s (work later rolled back
//                      included: it is what the cluster computed then)
//   fault_trace.json   Chrome/Perfetto trace: one track per node (failures as instants, down periods as slices)
//                      and a job track (stalls, checkpoints, waits, degraded periods)
#include <nlohmann/json.hpp>
#include <string>

#include "llmsim/faults/timeline.hpp"
#include "llmsim/scenario/scenario.hpp"

namespace llmsim::report {

nlohmann::json fault_summary(const scenario::Scenario& s, const strategy::JobCosts& c,
                             const faults::TimelineResult& r, const strategy::ModuleNumbers& module, double checkpoint_interval,
                             double wall_seconds);
std::string fault_summary_table(const nlohmann::json& summary);
std::string throughput_csv(const faults::TimelineResult& r, const strategy::JobCosts& c, double horizon, double sample);
std::string fault_trace(const faults::TimelineResult& r, int nodes);

}  // namespace llmsim::report
