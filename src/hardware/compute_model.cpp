#include "llmsim/hardware/compute_model.hpp"

#include <algorithm>

#include "llmsim/util/error.hpp"

namespace llmsim::hardware {

ComputeModel::ComputeModel(const scenario::Hardware& hw, const std::string& precision) : hw_(hw) {
  auto it = hw.peak_flops.find(precision);
  if (it == hw.peak_flops.end())
    throw ScenarioError("/training/precision", "the " + hw.name + " preset has no " + precision + " peak");
  peak_ = it->second;
}

double ComputeModel::gemm_efficiency(double m, double n, double k) const {
  const double x = hw_.calibration.matmul_half_dim;
  auto g = [x](double dim) { return dim / (dim + x); };
  return hw_.calibration.matmul_efficiency * g(m) * g(n) * g(k);
}

double ComputeModel::memory_time(double bytes) const {
  return bytes / (hw_.memory_bandwidth * hw_.calibration.memory_efficiency);
}

double ComputeModel::kernel_time(const model::Kernel& k) const {
  double t = memory_time(k.bytes);
  if (k.is_gemm()) t = std::max(t, k.flops / (peak_ * gemm_efficiency(k.m, k.n, k.k)));
  return t + hw_.calibration.kernel_overhead;
}

std::vector<double> ComputeModel::times_by_category(const std::vector<model::Kernel>& kernels) const {
  std::vector<double> out(3, 0.0);
  for (const auto& k : kernels) out[static_cast<int>(k.category)] += kernel_time(k);
  return out;
}

double ComputeModel::nvlink_bandwidth() const { return hw_.nvlink_bandwidth * hw_.calibration.nvlink_efficiency; }

}  // namespace llmsim::hardware
