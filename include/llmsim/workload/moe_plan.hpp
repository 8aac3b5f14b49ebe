#pragma once
// The MoE layers of a training run: for every MoE layer, the routing of each expert-parallel rank's tokens of
// one micro-batch (moe/routing.hpp; drawn once per layer and rank and used for every micro-batch and every EP
// group), the expert placement chosen from a separate profiling sample of the same routing model
// (strategy/expert_placement.hpp), and the traffic that results (moe/traffic.hpp).
// Each rank's routing is sampled with at most kRoutingSampleTokens tokens; a sampled token stands for
// b*s / sample real tokens. In a moe-chiplet run the attention chiplet is the one source of every token
// (row 0 of the traffic matrices).
#include <vector>

#include "llmsim/moe/traffic.hpp"
#include "llmsim/scenario/scenario.hpp"

namespace llmsim::workload {

constexpr int kRoutingSampleTokens = 1024;

struct MoePlan {
  std::vector<int> moe_index;                          ///< [model layer] index among MoE layers, -1 if dense
  std::vector<strategy::ExpertPlacement> placements;   ///< per MoE layer
  std::vector<moe::LayerTraffic> traffic;              ///< per MoE layer, tokens of one micro-batch per rank
  bool empty() const { return traffic.empty(); }
};

/// The MoE layers of `s` as `routing` routes a sample of kRoutingSampleTokens tokens per source and `placement`
/// places the experts on a profiled sample (empty for a dense model). Token copies follow parallelism.ep_dispatch;
/// `node_of_rank` [ep] is the node of each expert-parallel rank (the first group's, standing for every group) for
/// its per-node rule (empty: each rank its own node).
MoePlan plan_moe(const scenario::Scenario& s, const moe::RoutingModel& routing,
                 const strategy::ExpertPlacementStrategy& placement, const std::vector<int>& node_of_rank = {});

/// Parameters per tp rank of the expert replicas beyond experts/ep that the fullest device holds in model layers
/// [first, first + layers) (replicate-hot's extra slots; 0 for every other placement): their weights (and FP8
/// copies), gradients and optimizer state count in memory and in the optimizer step as the experts' own. Not
/// modelled: the reduction of a replicated expert's gradients among the devices that hold it (the stage's gradient
/// sync carries the experts/ep it always carries).
double replica_params(const scenario::Scenario& s, const MoePlan& plan, int first, int layers);

}  // namespace llmsim::workload
