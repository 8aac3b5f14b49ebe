#pragma once
// The plan of a training-kind scenario, with its ops: build_moe_chiplet for kind "moe-chiplet"
// (workload/moe_chiplet.hpp), build_training otherwise (workload/training.hpp).
#include "llmsim/workload/moe_chiplet.hpp"
#include "llmsim/workload/training.hpp"

namespace llmsim::workload {

TrainingPlan build_plan(const scenario::Scenario& s, const hardware::ComputeModel& cm,
                        const strategy::TrainingStrategies& strategies);

}  // namespace llmsim::workload
