#pragma once
// Time of one kernel on one GPU: a roofline with calibrated efficiencies (docs/calibration.md).
//   GEMM:         t = max(F / (P * e_mm * g(m) g(n) g(k)),  B / (W * e_mem)) + o,   g(x) = x / (x + x_half)
//   element-wise: t = B / (W * e_mem) + o
//   fused attention (model/fused_attention.hpp): t = max(F / (P * e_f(s)), B / (W * e_mem)) + o,
//                 e_f(s) = e_max * s / (s + s_half), (e_max, s_half) per direction from the preset's calibration
// P = dense peak of the kernel's own precision (model::Kernel::precision, model/precision.hpp) [FLOP/s], so
// one run mixes BF16 and FP8 kernels; W = HBM bandwidth [bytes/s], o = kernel launch overhead [s].
// g() is the shape penalty of small GEMM dimensions (tile quantisation and short main loops; the
// functional form is ours, its one parameter x_half is fitted per device).
// Intra-node collectives over a non-blocking NVSwitch use the ring formulas of collectives/ring.hpp
// with bandwidth B_nvlink * e_nvlink.
#include <array>
#include <string>
#include <vector>

#include "llmsim/model/transformer.hpp"
#include "llmsim/scenario/scenario.hpp"

namespace llmsim::hardware {

class ComputeModel {
 public:
  /// The precisions a scenario asks for are checked against the preset when it is resolved
  /// (scenario/typed.cpp); a kernel in a precision without a peak is a std::logic_error.
  explicit ComputeModel(const scenario::Hardware& hw);

  double kernel_time(const model::Kernel& k) const;       ///< [s]
  double gemm_efficiency(double m, double n, double k) const;  ///< fraction of peak, 0..1
  /// Fraction of peak a fused attention kernel of sequence length `seq` reaches, forward or backward, 0..1.
  double fused_attention_efficiency(double seq, bool backward) const;
  double peak_flops(model::Precision p) const;            ///< [FLOP/s]
  /// Fraction of peak the largest kernel of k's kind reaches (GEMM: matmul_efficiency, x block_scaled_gemm_efficiency
  /// in a block-scaled precision, x nvfp4_gemm_efficiency in nvfp4; fused attention: its direction's e_max); 0 for
  /// element-wise kernels.
  double plateau_efficiency(const model::Kernel& k) const;
  double memory_time(double bytes) const;                 ///< [s] at calibrated HBM bandwidth, no overhead
  /// Time per category for a list of kernels (sum of kernel_time), indexed by model::Category.
  std::vector<double> times_by_category(const std::vector<model::Kernel>& kernels) const;
  /// Effective NVLink bandwidth of one GPU per direction [bytes/s] and hop latency [s].
  double nvlink_bandwidth() const;
  double nvlink_latency() const { return hw_.nvlink_latency; }
  const scenario::Hardware& hardware() const { return hw_; }

 private:
  scenario::Hardware hw_;
  std::array<double, model::kPrecisionCount> peak_{};  ///< 0 where the preset has no peak
};

}  // namespace llmsim::hardware
