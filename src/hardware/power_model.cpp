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
  const auto& p = cm.hardware().power;
  if (!p.known()) return 0;
  double e = 0;
  for (const auto& k : kernels) {
    const KernelDemand d = kernel_demand(cm, k);
    e += d.time * above_idle(p, d);
  }
  return e;
}

double memory_bound_energy(const ComputeModel& cm, double seconds) {
  const auto& p = cm.hardware().power;
  return p.known() ? (p.memory - p.idle) * seconds : 0;
}

}  // namespace llmsim::hardware
