#pragma once
// Time of one kernel on one GPU: a roofline with calibrated efficiencies (docs/calibration.md).
//   GEMM:         t = max(F / (P * e_mm * g(m) g(n) g(k)),  B / (W * e_mem)) + o,   g(x) = x / (x + x_half)
//   element-wise: t = B / (W * e_mem) + o
// P = dense peak of the precision [FLOP/s], W = HBM bandwidth [bytes/s], o = kernel launch overhead [s].
// g() is the shape penalty of small GEMM dimensions (tile quantisation and short main loops; the
// functional form is ours, its one parameter x_half is fitted per device).
// Intra-node collectives over a non-blocking NVSwitch use the ring formulas of collectives/ring.hpp
// with bandwidth B_nvlink * e_nvlink.
#include <string>
#include <vector>

#include "llmsim/model/transformer.hpp"
#include "llmsim/scenario/scenario.hpp"

namespace llmsim::hardware {

class ComputeModel {
 public:
  /// Throws ScenarioError if `precision` has no peak in the preset.
  ComputeModel(const scenario::Hardware& hw, const std::string& precision);

  double kernel_time(const model::Kernel& k) const;       ///< [s]
  double gemm_efficiency(double m, double n, double k) const;  ///< fraction of peak, 0..1
  double peak_flops() const { return peak_; }             ///< [FLOP/s]
  double memory_time(double bytes) const;                 ///< [s] at calibrated HBM bandwidth, no overhead
  /// Time per category for a list of kernels (sum of kernel_time), indexed by model::Category.
  std::vector<double> times_by_category(const std::vector<model::Kernel>& kernels) const;
  /// Effective NVLink bandwidth of one GPU per direction [bytes/s] and hop latency [s].
  double nvlink_bandwidth() const;
  double nvlink_latency() const { return hw_.nvlink_latency; }

 private:
  scenario::Hardware hw_;
  double peak_;
};

}  // namespace llmsim::hardware
