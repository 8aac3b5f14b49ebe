#include "llmsim/hardware/power_model.hpp"

#include "llmsim/hardware/concurrent_kernels.hpp"

namespace llmsim::hardware {

namespace {
/// P(k) - P_idle for a kernel of demand d.
double above_idle(const scenario::Power& p, const KernelDemand& d) {
  return (p.compute - p.idle) * d.sm + (p.memory - p.idle) * d.hbm * (1 - d.sm);
}
}  // namespace

double dynamic_power(const ComputeModel& cm, const model::Kernel& k) {
  const auto& p = cm.hardware().power;
  return p.known() ? above_idle(p, kernel_demand(cm, k)) : 0;
}

double dynamic_energy(const ComputeModel& cm, const std::vector<model::Kernel>& kernels) {
  return cm.hardware().power.known() ? time_and_energy(cm, kernels).energy : 0;
}

TimeAndEnergy time_and_energy(const ComputeModel& cm, const std::vector<model::Kernel>& kernels) {
  const auto& p = cm.hardware().power;
  TimeAndEnergy out;
  for (const auto& k : kernels) {
    if (!p.known()) {
      out.time += cm.kernel_time(k);
      continue;
    }
    const KernelDemand d = kernel_demand(cm, k);
    out.time += d.time;
    out.energy += d.time * above_idle(p, d);
  }
  return out;
}

double memory_bound_energy(const ComputeModel& cm, double seconds) {
  const auto& p = cm.hardware().power;
  return p.known() ? (p.memory - p.idle) * seconds : 0;
}

}  // namespace llmsim::hardware
