#include "llmsim/workload/kernel_cost.hpp"

#include "llmsim/hardware/concurrent_kernels.hpp"
#include "llmsim/hardware/power_model.hpp"

namespace llmsim::workload {

ComputeCost kernel_cost(const std::string& name, const std::vector<model::Kernel>& kernels, const hardware::ComputeModel& cm) {
  ComputeCost c{name, 0, {}, model::total_flops(kernels)};
  const auto by = cm.times_by_category(kernels);  // indexed by model::Category: gemm, attention, element-wise
  for (size_t i = 0; i < by.size(); ++i) c.by_category[i] = by[i], c.duration += by[i];
  c.dynamic_energy = hardware::dynamic_energy(cm, kernels);
  return c;
}

ComputeCost kernel_cost(const std::string& name, const std::vector<model::Kernel>& a, const std::vector<model::Kernel>& b,
                        const hardware::ComputeModel& cm) {
  ComputeCost c = kernel_cost(name, model::concat(a, b), cm);
  if (a.empty() || b.empty() || c.duration <= 0) return c;
  const double together = hardware::concurrent_time(cm, a, b), scale = together / c.duration;
  for (double& t : c.by_category) t *= scale;
  c.duration = together;
  return c;
}

}  // namespace llmsim::workload
