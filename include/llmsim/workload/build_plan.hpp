#pragma once
// The plan of a training-kind scenario, with its ops: build_moe_chiplet for kind "moe-chiplet"
// (workload/moe_chiplet.hpp), plan_training and emit_training otherwise (workload/training.hpp).
#include "llmsim/workload/moe_chiplet.hpp"
#include "llmsim/workload/training.hpp"

namespace llmsim::workload {

/// Whether every pipeline stage's memory (TrainingPlan::stages) fits the device's HBM.
bool fits_memory(const TrainingPlan& plan, const scenario::Scenario& s);

/// The plan; its workers get their ops only when it fits in memory: a plan that does not is reported as oom and
/// never simulated, and its ops could be far more than a machine holds (a huge model's gradient buckets).
TrainingPlan build_plan(const scenario::Scenario& s, const hardware::ComputeModel& cm,
                        const strategy::TrainingStrategies& strategies);

}  // namespace llmsim::workload
