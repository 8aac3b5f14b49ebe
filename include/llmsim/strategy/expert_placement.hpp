#pragma once
// Expert-placement family (`strategies.expert_placement`): which expert-parallel rank (a device: a GPU's tp
// group, or a chiplet) hosts which experts of a MoE layer. A placement sees routing statistics of a profiling
// sample drawn apart from the simulated tokens (moe/routing.hpp), as a system would profile before placing.
//   round-robin     expert e on device e mod D
//   contiguous      experts [e*E/D, (e+1)*E/D) on device e (Megatron's default)
//   load-balanced   greedy: hottest expert first onto the least-loaded device with a free slot
//   replicate-hot   load-balanced, then the hottest experts get extra replicas in `extra_slots` slots per
//                   device, on the least-loaded devices (DeepSeek's EPLB idea); a token goes to a replica on its
//                   own device if there is one, else the replicas share its expert's tokens evenly
//   mozart          co-activated experts clustered (farthest-point seeds, then greedy growth by co-activation),
//                   clusters assigned to devices by an integer program minimising the most loaded device
//                   (GLPK), so that one token copy serves several of its experts (Mozart, docs/moe.md)
#include <memory>
#include <vector>

#include "llmsim/strategy/registry.hpp"

namespace llmsim::strategy {

/// Routing statistics of one MoE layer.
struct ExpertStats {
  int experts = 0;
  std::vector<double> frequency;     ///< [E] tokens choosing each expert
  std::vector<double> coactivation;  ///< [E x E] tokens choosing both i and j (0 on the diagonal)
};

struct ExpertPlacement {
  int devices = 0;
  std::vector<std::vector<int>> hosts;  ///< [E] devices holding a replica of each expert (at least one)
  /// Experts (replicas) on `device`.
  std::vector<int> experts_on(int device) const;
  /// Replicas on the most filled device.
  int max_slots() const;
};

class ExpertPlacementStrategy {
 public:
  virtual ~ExpertPlacementStrategy() = default;
  /// Places stats.experts experts on `devices` devices (devices divides experts), each device holding
  /// experts/devices of them plus any replicas the strategy adds.
  virtual ExpertPlacement place(const ExpertStats& stats, int devices) const = 0;
};

using ExpertPlacementRegistry = Registry<ExpertPlacementStrategy>;

std::unique_ptr<ExpertPlacementStrategy> make_expert_placement(const scenario::Scenario& s);

/// Greedy longest-processing-time assignment: items in decreasing `load` onto the device with the least load
/// among those with fewer than `capacity` items. Returns the device of each item.
std::vector<int> greedy_balance(const std::vector<double>& load, int devices, int capacity);

}  // namespace llmsim::strategy
