#pragma once
// Energy of kernels on one GPU from the preset's board power per kernel class (hardware.power):
//   P(k) = P_idle + (P_compute - P_idle) * sm(k) + (P_memory - P_idle) * hbm(k) * (1 - sm(k))
// with sm(k), hbm(k) the kernel's SM and HBM shares run alone (hardware/concurrent_kernels.hpp). A compute-bound
// GEMM (sm 1) draws P_compute, a memory-bound kernel (sm 0, hbm 1) P_memory, a GPU that waits or only
// communicates P_idle (NCCL's own SM use is not counted). A GPU's energy over a time T is
//   E = P_idle * T + sum over its kernels of t_k * (P(k) - P_idle)          [J]
// so kernels run side by side (two streams) add their dynamic energies, and waiting costs idle power.
// The three powers per preset are measurements where one exists (configs/hardware/*.json: power.source; A100 and
// H100 from the Splitwise artifact's constant power model, Patel et al. ISCA 2024, idle 63/75 W, prompt 400/700 W,
// token 250/380 W) and the datasheet TDP with H100's fractions where none does (the Blackwell presets say so).
#include <vector>

#include "llmsim/hardware/compute_model.hpp"

namespace llmsim::hardware {

/// P(k) - P_idle [W] of kernel k run alone; 0 on a preset without a power model.
double dynamic_power(const ComputeModel& cm, const model::Kernel& k);
/// Sum of t_k (P(k) - P_idle) over `kernels` [J].
double dynamic_energy(const ComputeModel& cm, const std::vector<model::Kernel>& kernels);
/// The kernels' summed time [s] and dynamic energy [J] in one pass (each kernel's time computed once).
struct TimeAndEnergy {
  double time = 0, energy = 0;
};
TimeAndEnergy time_and_energy(const ComputeModel& cm, const std::vector<model::Kernel>& kernels);
/// (P_memory - P_idle) * seconds [J]: a memory-bound phase given by its time only (the optimizer step).
double memory_bound_energy(const ComputeModel& cm, double seconds);

}  // namespace llmsim::hardware
