#include "llmsim/hardware/compute_model.hpp"

#include <algorithm>
#include <stdexcept>

#include "llmsim/util/error.hpp"

namespace llmsim::hardware {

ComputeModel::ComputeModel(const scenario::Hardware& hw) : hw_(hw) {
  for (int i = 0; i < model::kPrecisionCount; ++i) {
    const auto p = static_cast<model::Precision>(i);
    if (model::has_peak(hw, p)) peak_[i] = model::peak_flops(hw, p, "/hardware/peak_TFLOPS");
  }
}

double ComputeModel::peak_flops(model::Precision p) const {
  const double peak = peak_[static_cast<int>(p)];
  if (peak <= 0)
    throw std::logic_error(std::string("a kernel in ") + model::precision_name(p) + " on the " + hw_.name +
                           " preset, which has no such peak (resolve should have rejected it)");
  return peak;
}

double ComputeModel::fused_attention_efficiency(double seq, bool backward) const {
  const auto& c = hw_.calibration;
  const double e = backward ? c.flash_backward_efficiency : c.flash_forward_efficiency;
  const double half = backward ? c.flash_backward_half_seq : c.flash_forward_half_seq;
  if (e <= 0)
    throw std::logic_error("a fused attention kernel on the " + hw_.name +
                           " preset, which has no flash_* calibration (resolve should have rejected it)");
  return e * seq / (seq + half);
}

double ComputeModel::gemm_efficiency(double m, double n, double k) const {
  const double x = hw_.calibration.matmul_half_dim;
  auto g = [x](double dim) { return dim / (dim + x); };
  return hw_.calibration.matmul_efficiency * g(m) * g(n) * g(k);
}

double ComputeModel::memory_time(double bytes) const {
  return bytes / (hw_.memory_bandwidth * hw_.calibration.memory_efficiency);
}

namespace {
/// block_scaled_gemm_efficiency for a GEMM in a block-scaled precision (times nvfp4_gemm_efficiency for NVFP4),
/// else 1.
double block_scaling(const model::Kernel& k, const scenario::Calibration& c) {
  if (model::precision_kind(k.precision) != model::PrecisionKind::BlockScaled) return 1;
  return c.block_scaled_gemm_efficiency * (k.precision == model::Precision::Nvfp4 ? c.nvfp4_gemm_efficiency : 1);
}
bool fused_attention(const model::Kernel& k) {
  return k.kind == model::KernelKind::FusedAttentionForward || k.kind == model::KernelKind::FusedAttentionBackward;
}
}  // namespace

double ComputeModel::plateau_efficiency(const model::Kernel& k) const {
  const auto& c = hw_.calibration;
  if (fused_attention(k))
    return k.kind == model::KernelKind::FusedAttentionBackward ? c.flash_backward_efficiency : c.flash_forward_efficiency;
  if (k.is_gemm()) return c.matmul_efficiency * block_scaling(k, c);
  return 0;
}

double ComputeModel::kernel_time(const model::Kernel& k) const {
  double t = memory_time(k.bytes);
  if (k.is_gemm()) {
    t = std::max(t, k.flops / (peak_flops(k.precision) * (gemm_efficiency(k.m, k.n, k.k) * block_scaling(k, hw_.calibration))));
  }
  if (fused_attention(k))
    t = std::max(t, k.flops / (peak_flops(k.precision) *
                               fused_attention_efficiency(k.seq, k.kind == model::KernelKind::FusedAttentionBackward)));
  return t + hw_.calibration.kernel_overhead;
}

std::vector<double> ComputeModel::times_by_category(const std::vector<model::Kernel>& kernels) const {
  std::vector<double> out(3, 0.0);
  for (const auto& k : kernels) out[static_cast<int>(k.category)] += kernel_time(k);
  return out;
}

double ComputeModel::nvlink_bandwidth() const { return hw_.nvlink_bandwidth * hw_.calibration.nvlink_efficiency; }

}  // namespace llmsim::hardware
