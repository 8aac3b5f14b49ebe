#include "llmsim/workload/build_plan.hpp"

namespace llmsim::workload {

TrainingPlan build_plan(const scenario::Scenario& s, const hardware::ComputeModel& cm,
                        const strategy::TrainingStrategies& strategies) {
  return s.kind == "moe-chiplet" ? build_moe_chiplet(s, cm, strategies) : build_training(s, cm, strategies);
}

}  // namespace llmsim::workload
