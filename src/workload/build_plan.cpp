#include "llmsim/workload/build_plan.hpp"

namespace llmsim::workload {

bool fits_memory(const TrainingPlan& plan, const scenario::Scenario& s) {
  for (const auto& st : plan.stages)
    if (st.memory.total() > s.hardware.memory_bytes) return false;
  return true;
}

TrainingPlan build_plan(const scenario::Scenario& s, const hardware::ComputeModel& cm,
                        const strategy::TrainingStrategies& strategies) {
  if (s.kind == "moe-chiplet") return build_moe_chiplet(s, cm, strategies);
  TrainingPlan plan = plan_training(s, cm, strategies);
  if (fits_memory(plan, s)) emit_training(plan, *strategies.schedule);
  return plan;
}

}  // namespace llmsim::workload
