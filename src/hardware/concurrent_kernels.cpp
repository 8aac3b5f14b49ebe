#include "llmsim/hardware/concurrent_kernels.hpp"

#include <algorithm>

namespace llmsim::hardware {

KernelDemand kernel_demand(const ComputeModel& cm, const model::Kernel& k) {
  KernelDemand d{cm.kernel_time(k), 0, 0};
  if (d.time <= 0) return d;
  const double plateau = cm.plateau_efficiency(k);
  if (k.flops > 0 && plateau > 0) d.sm = std::min(1.0, k.flops / (d.time * cm.peak_flops(k.precision) * plateau));
  d.hbm = std::min(1.0, cm.memory_time(k.bytes) / d.time);
  return d;
}

namespace {
/// One stream's progress: the kernel running and the fraction of it still to do.
struct Stream {
  const std::vector<model::Kernel>& kernels;
  size_t next = 0;
  KernelDemand now;
  double left = 0;  ///< fraction of `now` still to run
  bool start(const ComputeModel& cm) {
    while (left <= 0 && next < kernels.size()) now = kernel_demand(cm, kernels[next++]), left = now.time > 0 ? 1 : 0;
    return left > 0;
  }
  double rest_alone(const ComputeModel& cm) {
    double t = left * now.time;
    for (; next < kernels.size(); ++next) t += cm.kernel_time(kernels[next]);
    return t;
  }
};
}  // namespace

double concurrent_time(const ComputeModel& cm, const std::vector<model::Kernel>& a, const std::vector<model::Kernel>& b) {
  Stream x{a, 0, {}, 0}, y{b, 0, {}, 0};
  double t = 0;
  while (x.start(cm) && y.start(cm)) {
    const double phi = std::min({1.0, 1 / (x.now.sm + y.now.sm), 1 / (x.now.hbm + y.now.hbm)});
    // Run until the first of the two kernels ends; that one ends exactly (left = 0), so every pass of the loop
    // finishes a kernel (subtracting a rounded share could leave a residue too small to ever advance).
    const double x_alone = x.left * x.now.time, y_alone = y.left * y.now.time, done = std::min(x_alone, y_alone);
    t += done / phi;
    x.left = x_alone <= done ? 0 : (x_alone - done) / x.now.time;
    y.left = y_alone <= done ? 0 : (y_alone - done) / y.now.time;
  }
  return t + x.rest_alone(cm) + y.rest_alone(cm);
}

}  // namespace llmsim::hardware
