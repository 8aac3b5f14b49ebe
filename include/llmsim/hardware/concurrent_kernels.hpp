#pragma once
// Two streams of compute kernels sharing one GPU (a stream of kernels beside another, not compute beside
// communication). The contention model:
//   Each kernel run alone takes t (hardware/compute_model.hpp) and uses two shares of the GPU during t:
//     sm  = F / (t * P * e_plateau)   its FLOP rate over the rate the largest kernel of its kind reaches
//                                     (e_plateau: matmul_efficiency for GEMMs, flash_*_efficiency for fused
//                                     attention); a small GEMM's shape penalty is read as SMs it leaves idle;
//     hbm = B / (t * W * e_mem)       its HBM traffic rate over the calibrated bandwidth.
//   Two kernels running together both progress at phi = min(1, 1/(sm_a + sm_b), 1/(hbm_a + hbm_b)) of their
//   alone speed: nothing is lost while the SMs and HBM suffice for both, and both slow down in proportion when
//   either is oversubscribed (two memory-bound kernels share the bandwidth; two full-size GEMMs take turns).
//   When one stream's kernel ends, its next kernel starts; when a stream is done, the other runs alone.
// This is the co-location rule of interference-aware GPU sharing (Strati et al., "Orion: Interference-aware,
// Fine-grained GPU Sharing for ML Applications", EuroSys 2024, Sec. 3-4: a kernel is profiled as compute- or
// memory-bound with its SM needs, and kernels are co-scheduled when their SM needs fit and their bottleneck
// resources differ). The proportional slowdown when a resource is oversubscribed is our simplification
// (Orion avoids those pairs instead of modelling them). Launch overheads count as time with no demand.
#include <vector>

#include "llmsim/hardware/compute_model.hpp"

namespace llmsim::hardware {

/// A kernel run alone: its time [s] and its SM and HBM shares (0..1, see above).
struct KernelDemand {
  double time = 0, sm = 0, hbm = 0;
};
KernelDemand kernel_demand(const ComputeModel& cm, const model::Kernel& k);

/// Time [s] from the start of both streams until both have run all their kernels, each stream in order.
/// With one stream empty it is the other's sum of kernel times.
double concurrent_time(const ComputeModel& cm, const std::vector<model::Kernel>& a, const std::vector<model::Kernel>& b);

}  // namespace llmsim::hardware
