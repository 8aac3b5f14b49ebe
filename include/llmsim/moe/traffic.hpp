#pragma once
// Where the tokens of one MoE layer go, given the routing of each source device and an expert placement:
// the token copies between devices (the all-to-all-v matrix of dispatch; combine is its transpose), the
// (token, expert) pairs each device computes, per-expert load, drops by capacity, and C_T, the mean number
// of distinct destination devices per token (Mozart's metric; the token's own device counts).
// Replica choice: a token goes to the replica on its own device if there is one, else replicas take turns.
// Copies (CopyRule): "per-expert" sends a token once per chosen expert (Megatron's all-to-all dispatcher);
// "per-device" once per distinct destination device, one copy serving all its experts there (Mozart's efficient
// all-to-all, DeepEP's intranode kernels); "per-node" once per distinct destination device inside its own node
// and once per distinct remote node, to the device of the same in-node index there (the relay), which forwards
// it over the node's links to each destination device there (DeepEP's internode kernels and Megatron's HybridEP:
// "each token is transmitted via IB to the GPUs with the same in-node index on its target nodes, then forwarded
// via NVLink", DeepSeek-V3 technical report, arXiv 2412.19437, Sec. 3.2.2). The relay's forward is a second
// copy from the relay; combine, the transpose, reduces at the relay before the one network transfer back.
// Capacity (GShard): with capacity_factor c > 0 an expert accepts at most c * T * k / E of the T tokens of
// the group (all sources), in source order; the rest of its pairs are dropped.
#include <string>
#include <vector>

#include "llmsim/moe/routing.hpp"
#include "llmsim/strategy/expert_placement.hpp"

namespace llmsim::moe {

struct LayerTraffic {
  int devices = 0, experts = 0;
  std::vector<double> copies;                     ///< [D x D] token copies from device i to device j
  std::vector<double> pairs_on;                   ///< [D] (token, expert) pairs computed on each device
  std::vector<std::vector<double>> slot_tokens;   ///< [D][expert replicas on the device] tokens per replica
  std::vector<double> expert_load;                ///< [E] tokens per expert, all replicas
  double tokens = 0;                              ///< tokens of all sources
  double destinations = 0;                        ///< sum over tokens of distinct destination devices
  double dropped = 0;                             ///< (token, expert) pairs dropped by capacity
  double c_t() const { return tokens > 0 ? destinations / tokens : 0; }
  /// Most loaded device's pairs over the mean (1 = balanced).
  double imbalance() const;
};

/// How a token's copies reach its experts' devices.
struct CopyRule {
  enum class Kind { PerExpert, PerDevice, PerNode };
  Kind kind = Kind::PerExpert;
  /// PerNode: [D] node of each device (devices of one node share an index). Empty: every device its own node.
  std::vector<int> node_of;
  /// parallelism.ep_dispatch's value ("per-expert", "per-device", "per-node"); std::invalid_argument otherwise.
  static CopyRule named(const std::string& name, std::vector<int> node_of = {});
};

/// `per_source[d]` is the routing of device d's tokens (with `sources_are_devices` false: of an outside source,
/// e.g. Mozart's attention chiplet, so no replica is local); each sampled token stands for `scale` real tokens.
LayerTraffic route_layer(const std::vector<RoutingSample>& per_source, const strategy::ExpertPlacement& placement,
                         int experts, const CopyRule& copies, double capacity_factor, double scale,
                         bool sources_are_devices = true);

/// Frequencies and co-activation counts of a routing sample (what a placement profiles).
strategy::ExpertStats stats_of(const std::vector<RoutingSample>& samples, int experts);

}  // namespace llmsim::moe
