#pragma once
// The network side of expert parallelism: an expert-parallel group is ep consecutive data-parallel replicas (of one cp rank)
// of a stage (Megatron's rank order keeps them in a node while ep*tp <= gpus per node). Each MoE layer has
// four all-to-all-v exchanges among the group's workers, with the per-destination byte matrix of its routing
// (moe/traffic.hpp): dispatch sends each token copy's hidden vector (h elements) from its source to the
// expert's rank, combine sends it back (the transpose); in the backward the gradients take the same paths
// in reverse (combine-gradient = dispatch pattern, dispatch-gradient = combine pattern). Each tp rank carries
// 1/tp of every vector (lane aggregation), so the matrix is per GPU: copies * h * bytes_per_element / tp.
#include <functional>
#include <vector>

#include "llmsim/scenario/scenario.hpp"
#include "llmsim/strategy/moe_pipeline.hpp"
#include "llmsim/workload/chunk_passes.hpp"
#include "llmsim/workload/moe_plan.hpp"
#include "llmsim/workload/program.hpp"

namespace llmsim::workload {

struct MoeExchanges {
  int ep = 1;
  /// [stage][ep group][exchange key] -> CollectiveSpecs (one, or two with a split all-to-all; none when unused)
  std::vector<std::vector<std::vector<std::vector<int>>>> spec;
  /// The specs of exchange `key` for the group of data-parallel replica `replica` on `stage`.
  const std::vector<int>& of(int stage, int replica, int key) const { return spec[stage][replica / ep][key]; }
};

/// Adds the groups and specs of every MoE layer's exchanges to `w` (whose workers are placed already).
/// `stage_of_layer[l]` is the stage holding model layer l, `worker_of(stage, replica)` the worker index; with
/// layout.chunks > 1 (a pipelined MoE layer) each exchange carries 1/chunks of the bytes and runs once per
/// chunk; with layout.split_all_to_all (ScheMoE's Pipe-A2A) each exchange is two all-to-all-v on two groups of
/// the same members — the pairs inside a node and the pairs across nodes — so each part queues on its own stream.
MoeExchanges add_moe_exchanges(const scenario::Scenario& s, const MoePlan& plan, const std::vector<int>& stage_of_layer,
                               const std::function<int(int stage, int replica)>& worker_of,
                               const strategy::MoeLayout& layout, Workload& w);

}  // namespace llmsim::workload
