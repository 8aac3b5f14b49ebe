#pragma once
// A list of kernels as one compute block: the per-category times of the compute model (hardware/compute_model.hpp,
// GEMM / attention / element-wise), their sum as the duration, and the FLOPs.
#include <string>
#include <vector>

#include "llmsim/hardware/compute_model.hpp"
#include "llmsim/model/transformer.hpp"
#include "llmsim/workload/program.hpp"

namespace llmsim::workload {

ComputeCost kernel_cost(const std::string& name, const std::vector<model::Kernel>& kernels, const hardware::ComputeModel& cm);

/// Two kernel streams run concurrently on one GPU (hardware/concurrent_kernels.hpp): the duration is their
/// concurrent time, each category's time the sum of both streams' scaled by duration / (their sum alone).
ComputeCost kernel_cost(const std::string& name, const std::vector<model::Kernel>& a, const std::vector<model::Kernel>& b,
                        const hardware::ComputeModel& cm);

}  // namespace llmsim::workload
