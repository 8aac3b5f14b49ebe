#include "llmsim/workload/kernel_cost.hpp"

namespace llmsim::workload {

ComputeCost kernel_cost(const std::string& name, const std::vector<model::Kernel>& kernels, const hardware::ComputeModel& cm) {
  ComputeCost c{name, 0, {}, model::total_flops(kernels)};
  const auto by = cm.times_by_category(kernels);  // indexed by model::Category: gemm, attention, element-wise
  for (size_t i = 0; i < by.size(); ++i) c.by_category[i] = by[i], c.duration += by[i];
  return c;
}

}  // namespace llmsim::workload
