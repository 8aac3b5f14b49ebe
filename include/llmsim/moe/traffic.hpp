#pragma once
// Where the tokens of one MoE layer go, given the routing of each source device and an expert placement:
// the token copies between devices (the all-to-all-v matrix of dispatch; combine is its transpose), the
// (token, expert) pairs each device computes, per-expert load, drops by capacity, and C_T, the mean number
// of distinct destination devices per token (Mozart's metric; the token's own device counts).
// Replica choice: a token goes to the replica on its own device if there is one, else replicas take turns.
// Copies: "per-expert" sends a token once per chosen expert (Megatron's all-to-all dispatcher); "per-device"
// once per distinct destination device, one copy serving all its experts there (Mozart's efficient
// all-to-all, DeepEP-style deduplication).
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

/// `per_source[d]` is the routing of device d's tokens (with `sources_are_devices` false: of an outside source,
/// e.g. Mozart's attention chiplet, so no replica is local); each sampled token stands for `scale` real tokens.
LayerTraffic route_layer(const std::vector<RoutingSample>& per_source, const strategy::ExpertPlacement& placement,
                         int experts, bool per_device_copies, double capacity_factor, double scale,
                         bool sources_are_devices = true);

/// Frequencies and co-activation counts of a routing sample (what a placement profiles).
strategy::ExpertStats stats_of(const std::vector<RoutingSample>& samples, int experts);

}  // namespace llmsim::moe
