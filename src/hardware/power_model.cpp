#include "llmsim/hardware/power_model.hpp"

#include "llmsim/hardware/concurrent_kernels.hpp"

namespace llmsim::hardware {

double dynamic_power(const ComputeModel& cm, const model::Kernel& k) {
  const auto& p = cm.hardware().power;
  if (!p.known()) return 0;
  const KernelDemand d = kernel_demand(cm, k);
  return (p.compute - p.idle) * d.sm + (p.memory - p.idle) * d.hbm * (1 - d.sm);
}

double dynamic_energy(const ComputeModel& cm, const std::vector<model::Kernel>& kernels) {
  double e = 0;
  for (const auto& k : kernels) e += cm.kernel_time(k) * dynamic_power(cm, k);
  return e;
}

double memory_bound_energy(const ComputeModel& cm, double seconds) {
  const auto& p = cm.hardware().power;
  return p.known() ? (p.memory - p.idle) * seconds : 0;
}

}  // namespace llmsim::hardware
